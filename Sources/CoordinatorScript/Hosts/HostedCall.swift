import CoordinatorCore
import CoordinatorLua

/// What ScriptSession (an actor, for tool and server hosts) and ScriptHost (the main actor, for app hosts)
/// share of the runtime they host: every call into it runs on the caller's isolation, stops when the task
/// that awaits it is cancelled, and stops at the host's time limit.
enum HostedRuntime {
    /// The runtime of a host front: the gateway in `state`, sandboxed when asked, steps kept free of loops
    /// (a host keeps its users' conversations in snapshots), then the host's `setUp` (its Swift screens and
    /// coordinators) before any script.
    static func make(state: AppState, sandbox: Bool, setUp: (ScriptRuntime) throws -> Void) throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(state: state, sandbox: sandbox)
        runtime.dropsStepLoops = true
        try setUp(runtime)
        return runtime
    }

    /// Runs `body` so that cancelling the awaiting task stops its Lua code at its next instruction
    /// ("cancelled") and so that it stops after `timeLimit` seconds ("timed out"); either way the app is as
    /// before the call.
    static func call<R>(_ runtime: ScriptRuntime, isolation: isolated (any Actor)? = #isolation, timeLimit: Double?,
                        _ body: (ScriptRuntime) throws -> R) async throws -> R {
        try await runtime.lua.cancellable { try runtime.lua.withTimeLimit(timeLimit) { try body(runtime) } }
    }

    /// Runs `code` as one atomic operation and gives its first result as data (nil for none or nil).
    static func evaluate(_ code: String, name: String, in runtime: ScriptRuntime) throws -> FlowValue? {
        try runtime.app.atomically { try runtime.lua.load(code, name: name).call(as: FlowValue?.self) }
    }

    /// `values` as the Lua values of a chunk's `...`.
    static func luaValues(_ values: [FlowValue], in runtime: ScriptRuntime) throws -> [LuaValue] {
        try values.map { try runtime.lua.value($0) }
    }
}
