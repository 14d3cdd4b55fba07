import CoordinatorCore
import LuaKit

/// The scripting runtime: a Lua state and an ``Application`` wired together, so that an app's flows are Lua
/// scripts (`require "coordinator"`) over the Swift coordinator core.
///
/// ```swift
/// let runtime = try ScriptRuntime()
/// try runtime.load(script: "scripts/app.lua")   // defines screens, coordinators and `flow.app { ... }`
/// try runtime.start()                           // runs the flow the gateway asks for
/// try runtime.app.tap("login", payload: ["name": "Ann", "password": "secret"])
/// try runtime.run("tap('selectCity')")          // any Lua chunk, with the driver functions
/// runtime.app.window.visibleScreen?.name        // "Regions"
/// ```
///
/// Every call that changes the app is atomic: if Lua code fails halfway, the navigation state (window,
/// tree, inputs, handlers, gateway) is exactly as before the call.
public final class ScriptRuntime {
    public let lua: LuaState
    public let app: Application
    /// The Lua module table (`require "coordinator"`).
    public private(set) var module: LuaTable?
    /// The prelude's `metaFor(class)`: the metatable of a coordinator class's instances.
    var metaFor: LuaFunction?
    var flows: [AppState: LuaTable] = [:]
    var rootClass: LuaTable?
    var swiftCoordinators: [String: () -> Coordinator] = [:]
    /// Coordinator classes run so far, by the address of their table (see ``coordinatorClass(_:_:)``).
    var classCache: [UnsafeRawPointer: CoordinatorClass] = [:]
    /// The files the app was loaded from (main scripts and the modules they required), as last loaded.
    var files: [ScriptFile] = []
    var snapshot: LuaFunction?
    var definitions: LuaFunction?
    /// The metamethods every frozen table shares (see ``FrozenValue``).
    var dataMetamethods: [(name: String, value: LuaValue)] = []

    /// Creates a runtime whose gateway starts in `state`.
    public init(state: AppState = .authorization, libraries: LuaLibraries = .all) throws {
        lua = try LuaState(libraries: libraries)
        app = Application(state: state)
        try registerScreenClass()
        try registerCoordinatorClass()
        try registerFrozenData()
        try installModule()
        try installDriver()
    }

    /// Supplies a coordinator written in Swift (a service such as storage or networking, or a whole flow)
    /// under a name: Lua runs it as `self:run(flow.coordinator "Name")`, like a Lua coordinator, and its
    /// result reaches Lua's `onFinish`.
    ///
    /// ```swift
    /// runtime.registerCoordinator("Storage") { StorageCoordinator(name: "Storage") }
    /// ```
    public func registerCoordinator(_ name: String, make: @escaping () -> Coordinator) {
        swiftCoordinators[name] = make
    }

    /// Makes the coordinator for a class: Swift's when one is registered under its name, else a Lua one.
    func makeCoordinator(_ type: CoordinatorClass, onFinish: LuaFunction?) -> (coordinator: Coordinator, scripted: ScriptedCoordinator?) {
        if let make = swiftCoordinators[type.name] {
            let coordinator = make()
            if let onFinish {
                coordinator.onFinish = { result, reason in try onFinish.call(result, reason.rawValue) }
            }
            return (coordinator, nil)
        }
        let scripted = ScriptedCoordinator(runtime: self, type: type.table, name: type.name, meta: type.meta, onFinish: onFinish)
        return (scripted, scripted)
    }

    /// The metatable of the instances of the coordinator class `type` (made once per class, kept by the
    /// prelude).
    func instanceMeta(for type: LuaTable) throws -> LuaTable {
        guard let metaFor else { throw LuaError(.misuse, "the coordinator module is not loaded") }
        return try metaFor.call(type, as: LuaTable.self)
    }

    /// Runs the app's main script (its folder is on `package.path`). ``reload()`` runs it again, with the
    /// modules it required from files.
    public func load(script path: String) throws {
        let before = try loadedModules()
        try app.atomically { _ = try lua.runMainScript(path) }
        if !files.contains(where: { $0.path == path && $0.module == nil }) { files.append(ScriptFile(path: path, module: nil)) }
        try noteModules(loadedModules().subtracting(before))
        for i in files.indices where files[i].text == nil { files[i].read() } // earlier files keep the text they ran
    }

