import CoordinatorScript

/// What the runtimes a tool makes run under — flow tests, exploration, the route check — as `coordrun`'s
/// `--sandbox`, `--memory-limit` and `--instruction-limit` (docs/Security.md): each test, each explored
/// runtime, each route's runtime gets them.
public struct RuntimeLimits: Sendable {
    /// The sandbox: no files, no processes, modules only from the scripts' folders.
    public var sandbox: Bool
    /// The most bytes Lua's heap may hold (nil: no limit).
    public var memory: Int?
    /// The most instructions one call (a test's steps, a step, a link) may run (nil: no limit).
    public var instructions: Int?

    /// Limits: none by default.
    public init(sandbox: Bool = false, memory: Int? = nil, instructions: Int? = nil) {
        self.sandbox = sandbox
        self.memory = memory
        self.instructions = instructions
    }

    /// A runtime under these limits, in gateway state `state`.
    func makeRuntime(stateNamed state: String = "authorization", driverFunctions: Bool = false) throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(stateNamed: state, driverFunctions: driverFunctions, sandbox: sandbox)
        if memory != nil || instructions != nil {
            try runtime.limit(memory: memory.map { max($0, 1) }, instructions: instructions.map { max($0, 1) })
        }
        return runtime
    }

    /// A runtime under these limits (for a host's own tools, such as an explorer's runtime maker).
    public func runtime(stateNamed state: String = "authorization") throws -> ScriptRuntime { try makeRuntime(stateNamed: state) }
}
