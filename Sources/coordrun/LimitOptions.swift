import ArgumentParser
import CoordinatorTools

/// `--sandbox`, `--memory-limit` and `--instruction-limit`, one definition for coordrun's own command line
/// (the runtime it runs) and for `coordrun test`, `explore` and `routes` (every runtime they make):
/// docs/Security.md.
struct LimitOptions: ParsableArguments {
    @Flag(help: "Run the scripts as untrusted: no files, processes, debug library or binary chunks; require only from the app's folder (docs/Security.md).")
    var sandbox = false

    @Option(name: .customLong("memory-limit"), help: ArgumentHelp("The most bytes the scripts may hold (Lua's heap, data converted for it included).", valueName: "bytes"))
    var memoryLimit: Int?

    @Option(name: .customLong("instruction-limit"), help: ArgumentHelp("The most Lua instructions one call may run (a line, a handler call, a test's steps, a step, a link).", valueName: "n"))
    var instructionLimit: Int?

    mutating func validate() throws {
        for (option, value) in [("--memory-limit", memoryLimit), ("--instruction-limit", instructionLimit)] {
            if let value, value <= 0 { throw ValidationError("\(option) takes a positive number, not \(value)") }
        }
    }

    /// The limits as the tools take them.
    var limits: RuntimeLimits { RuntimeLimits(sandbox: sandbox, memory: memoryLimit, instructions: instructionLimit) }

    /// The options again, for a worker process's command line.
    var arguments: [String] {
        (sandbox ? ["--sandbox"] : []) + (memoryLimit.map { ["--memory-limit", String($0)] } ?? [])
            + (instructionLimit.map { ["--instruction-limit", String($0)] } ?? [])
    }
}