    /// Runs a Lua chunk with the driver functions (`tap`, `back`, `top`, `stack`, `tree`, `reload`); if it fails,
    /// the navigation state is restored.
    @discardableResult
    public func run(_ code: String, name: String = "input") throws -> [LuaValue] {
        try app.atomically { try lua.run(code, name: name) }
    }

    /// Starts the application coordinator declared with `flow.app { state = Coordinator, ... }`.
    public func start() throws {
        if let rootClass {
            try app.start(ScriptedCoordinator(runtime: self, type: rootClass))
            return
        }
        guard !flows.isEmpty else {
            throw LuaError(.misuse, "the script declares no application: call flow.app { authorization = Login, main = Main }")
        }
        let root = ApplicationCoordinator(name: "App")
        for (state, type) in flows {
            root.flows[state] = { [unowned self] in ScriptedCoordinator(runtime: self, type: type) }
        }
        try app.start(root)
    }

    // MARK: Module

    private func installModule() throws {
        let native = try lua.newTable()
        try native.set("methods", lua.methods(of: Coordinator.self))
        try native.set("defineScreen", lua.function(name: "screen") { [unowned self] call in
            try call.push(self.defineScreen(name: call.string(1), spec: call.argument(2, as: LuaTable.self)))
        })
        try native.set("setFlows", lua.function(name: "app") { [unowned self] call in
            switch call.type(1) {
            case .table:
                let table = try call.argument(1, as: LuaTable.self)
                if try table.rawGet("__name", as: String?.self) != nil {
                    self.rootClass = table
                    return
                }
                var flows: [AppState: LuaTable] = [:]
                for (key, value) in try table.pairs() {
                    guard let state = key.stringValue, let type = value.tableValue else {
                        throw call.badArgument(1, "expected { state = Coordinator, ... }")
                    }
                    flows[AppState(state)] = type
                }
                self.flows = flows
            default:
                throw call.badArgument(1, "expected { state = Coordinator, ... } or a coordinator class")
            }
        })
        try native.set("factory", lua.function(name: "factory") { [unowned self] call in
            let name = try call.string(1)
            let choose = try call.argument(2, as: LuaFunction.self)
            self.app.catalog.factory(name) { inputs in
                try choose.call(FlowValue.record(inputs), as: String.self)
            }
        })
        try native.set("update", lua.function(name: "update") { [unowned self] call in
            try call.push(try self.update(call))
        })
        try native.set("getState", lua.function(name: "state") { [unowned self] in self.app.gateway.state.rawValue })
        try native.set("setState", lua.function(name: "state") { [unowned self] call in
            self.app.gateway.state = AppState(try call.string(1))
        })
        try native.set("freeze", lua.function(name: "freeze") { [unowned self] call in
            if call.type(1) == .table, try FlowValue.isFrozen(call.stack, at: call.index(1)) {
                return call.stack.pushCopy(of: call.index(1)) // frozen already: itself
            }
            try call.push(self.frozen(call.argument(1, as: FlowValue.self)))
        })
        try native.set("copy", lua.function(name: "copy") { call in
            try call.push(PlainData(value: call.argument(1, as: FlowValue.self)))
        })
        try native.set("describe", lua.function(name: "describe") { call in
            try call.push(call.argument(1, as: FlowValue.self).description)
        })
        let prelude = try lua.load(Prelude.source, name: "[coordinator]")
        let results = try prelude.callValues(native)
        guard results.count == 5, let module = results[0].tableValue, let metaFor = results[1].functionValue,
              let dataMeta = results[4].tableValue
        else {
            throw LuaError(.misuse, "the coordinator module did not load")
        }
        self.module = module
        self.metaFor = metaFor
        self.snapshot = results[2].functionValue
        self.definitions = results[3].functionValue
        dataMetamethods = try dataMeta.pairs().compactMap { key, value in key.stringValue.map { ($0, value) } }
        let package: LuaTable = try lua.globals.get("package")
        let loaded: LuaTable = try package.get("loaded")
        try loaded.set("coordinator", module)
    }

