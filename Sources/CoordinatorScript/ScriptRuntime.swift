import CoordinatorCore
import LuaKit

/// The scripting runtime: a Lua state and an `Application` wired together, so that an app's flows are Lua
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
    /// The Lua state the app's scripts run in: for a host's own functions and values
    /// (`runtime.lua.globals.set("hostVersion", ...)`).
    public let lua: LuaState
    /// The application the scripts drive: the window, the coordinator tree, the gateway, events.
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
    /// The names a screen answers in Lua besides its inputs and handlers (methods, `name`, `id`).
    var screenFields: Set<String> = []

    var hasDriverFunctions = false

    /// Creates a runtime whose gateway starts in `state`, with the Lua standard libraries `libraries`.
    /// With `driverFunctions`, Lua code can also act as the user (`tap`, `back`, `top`, ...: see
    /// ``installDriverFunctions()``), as in a REPL or a test.
    public init(state: AppState = .authorization, libraries: LuaLibraries = .all, driverFunctions: Bool = false) throws {
        lua = try LuaState(libraries: libraries)
        app = Application(state: state)
        try registerScreenClass()
        try registerCoordinatorClass()
        try registerFrozenData()
        try installModule()
        if driverFunctions { try defineDriverFunctions(); hasDriverFunctions = true }
    }

    /// Creates a runtime whose gateway starts in the state named `state` (`"authorization"`, `"main"`, or
    /// any state the app declares).
    public convenience init(stateNamed state: String, driverFunctions: Bool = false) throws {
        try self.init(state: AppState(state), driverFunctions: driverFunctions)
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
            root.flows[state] = { [weak self, undo = app.undoLog] in ScriptedCoordinator(runtime: self, undo: undo, type: type) }
        }
        try app.start(root)
    }

    /// The error a bridge function or a coordinator gives once its runtime is gone (a host kept the Lua
    /// state, a function or a coordinator, and let the runtime go; or a finalizer runs while it closes).
    static func gone(_ what: String? = nil) -> LuaError {
        LuaError(.misuse, (what.map { "\($0): " } ?? "") + "the coordinator runtime is gone (the ScriptRuntime was released)")
    }

    // MARK: Module

    func installModule() throws {
        let native = try lua.newTable()
        try native.set("methods", lua.methods(of: Coordinator.self))
        try native.set("defineScreen", lua.function(name: "screen") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
            try call.push(self.defineScreen(name: call.string(1), spec: call.argument(2, as: LuaTable.self)))
        })
        try native.set("setFlows", lua.function(name: "app") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
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
        try native.set("factory", lua.function(name: "factory") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
            let name = try call.string(1)
            let choose = try call.argument(2, as: LuaFunction.self)
            self.app.catalog.factory(name) { inputs in
                try choose.call(FlowValue.record(inputs), as: String.self)
            }
        })
        try native.set("update", lua.function(name: "update") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
            try call.push(try self.update(call))
        })
        try native.set("getState", lua.function(name: "state") { [weak self] () throws -> String in
            guard let self else { throw ScriptRuntime.gone() }
            return self.app.gateway.state.rawValue
        })
        try native.set("setState", lua.function(name: "state") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
            self.app.gateway.state = AppState(try call.string(1))
        })
        try native.set("freeze", lua.function(name: "freeze") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
            if call.type(1) == .table, try FlowValue.isFrozen(call.stack, at: call.index(1)) {
                return call.stack.pushCopy(of: call.index(1)) // frozen already: itself
            }
            try call.push(self.frozen(call.argument(1, as: FlowValue.self)))
        })
        try native.set("copy", lua.function(name: "copy") { call in
            try call.push(PlainData(value: call.argument(1, as: FlowValue.self)))
        })
        try native.set("describe", lua.function(name: "describe") { call in
            try call.push(call.argument(1, as: FlowValue.self).luaLiteral)
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
}
