import CoordinatorCore
import CoordinatorLua

/// The methods of a screen in Lua (`screen:title()`, `screen:emit("save")`, ...): one function each.
/// Each takes the runtime, the screen (`self`, checked) and the call; its arguments start at 2.
enum ScreenMethods {
    typealias Method = @Sendable (ScriptRuntime, Screen, borrowing LuaCall) throws -> Void

    /// Every method, by its Lua name.
    static let all: [(name: String, body: Method)] = [
        ("title", title), ("isShown", isShown), ("render", render), ("input", input), ("inputs", inputs),
        ("outputs", outputs), ("on", on), ("emit", emit), ("send", send), ("onSignal", onSignal),
    ]

    /// `screen:title()`: the title shown above it.
    static func title(_ runtime: ScriptRuntime, _ screen: Screen, _ call: borrowing LuaCall) throws { try call.pushResult(screen.title) }

    /// `screen:isShown()`: whether it is in the window.
    static func isShown(_ runtime: ScriptRuntime, _ screen: Screen, _ call: borrowing LuaCall) throws { try call.pushResult(screen.isShown) }

    /// `screen:render()`: its text.
    static func render(_ runtime: ScriptRuntime, _ screen: Screen, _ call: borrowing LuaCall) throws { try call.pushResult(screen.render()) }

    /// `screen:input(name)`: an input's value (also for inputs named like a method).
    static func input(_ runtime: ScriptRuntime, _ screen: Screen, _ call: borrowing LuaCall) throws {
        try call.pushResult(screen[call.string(2)])
    }

    /// `screen:inputs()`: every input that has a value, as a table.
    static func inputs(_ runtime: ScriptRuntime, _ screen: Screen, _ call: borrowing LuaCall) throws {
        try call.pushResult(FlowValue.record(screen.inputs))
    }

    /// `screen:outputs()`: the names of its outputs.
    static func outputs(_ runtime: ScriptRuntime, _ screen: Screen, _ call: borrowing LuaCall) throws {
        try call.pushResult(screen.outputs.map(\.name))
    }

    /// `screen:on(output, function(payload) ... end)`: sets a handler by the output's name (nil removes it).
    static func on(_ runtime: ScriptRuntime, _ screen: Screen, _ call: borrowing LuaCall) throws {
        let output = try call.string(2)
        try runtime.screens.setHandler(screen, output: output, slot: screen.checkedSlot(ofOutput: output), toValueAt: 3, of: call)
    }

    /// `screen:emit(output [, payload])`: the screen reports an output, as if the user acted.
    static func emit(_ runtime: ScriptRuntime, _ screen: Screen, _ call: borrowing LuaCall) throws {
        let output = try call.string(2)
        let payload = try call.optional(3, as: FlowValue.self)
        try runtime.app.atomically { try screen.emit(output, payload: payload) }
    }

    /// `screen:send(name [, payload])`: sends a signal up from the screen; returns the replies.
    static func send(_ runtime: ScriptRuntime, _ screen: Screen, _ call: borrowing LuaCall) throws {
        let name = try call.string(2)
        let payload = try call.optional(3, as: FlowValue.self)
        let signal = try runtime.app.atomically { try screen.send(name, payload: payload) }
        try call.pushResult(signal.replies)
    }

    /// `screen:onSignal(name, function(payload, name) ... end)`: handles a signal sent to the screen.
    static func onSignal(_ runtime: ScriptRuntime, _ screen: Screen, _ call: borrowing LuaCall) throws {
        let name = try call.string(2)
        let callback = try call.argument(3, as: LuaCallback.self)
        screen.onSignal(name, runtime.signalHandler(callback))
        // Part of the app while its screen keeps this handler for the name (``LuaCallback/isKept``).
        let serial = screen.handlerSerial(signal: name)
        callback.isKept = { [weak screen] in screen.map { $0.owner != nil && $0.handlerSerial(signal: name) == serial } ?? false }
    }
}