    /// `update("input", value)` or `update { input = value, ... }` on every shown screen that declares it.
    func update(_ call: LuaCall) throws -> Int {
        if call.type(1) == .table {
            let fields = try call.argument(1, as: FlowRecord.self) // sorted by name: a stable order of changes
            if fields.count == 1, let field = fields.fields.first { return try app.update(field.key, to: field.value) } // atomic itself
            return try app.atomically {
                try fields.reduce(0) { count, field in try count + app.update(field.key, to: field.value) }
            }
        }
        let name = try call.string(1)
        return try app.update(name, to: call.optional(2, as: FlowValue.self))
    }

    // MARK: Screens

    func defineScreen(name: String, spec: LuaTable) throws -> String {
        var inputs: [InputSpec] = []
        if let list = try spec.get("inputs", as: [LuaValue]?.self) {
            for item in list {
                if let name = item.stringValue { inputs.append(InputSpec(name)) }
                else { throw LuaError(.runtime, "screen \(name): inputs are names (strings)") }
            }
        }
        let required = try spec.get("required", as: [String]?.self) ?? []
        for name in required where !inputs.contains(where: { $0.name == name }) { inputs.append(InputSpec(name)) }
        inputs = inputs.map { InputSpec($0.name, required: required.contains($0.name)) }

        var outputs: [OutputSpec] = []
        if let table = try spec.get("outputs", as: LuaTable?.self) {
            for item in try table.decode([LuaValue].self) {
                guard let output = item.stringValue else { throw LuaError(.runtime, "screen \(name): outputs are names, or name = payload") }
                outputs.append(OutputSpec(output))
            }
            var keyed: [OutputSpec] = [] // Lua keeps no order for keyed fields: they follow, by name
            for (key, value) in try table.pairs() where key.stringValue != nil {
                let output = key.stringValue ?? ""
                switch value {
                case .string(let kind) where kind.string == "value": keyed.append(OutputSpec(output, payload: .value))
                case .string(let kind) where kind.string == "none": keyed.append(OutputSpec(output))
                case .table(let options):
                    guard let from = try options.get("from", as: String?.self) else {
                        throw LuaError(.runtime, "screen \(name): output '\(output)' = { from = 'input' } names the list input its payload comes from")
                    }
                    keyed.append(OutputSpec(output, payload: .choice(from: from)))
                default:
                    throw LuaError(.runtime, "screen \(name): output '\(output)' must be \"value\", \"none\" or { from = 'input' }")
                }
            }
            outputs += keyed.sorted { $0.name < $1.name }
        }
        let render = try spec.get("render", as: LuaFunction?.self)
        let title = try spec.get("title", as: String?.self)
        var renderer: ((Screen) throws -> String)?
        if let render {
            renderer = { (screen: Screen) throws -> String in
                try render.call(LuaObject(screen), as: String.self)
            }
        }
        let type = ScreenType(name, inputs: inputs, outputs: outputs, title: title, render: renderer)
        app.catalog.register(type)
        return name
    }

