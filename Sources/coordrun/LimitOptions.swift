import ArgumentParser
import CoordinatorTools

/// `--sandbox`, `--memory-limit` and `--instruction-limit` for `coordrun test`, `explore` and `routes`: the
/// limits of coordrun's own command line, on every runtime the subcommand makes (docs/Security.md).
struct LimitOptions: ParsableArguments {
    @Flag(help: "Run the app's code in the sandbox: no files, no processes, modules only from the scripts' folders.")
    var sandbox = false

    @Option(name: .customLong("memory-limit"), help: ArgumentHelp("The most bytes Lua's heap may hold.", valueName: "bytes"))
    var memoryLimit: Int?

    @Option(name: .customLong("instruction-limit"), help: ArgumentHelp("The most Lua instructions one call (a step, a test's steps, a link) may run.", valueName: "n"))
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
