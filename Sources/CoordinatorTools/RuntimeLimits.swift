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

    /// A runtime under these limits, in gateway state `state`, with the driver functions (`tap`, `back`, ...)
    /// if asked; `timed` says that a time limit bounds its calls too (``apply(to:timed:)``); `imageable`, that
    /// its scripts' heap can be imaged (exploration's branches).
    package func runtime(stateNamed state: String = "authorization", driverFunctions: Bool = false, timed: Bool,
                         imageable: Bool = false) throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(stateNamed: state, driverFunctions: driverFunctions, sandbox: sandbox, imageable: imageable)
        try apply(to: runtime, timed: timed)
        return runtime
    }

    /// Puts the memory and instruction limits on `runtime` (the sandbox is the runtime's from its start);
    /// `timed` says that a time limit bounds its calls too. Under any limit the runtime's scripts cannot
    /// set `__gc` metamethods: Lua runs finalizers with hooks off, at a collection or when the runtime
    /// closes, where no limit could stop one that loops.
    package func apply(to runtime: ScriptRuntime, timed: Bool) throws {
        if memory != nil || instructions != nil {
            try runtime.limit(memory: memory.map { max($0, 1) }, instructions: instructions.map { max($0, 1) })
        }
        if timed { try runtime.lua.refuseFinalizers() }
    }
}