    private func registerScreenClass() throws {
        // Methods are looked up after inputs, so an input may be called `title`, `render` or `send`.
        let methods: [String: LuaFunction] = [
            "title": lua.function(name: "title") { call in try call.push(call.object(1, as: Screen.self).title) },
            "isShown": lua.function(name: "isShown") { call in try call.push(call.object(1, as: Screen.self).isShown) },
            "render": lua.function(name: "render") { call in try call.push(call.object(1, as: Screen.self).render()) },
            "input": lua.function(name: "input") { call in try call.push(call.object(1, as: Screen.self)[call.string(2)]) },
            "inputs": lua.function(name: "inputs") { call in try call.push(FlowValue.record(call.object(1, as: Screen.self).inputs)) },
            "outputs": lua.function(name: "outputs") { call in try call.push(call.object(1, as: Screen.self).outputs.map(\.name)) },
            "on": lua.function(name: "on") { [unowned self] call in
                let screen = try call.object(1, as: Screen.self)
                let output = try call.string(2)
                try self.setHandler(screen, output: output, slot: screen.checkedSlot(ofOutput: output), toValueAt: 3, of: call)
            },
            "emit": lua.function(name: "emit") { [unowned self] call in
                let screen = try call.object(1, as: Screen.self)
                let output = try call.string(2)
                let payload = try call.optional(3, as: FlowValue.self)
                try self.app.atomically { try screen.emit(output, payload: payload) }
            },
            "send": lua.function(name: "send") { [unowned self] call in
                let screen = try call.object(1, as: Screen.self)
                let name = try call.string(2)
                let payload = try call.optional(3, as: FlowValue.self)
                let signal = try self.app.atomically { try screen.send(name, payload: payload) }
                try call.push(signal.replies)
            },
            "onSignal": lua.function(name: "onSignal") { [unowned self] call in
                let screen = try call.object(1, as: Screen.self)
                let name = try call.string(2)
                let callback = try call.argument(3, as: LuaCallback.self)
                screen.onSignal(name) { signal in try self.deliver(signal, to: callback) }
            },
        ]
        try lua.register(Screen.self, name: "Screen") { s in
            s.readOnly("name") { $0.name }
            s.readOnly("id") { $0.id }
            s.index { screen, call in
                guard let key = call.value(1).stringValue else { return }
                if screen.type.input(named: key) != nil {
                    if let value = screen[key] { try call.push(value) }
                } else if let method = methods[key] {
                    try call.push(method)
                }
            }
            s.newIndex { [unowned self] screen, call in
                guard call.type(1) == .string else {
                    throw LuaError(.runtime, "screen \(screen.name) fields are named by strings")
                }
                let key = try call.string(1)
                if let (output, slot) = screen.outputSlot(forHandler: key) {
                    switch call.type(2) {
                    case .nil, .none, .function: return try self.setHandler(screen, output: output, slot: slot, toValueAt: 2, of: call)
                    default: throw LuaError(.runtime, "screen \(screen.name): \(key) must be a function (or nil)")
                    }
                }
                guard screen.type.input(named: key) != nil else {
                    let inputs = screen.type.inputs.map(\.name).joined(separator: ", ")
                    let outputs = screen.outputs.map(\.handlerName).joined(separator: ", ")
                    throw LuaError(.runtime, "screen \(screen.name) has no input or output '\(key)' (inputs: \(inputs.isEmpty ? "none" : inputs); handlers: \(outputs.isEmpty ? "none" : outputs))")
                }
                let value = call.type(2).rawValue <= LuaType.nil.rawValue ? nil : try FlowValue.read(from: call.stack, at: call.index(2), path: key)
                try screen.set(key, to: value)
            }
            s.toString { "Screen \($0.info)" }
        }
    }

    /// Sets the screen's Lua handler for `output` (in `slot`) to the function or nil at `argument` of `call`.
    func setHandler(_ screen: Screen, output: String, slot: Int, toValueAt argument: Int, of call: LuaCall) throws {
        let handlers: ScreenHandlers
        switch screen.outputReceiver {
        case let own as ScreenHandlers: handlers = own
        case nil:
            handlers = ScreenHandlers(lua, app: app, for: screen, isNew: false)
            screen.outputReceiver = handlers
            if let owner = screen.owner as? ScriptedCoordinator { owner.adopt(screen) }
        case .some:
            throw LuaError(.runtime, "screen \(screen.name)'s outputs go to a Swift receiver: scripts cannot handle them")
        }
        if screen.hasOwnHandler(for: output) { screen.removeHandler(for: output) } // the last handler set wins
        try handlers.setHandler(slot, toValueAt: call.index(argument), in: call.stack)
    }

    func deliver(_ signal: Signal, to handler: LuaCallback) throws {
        // A handler changes the payload by returning a new one, answers with a second value, and stops the
        // signal with a true third.
        try handler.call(signal.payload, signal.name) { results in
            guard results.count > 0 else { return }
            if !results.isNil(1) { signal.payload = try FlowValue(lua: results[1], path: "payload") }
            if !results.isNil(2) { signal.reply(try FlowValue(lua: results[2], path: "reply")) }
            if results[3].boolValue == true { signal.stop() }
        }
    }

    // MARK: Coordinators

