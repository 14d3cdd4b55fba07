import ArgumentParser
import CoordinatorTools

/// `coordrun test [PATH...]`: runs the flow tests (`*_test.lua`) under the given files or folders
/// (docs/Testing.md).
struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run flow tests: every *_test.lua under the given files or folders (default: the current folder).",
        usage: "coordrun test [<options>] [<paths> ...]",
        discussion: "Each test starts as from a fresh app. Prints each failing test with its place and message, then `N passed, N failed`. Exit status: 0 every test passed, 1 a test failed (or a test file did not load), 2 the run itself failed (a path that does not exist, a report that cannot be written).")

    @Argument(help: "Test files or folders to search (build folders and hidden folders are skipped).")
    var paths: [String] = []

    @Option(help: ArgumentHelp("Run only the tests whose name or file contains this text.", valueName: "pattern"))
    var filter: String?

    @Flag(help: "List the tests instead of running them.")
    var list = false

    @Flag(name: .customLong("fail-fast"), help: "Stop after the first failing test.")
    var failFast = false

    @Option(help: ArgumentHelp("Write the results as JUnit XML to this file.", valueName: "file"))
    var junit: String?

    @Option(help: ArgumentHelp("The most seconds one test may run (0: no limit).", valueName: "seconds"))
    var timeout: Double = 10

    @Flag(help: "List the screen types, outputs and coordinator classes the tests reached and never reached.")
    var coverage = false

    @Option(name: .customLong("coverage-json"), help: ArgumentHelp("Write the coverage as JSON to this file.", valueName: "file"))
    var coverageJSON: String?

    @OptionGroup var limitOptions: LimitOptions

    @Flag(name: .customLong("strict-lifecycle"), help: "Check the lifecycle (no finished coordinator or screen that left still alive) after every step, not only after each test.")
    var strictLifecycle = false

    mutating func validate() throws {
        try validateSeconds(timeout, "--timeout")
    }

    func run() throws {
        let streams = CoordRun.Streams()
        for path in paths where !Platform.exists(path) {
            streams.message("no such file or folder: \(path)")
            throw ExitCode(2)
        }
        let files = Platform.testFiles(in: paths.isEmpty ? ["."] : paths)
        var results: [FlowTestResult] = []
        var loadFailures: [(file: String, message: String)] = []
        let include = { (test: FlowTest) in
            guard let filter else { return true }
            return test.name.contains(filter) || test.file.contains(filter)
        }
        for file in files {
            do {
                if list {
                    for test in try FlowTests.list(file) where include(test) {
                        Platform.writeOut("\(test.file):\(test.line): \(test.name)\(test.isSkipped ? " (skipped)" : "")\n")
                    }
                    continue
                }
                try FlowTests.run(file, include: include, failFast: failFast, strictLifecycle: strictLifecycle,
                                  timeLimit: timeout > 0 ? timeout : nil, limits: limitOptions.limits) { result in
                    results.append(result)
                    if case let .failed(message, location) = result.outcome {
                        Platform.writeError(streams.err.error("\(location ?? file): \(result.test.name): \(message)") + "\n")
                    }
                }
            } catch {
                let message = REPL.message(for: error)
                loadFailures.append((file, message))
                Platform.writeError(streams.err.error("\(file): cannot run its tests: \(message)") + "\n")
            }
            if failFast, !loadFailures.isEmpty || results.contains(where: { if case .failed = $0.outcome { true } else { false } }) { break }
        }
        if list { return }
        // Coverage per app, over every test of it.
        var coverages: [FlowCoverage] = []
        for result in results {
            guard let covered = result.coverage else { continue }
            if let i = coverages.firstIndex(where: { $0.app == covered.app }) { coverages[i].merge(covered) } else { coverages.append(covered) }
        }
        if coverage { for c in coverages { Platform.writeOut(c.text + "\n") } }
        if let coverageJSON, !Platform.writeFile(coverageJSON, "[\n" + coverages.map { "  " + $0.json }.joined(separator: ",\n") + "\n]\n") {
            streams.message("--coverage-json: cannot write \(coverageJSON)")
            throw ExitCode(2)
        }
        if let junit, !Platform.writeFile(junit, JUnitReport.xml(results, loadFailures: loadFailures)) {
            streams.message("--junit: cannot write \(junit)")
            throw ExitCode(2)
        }
        let failed = results.filter { if case .failed = $0.outcome { true } else { false } }.count + loadFailures.count
        let skipped = results.filter { $0.outcome == .skipped }.count
        let passed = results.count - skipped - (failed - loadFailures.count)
        Platform.writeOut("\(passed) passed, \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped" : "") + "\n")
        if failed > 0 { throw ExitCode.failure }
    }
}
