import CoordinatorCore
import CoordinatorLua

/// Screens in Lua: a screen is a userdata whose fields are its inputs (`screen.user`, assignable), whose
/// `onOutput` fields are its handlers (`screen.onSelectCity = function() ... end`), and whose methods are
/// `ScreenMethods`.
extension ScriptRuntime {
    /// Registers the screen userdata: `name`, `id`, its inputs as fields, `onOutput` handler fields, and
    /// ``ScreenMethods``.
    func registerScreenClass() throws {
        // Methods are looked up after inputs, so an input may be called `title`, `render` or `send`.
        var methods: [String: LuaFunction] = [:]
        for (name, body) in ScreenMethods.all {
            methods[name] = lua.function(name: name, holding: self) { runtime, call in
                try body(runtime, call.object(1, as: Screen.self), call)
            }
        }
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
            s.newIndex(holding(self) { runtime, screen, call in
                guard call.type(1) == .string else {
                    throw LuaError(.runtime, "screen \(screen.name) fields are named by strings")
                }
                let key = try call.string(1)
                if let (output, slot) = screen.outputSlot(forHandler: key) {
                    switch call.type(2) {
                    case .nil, .none, .function: return try runtime.setHandler(screen, output: output, slot: slot, toValueAt: 2, of: call)
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
            })
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
}

/// The methods of a screen in Lua (`screen:title()`, `screen:emit("save")`, ...): one function each.
/// Each takes the runtime, the screen (`self`, checked) and the call; its arguments start at 2.
enum ScreenMethods {
    typealias Method = @Sendable (ScriptRuntime, Screen, LuaCall) throws -> Void

    /// Every method, by its Lua name.
    static let all: [(name: String, body: Method)] = [
        ("title", title), ("isShown", isShown), ("render", render), ("input", input), ("inputs", inputs),
        ("outputs", outputs), ("on", on), ("emit", emit), ("send", send), ("onSignal", onSignal),
    ]

    /// `screen:title()`: the title shown above it.
    static func title(_ runtime: ScriptRuntime, _ screen: Screen, _ call: LuaCall) throws { try call.push(screen.title) }

    /// `screen:isShown()`: whether it is in the window.
    static func isShown(_ runtime: ScriptRuntime, _ screen: Screen, _ call: LuaCall) throws { try call.push(screen.isShown) }

    /// `screen:render()`: its text.
    static func render(_ runtime: ScriptRuntime, _ screen: Screen, _ call: LuaCall) throws { try call.push(screen.render()) }

    /// `screen:input(name)`: an input's value (also for inputs named like a method).
    static func input(_ runtime: ScriptRuntime, _ screen: Screen, _ call: LuaCall) throws {
        try call.push(screen[call.string(2)])
    }

    /// `screen:inputs()`: every input that has a value, as a table.
    static func inputs(_ runtime: ScriptRuntime, _ screen: Screen, _ call: LuaCall) throws {
        try call.push(FlowValue.record(screen.inputs))
    }

    /// `screen:outputs()`: the names of its outputs.
    static func outputs(_ runtime: ScriptRuntime, _ screen: Screen, _ call: LuaCall) throws {
        try call.push(screen.outputs.map(\.name))
    }

    /// `screen:on(output, function(payload) ... end)`: sets a handler by the output's name (nil removes it).
    static func on(_ runtime: ScriptRuntime, _ screen: Screen, _ call: LuaCall) throws {
        let output = try call.string(2)
        try runtime.setHandler(screen, output: output, slot: screen.checkedSlot(ofOutput: output), toValueAt: 3, of: call)
    }

    /// `screen:emit(output [, payload])`: the screen reports an output, as if the user acted.
    static func emit(_ runtime: ScriptRuntime, _ screen: Screen, _ call: LuaCall) throws {
        let output = try call.string(2)
        let payload = try call.optional(3, as: FlowValue.self)
        try runtime.app.atomically { try screen.emit(output, payload: payload) }
    }

    /// `screen:send(name [, payload])`: sends a signal up from the screen; returns the replies.
    static func send(_ runtime: ScriptRuntime, _ screen: Screen, _ call: LuaCall) throws {
        let name = try call.string(2)
        let payload = try call.optional(3, as: FlowValue.self)
        let signal = try runtime.app.atomically { try screen.send(name, payload: payload) }
        try call.push(signal.replies)
    }

    /// `screen:onSignal(name, function(payload, name) ... end)`: handles a signal sent to the screen.
    static func onSignal(_ runtime: ScriptRuntime, _ screen: Screen, _ call: LuaCall) throws {
        let name = try call.string(2)
        screen.onSignal(name, try runtime.signalHandler(call.argument(3, as: LuaCallback.self)))
    }
}