    private func registerCoordinatorClass() throws {
        try lua.register(Coordinator.self, name: "CoordinatorHandle") { c in
            c.readOnly("name") { $0.name }
            c.readOnly("id") { $0.id }
            c.readOnly("status") { $0.status.rawValue }
            c.standIn(field: "__handle") // instances (Lua tables) call these methods directly
            c.method("push") { [unowned self] coordinator, call in
                let screen = try self.makeScreen(call, for: coordinator)
                let animated = try self.option(call, 3, "animated") ?? true
                try coordinator.push(screen, animated: animated)
                try call.push(LuaObject(new: screen)) // made above: Lua has not seen it
            }
            c.method("present") { [unowned self] coordinator, call in
                let screen = try self.makeScreen(call, for: coordinator)
                try coordinator.present(screen, animated: self.option(call, 3, "animated") ?? true)
                try call.push(LuaObject(new: screen))
            }
            c.method("setRoot") { [unowned self] coordinator, call in
                let screen = try self.makeScreen(call, for: coordinator)
                try coordinator.setRoot(screen, hideBar: self.option(call, 3, "hideBar") ?? false,
                                        animated: self.option(call, 3, "animated") ?? true)
                try call.push(LuaObject(new: screen))
            }
            c.method("pop") { coordinator, call in try coordinator.pop() }
            c.method("popToRoot") { coordinator, call in try coordinator.popToRoot() }
            c.method("dismiss") { coordinator, call in try coordinator.dismiss() }
            c.method("selectTab") { coordinator, call in try coordinator.selectTab(call.integer(1).subtractingReportingOverflow(1).partialValue) }
            c.method("alert") { coordinator, call in
                let spec = try call.argument(1, as: LuaTable.self)
                let title = try spec.get("title", as: String?.self) ?? ""
                let message = try spec.get("message", as: String?.self)
                var actions: [(title: String, handler: (() throws -> Void)?)] = []
                for item in try spec.get("actions", as: [LuaValue]?.self) ?? ["OK"] {
                    if let name = item.stringValue {
                        actions.append((name, nil))
                    } else if let pair = item.tableValue, let name = try pair.rawGet(1, as: String?.self) {
                        let handler = try pair.rawGet(2, as: LuaFunction?.self)
                        actions.append((name, handler.map { f in { try f.call() } }))
                    } else {
                        throw call.badArgument(1, "actions are names or { name, function }")
                    }
                }
                let alert = try coordinator.alert(title: title, message: message, actions: actions)
                try call.push(LuaObject(alert))
            }
            c.method("run") { [unowned self] coordinator, call in
                let type = try self.coordinatorClass(call, 1)
                let args = try call.optional(2, as: FlowValue.self)
                let modal = try self.option(call, 3, "modal") ?? false
                let onFinish = try self.optionValue(call, 3, "onFinish")?.functionValue
                let (child, scripted) = self.makeCoordinator(type, onFinish: onFinish)
                try coordinator.run(child, with: args, modal: modal)
                if let scripted {
                    try call.push(scripted.instance.map(LuaValue.table) ?? .nil)
                } else {
                    try call.push(LuaObject(child)) // a Swift coordinator: its handle
                }
            }
            c.method("setTabs") { [unowned self] coordinator, call in
                // { { "Title", Class [, args] }, ... }: one tab per entry, each with its own navigation stack
                // and a child coordinator started on it.
                var tabs: [(title: String, type: LuaTable, args: FlowValue?)] = []
                for item in try call.argument(1, as: [LuaTable].self) {
                    guard let title = try item.rawGet(1, as: String?.self), let type = try item.rawGet(2, as: LuaTable?.self),
                          try type.rawGet("__name", as: String?.self) != nil
                    else { throw call.badArgument(1, "tabs are { \"Title\", CoordinatorClass [, args] }") }
                    tabs.append((title, type, try item.rawGet(3, as: FlowValue?.self)))
                }
                let children = tabs.map { ScriptedCoordinator(runtime: self, type: $0.type) }
                try self.app.atomically {
                    try coordinator.setTabs(tabs.map(\.title), for: children)
                    for (child, tab) in zip(children, tabs) { try coordinator.run(child, with: tab.args) }
                }
                try call.push(children.map { $0.instance.map(LuaValue.table) ?? .nil })
            }
            c.method("finish") { coordinator, call in try coordinator.finish(call.optional(1, as: FlowValue.self)) }
            c.method("update") { [unowned self] _, call in try call.push(try self.update(call)) }
            c.method("send") { coordinator, call in
                let signal = try coordinator.send(call.string(1), payload: call.optional(2, as: FlowValue.self))
                try call.push(signal.replies)
            }
            c.method("onSignal") { [unowned self] coordinator, call in
                let name = try call.string(1)
                let callback = try call.argument(2, as: LuaCallback.self)
                coordinator.onSignal(name) { signal in try self.deliver(signal, to: callback) }
            }
        }
    }

