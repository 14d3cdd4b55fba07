import ArgumentParser
import CoordinatorTools

/// `--sandbox`, `--memory-limit` and `--instruction-limit`, one definition for coordrun's own command line
/// (the runtime it runs), for `coordrun test`, `explore` and `routes` (every runtime they make) and for
/// `coordrun serve`: docs/Security.md.
package struct LimitOptions: ParsableArguments {
    @Flag(help: "Run the scripts as untrusted: no files, processes, debug library or binary chunks; require only from the app's folder (docs/Security.md).")
    package var sandbox = false

    @Option(
        name: .customLong("memory-limit"),
        help: ArgumentHelp("The most bytes the scripts may hold (Lua's heap, data converted for it included).", valueName: "bytes")
    )
    package var memoryLimit: Int?

    @Option(
        name: .customLong("instruction-limit"),
        help: ArgumentHelp("The most Lua instructions one call may run (a line, a handler call, a test's steps, a step, a link).", valueName: "n")
    )
    package var instructionLimit: Int?

    package init() {}

    package mutating func validate() throws {
        for (option, value) in [("--memory-limit", memoryLimit), ("--instruction-limit", instructionLimit)] {
            if let value, value <= 0 { throw ValidationError("\(option) takes a positive number, not \(value)") }
        }
    }

    /// The limits as the tools take them.
    package var limits: RuntimeLimits { RuntimeLimits(sandbox: sandbox, memory: memoryLimit, instructions: instructionLimit) }

    /// For each limit the stricter of these and `other`'s (the sandbox if either has it): what a worker
    /// runs under when its own options and its exploration's both say.
    package func stricter(_ other: LimitOptions) -> LimitOptions {
        func least(_ a: Int?, _ b: Int?) -> Int? { [a, b].compactMap { $0 }.min() }
        var merged = LimitOptions()
        merged.sandbox = sandbox || other.sandbox
        merged.memoryLimit = least(memoryLimit, other.memoryLimit)
        merged.instructionLimit = least(instructionLimit, other.instructionLimit)
        return merged
    }

    /// The options again, for a worker process's command line.
    package var arguments: [String] {
        (sandbox ? ["--sandbox"] : []) + (memoryLimit.map { ["--memory-limit", String($0)] } ?? [])
            + (instructionLimit.map { ["--instruction-limit", String($0)] } ?? [])
    }
}

/// A number of seconds an option takes (`--timeout`, `--time-limit`): finite and not negative (0: no limit).
/// NaN or infinity would silently turn a limit off.
package func validateSeconds(_ value: Double, _ option: String) throws {
    guard value.isFinite, value >= 0 else {
        throw ValidationError("\(option) takes a number of seconds, 0 or more (0: no limit), not \(value)")
    }
}

/// `--timeout` of the commands that take an app's actions one at a time (`explore`, `diff`, `storyboard`,
/// `serve`): the most seconds one action may run before it counts as an error; 0 for no limit.
package struct ActionTimeout: ParsableArguments {
    @Option(help: ArgumentHelp("The most seconds one action may run before it counts as an error (0: no limit).", valueName: "seconds"))
    package var timeout: Double = 5

    package init() {}

    package func validate() throws { try validateSeconds(timeout, "--timeout") }

    /// The limit, or nil for none.
    package var limit: Double? { timeout > 0 ? timeout : nil }
}
