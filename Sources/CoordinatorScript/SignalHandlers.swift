import CoordinatorCore
import CoordinatorLua

/// Signal handlers in Lua (`screen:onSignal(name, fn)`, `self:onSignal(name, fn)`): `fn(payload, name)`
/// changes the payload by returning a new one, answers with a second value, and stops the signal with a
/// true third.
extension ScriptRuntime {
    /// The core's handler for the Lua function `callback`. It holds the runtime weakly: a screen or a
    /// coordinator keeping it never keeps the runtime alive.
    func signalHandler(_ callback: LuaCallback) -> (Signal) throws -> Void {
        holding(self) { runtime, signal in try runtime.deliver(signal, to: callback) }
    }

    func deliver(_ signal: Signal, to handler: LuaCallback) throws {
        try handler.call(signal.payload, signal.name) { results in
            guard results.count > 0 else { return }
            if !results.isNil(1) { signal.payload = try FlowValue(lua: results[1], path: "payload") }
            if !results.isNil(2) { signal.reply(try FlowValue(lua: results[2], path: "reply")) }
            if results[3].boolValue == true { signal.stop() }
        }
    }
}