    /// The coordinator class at argument `n`, its name and its instances' metatable. Classes are looked up
    /// by identity in a cache that holds them (so an address is never reused while cached): running a
    /// class again takes no new reference and reads no name.
    func coordinatorClass(_ call: LuaCall, _ n: Int) throws -> CoordinatorClass {
        if call.type(n) == .table, let address = call.stack.pointer(at: call.index(n)), let known = classCache[address] {
            return known
        }
        let type = try call.argument(n, as: LuaTable.self)
        guard let name = try type.rawGet("__name", as: String?.self) else {
            throw call.badArgument(n, "expected a coordinator class (flow.coordinator \"Name\")")
        }
        let found = CoordinatorClass(table: type, name: name, meta: try instanceMeta(for: type))
        if let address = call.stack.pointer(at: call.index(n)) { classCache[address] = found }
        return found
    }

    /// The screen `coordinator:push(name, inputs)` (and present, setRoot) shows, with a receiver for the
    /// handlers the script will set: made here, where nothing else holds the screen yet, its handlers need
    /// no undo in this operation.
    func makeScreen(_ call: LuaCall, for coordinator: Coordinator) throws -> Screen {
        let screen = try app.catalog.make(call.string(1), inputs: call.optional(2, as: FlowRecord.self) ?? [:])
        screen.outputReceiver = ScreenHandlers(lua, app: app, for: screen, isNew: true)
        if let owner = coordinator as? ScriptedCoordinator { owner.adopt(screen) }
        return screen
    }

    func option<T: LuaReadable>(_ call: LuaCall, _ n: Int, _ key: String) throws -> T? {
        guard call.type(n) == .table else { return nil }
        return try call.argument(n, as: LuaTable.self).get(key, as: T?.self)
    }

    func optionValue(_ call: LuaCall, _ n: Int, _ key: String) throws -> LuaValue? {
        guard call.type(n) == .table else { return nil }
        return try call.argument(n, as: LuaTable.self).get(key, as: LuaValue.self)
    }

    // MARK: Driver

    private func installDriver() throws {
        let globals = lua.globals
        try globals.set("tap", lua.function(name: "tap") { [unowned self] call in
            try self.app.tap(call.string(1), payload: call.optional(2, as: FlowValue.self))
        })
        try globals.set("back", lua.function(name: "back") { [unowned self] _ in try self.app.back() })
        try globals.set("top", lua.function(name: "top") { [unowned self] call in
            if let screen = self.app.window.visibleScreen { try call.push(LuaObject(screen)) }
        })
        try globals.set("tab", lua.function(name: "tab") { [unowned self] call in
            try self.app.selectTab(call.integer(1).subtractingReportingOverflow(1).partialValue)
        })
        try globals.set("stack", lua.function(name: "stack") { [unowned self] call in
            try call.push(self.app.window.visibleStack.map(\.name))
        })
        try globals.set("reload", lua.function(name: "reload") { [unowned self] call in
            try call.push(self.reload().description)
        })
        try globals.set("tree", lua.function(name: "tree") { [unowned self] call in
            if let root = self.app.root { try call.push(CoordinatorTree(root: root)) }
        })
    }
}

/// A coordinator class (`flow.coordinator "Name"`) as `run` finds it: its table, name and the metatable of
/// its instances.
struct CoordinatorClass {
    let table: LuaTable
    let name: String
    let meta: LuaTable
}
