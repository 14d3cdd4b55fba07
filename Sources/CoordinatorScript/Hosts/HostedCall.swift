import CoordinatorCore
import CoordinatorLua

// What ScriptSession (an actor, for tool and server hosts) and ScriptHost (the main actor, for app hosts)
// share: every call into the runtime runs on the caller's isolation, stops when the task that awaits it is
// cancelled, and stops at the host's time limit.
extension ScriptRuntime {
    /// The runtime of a host front: the gateway in `state`, sandboxed when asked, steps kept free of loops
    /// (a host keeps its users' conversations in snapshots), then the host's `setUp` (its Swift screens and
    /// coordinators) before any script.
    static func hosted(state: AppState, sandbox: Bool, setUp: (ScriptRuntime) throws -> Void) throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(state: state, sandbox: sandbox)
        runtime.dropsStepLoops = true
        try setUp(runtime)
        return runtime
    }

    /// Runs `body` so that cancelling the awaiting task stops its Lua code at its next instruction
    /// ("cancelled") and so that it stops after `timeLimit` seconds ("timed out"); either way the app is as
    /// before the call.
    func hostedCall<R>(isolation: isolated (any Actor)? = #isolation, timeLimit: Double?,
                       _ body: (ScriptRuntime) throws -> R) async throws -> R {
        try await lua.cancellable { try lua.withTimeLimit(timeLimit) { try body(self) } }
    }

    /// Runs `code` as one atomic operation and gives its first result as data (nil for none or nil).
    func evaluate(_ code: String, name: String) throws -> FlowValue? {
        try app.atomically { try lua.load(code, name: name).call(as: FlowValue?.self) }
    }

    /// `values` as the Lua values of a chunk's `...`.
    func luaValues(_ values: [FlowValue]) throws -> [LuaValue] { try values.map { try lua.value($0) } }
}
