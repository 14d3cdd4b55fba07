import CoordinatorCore
import LuaKit

/// Screens in Lua: `flow.screen "Name" { ... }` defines a type; a screen is a userdata whose fields are its
/// inputs and whose `onOutput` fields are its handlers.
extension ScriptRuntime {
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

    func registerScreenClass() throws {
        // Methods are looked up after inputs, so an input may be called `title`, `render` or `send`.
        let methods: [String: LuaFunction] = [
            "title": lua.function(name: "title") { call in try call.push(call.object(1, as: Screen.self).title) },
            "isShown": lua.function(name: "isShown") { call in try call.push(call.object(1, as: Screen.self).isShown) },
            "render": lua.function(name: "render") { call in try call.push(call.object(1, as: Screen.self).render()) },
            "input": lua.function(name: "input") { call in try call.push(call.object(1, as: Screen.self)[call.string(2)]) },
            "inputs": lua.function(name: "inputs") { call in try call.push(FlowValue.record(call.object(1, as: Screen.self).inputs)) },
            "outputs": lua.function(name: "outputs") { call in try call.push(call.object(1, as: Screen.self).outputs.map(\.name)) },
            "on": lua.function(name: "on") { [weak self] call in
                guard let self else { throw ScriptRuntime.gone() }
                let screen = try call.object(1, as: Screen.self)
                let output = try call.string(2)
                try self.setHandler(screen, output: output, slot: screen.checkedSlot(ofOutput: output), toValueAt: 3, of: call)
            },
            "emit": lua.function(name: "emit") { [weak self] call in
                guard let self else { throw ScriptRuntime.gone() }
                let screen = try call.object(1, as: Screen.self)
                let output = try call.string(2)
                let payload = try call.optional(3, as: FlowValue.self)
                try self.app.atomically { try screen.emit(output, payload: payload) }
            },
            "send": lua.function(name: "send") { [weak self] call in
                guard let self else { throw ScriptRuntime.gone() }
                let screen = try call.object(1, as: Screen.self)
                let name = try call.string(2)
                let payload = try call.optional(3, as: FlowValue.self)
                let signal = try self.app.atomically { try screen.send(name, payload: payload) }
                try call.push(signal.replies)
            },
            "onSignal": lua.function(name: "onSignal") { [weak self] call in
                guard let self else { throw ScriptRuntime.gone() }
                let screen = try call.object(1, as: Screen.self)
                let name = try call.string(2)
                let callback = try call.argument(3, as: LuaCallback.self)
                screen.onSignal(name) { signal in try self.deliver(signal, to: callback) }
            },
        ]
        screenFields = Set(methods.keys).union(["name", "id"])
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
            s.newIndex { [weak self] screen, call in
                guard let self else { throw ScriptRuntime.gone() }
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
}
