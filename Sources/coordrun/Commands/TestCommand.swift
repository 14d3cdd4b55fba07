import ArgumentParser
import CoordinatorOptions
import CoordinatorTools
import Dispatch
import Synchronization

/// `coordrun test [PATH...]`: runs the flow tests (`*_test.lua`) under the given files or folders
/// (docs/Testing.md).
struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run flow tests: every *_test.lua under the given files or folders (default: the current folder).",
        usage: "coordrun test [<options>] [<paths> ...]",
        discussion: """
            Each test starts as from a fresh app. Prints each failing test with its place and message, then `N \
            passed, N failed`. Exit status: 0 every test passed, 1 a test failed or stopped on an error (or a test \
            file did not load), 2 the run itself failed (a path that does not exist, a report that cannot be \
            written), 5 no test ran (no test file, or --filter matched none).
            """)

    @Argument(help: "Test files or folders to search (build folders and hidden folders are skipped).", completion: .file())
    var paths: [String] = []

    @Option(help: ArgumentHelp("Run only the tests whose name or file contains this text.", valueName: "pattern"))
    var filter: String?

    @Flag(help: "List the tests instead of running them.")
    var list = false

    @Flag(name: .customLong("fail-fast"), help: "Stop after the first failing test.")
    var failFast = false

    @Option(help: ArgumentHelp("Run this many test files at once, each test in its own runtime (the report is the same as with 1).", valueName: "n"))
    var jobs: Int = 1

    @Flag(help: "Run the tests again whenever a Lua file under the paths, or of the apps they test, is saved (Ctrl-C stops).")
    var watch = false

    @Option(help: ArgumentHelp("""
        Run only shard K of N of the suite (K from 1 to N): every test in exactly one shard, the same split on every \
        machine. Also read from COORDRUN_SHARD=K/N, or from JOB_COMPLETION_INDEX (0-based, a Kubernetes Indexed \
        Job's) with COORDRUN_SHARDS=N.
        """, valueName: "K/N"))
    var shard: String?

    @Option(
        help: ArgumentHelp("Balance --shard by the tests' durations in this earlier --json report (without it, tests are dealt in turn).", valueName: "file"),
        completion: .file(extensions: ["json"])
    )
    var timings: String?

    @Option(help: ArgumentHelp("Write the results as JUnit XML to this file (the format Jenkins and Surefire read).", valueName: "file"), completion: .file())
    var junit: String?

    @Option(
        help: ArgumentHelp("Write the results as JSON to this file: each test's outcome, message, place, time and output.", valueName: "file"),
        completion: .file()
    )
    var json: String?

    @Option(help: ArgumentHelp("The most seconds one test may run (0: no limit).", valueName: "seconds"))
    var timeout: Double = 10

    @Flag(help: "List the screen types, outputs and coordinator classes the tests reached and never reached.")
    var coverage = false

    @Option(name: .customLong("coverage-json"), help: ArgumentHelp("Write the coverage as JSON to this file.", valueName: "file"), completion: .file())
    var coverageJSON: String?

    @OptionGroup var limitOptions: LimitOptions

    @Flag(name: .customLong("strict-lifecycle"), help: """
        Check the lifecycle (no finished coordinator or screen that left still alive) after every step, not only \
        after each test.
        """)
    var strictLifecycle = false

    mutating func validate() throws {
        try validateSeconds(timeout, "--timeout")
        if jobs < 1 { throw ValidationError("--jobs must be at least 1 (it was \(jobs))") }
        if let shard, TestShards.parse(shard) == nil { throw ValidationError("--shard takes K/N with 1 ≤ K ≤ N (it was \(shard))") }
        if timings != nil, shardSetting == nil { throw ValidationError("--timings balances --shard: give a shard too") }
    }

    /// The shard to run: `--shard`, else `COORDRUN_SHARD`, else a Kubernetes Indexed Job's
    /// `JOB_COMPLETION_INDEX` (from 0) with `COORDRUN_SHARDS`; nil: the whole suite.
    var shardSetting: (index: Int, count: Int)? {
        if let shard { return TestShards.parse(shard) }
        if let shard = Processes.environment("COORDRUN_SHARD") { return TestShards.parse(shard) }
        if let index = Processes.environment("JOB_COMPLETION_INDEX").flatMap({ Int($0) }),
           let count = Processes.environment("COORDRUN_SHARDS").flatMap({ Int($0) }) {
            return TestShards.parse("\(index + 1)/\(count)")
        }
        return nil
    }

    /// The files and tests of this machine's shard: every test listed, split (``TestShards``), this shard's
    /// kept. A file that cannot be listed goes whole to the shard its place gives, which reports it.
    func shardedFiles(_ files: [String], _ shard: (index: Int, count: Int), _ streams: CoordRun.Streams) throws -> (files: [String], tests: Set<String>) {
        var tests: [FlowTest] = []
        var unlisted: [String] = []
        for file in files {
            do { tests += try FlowTests.list(file) } catch { unlisted.append(file) }
        }
        var seconds: [String: Double] = [:]
        if let timings {
            guard let json = Files.readFile(timings, limit: 64 << 20) else {
                streams.notice("--timings: cannot read \(timings)")
                throw ExitCode(2)
            }
            do { seconds = try TestShards.durations(fromJSON: json) } catch {
                streams.notice("--timings: \(timings) is not a coordrun test --json report: \(error)")
                throw ExitCode(2)
            }
        }
        let mine = TestShards.assign(tests, into: shard.count, seconds: seconds)[shard.index - 1]
        let keys = Set(mine.map { $0.file + "\u{0}" + String($0.index) })
        let chosen = Set(mine.map(\.file)).union(unlisted.enumerated().filter { $0.offset % shard.count == shard.index - 1 }.map(\.element))
        return (files.filter { chosen.contains($0) }, keys)
    }

    func run() throws {
        let streams = CoordRun.Streams()
        for path in paths where !Files.exists(path) {
            streams.notice("no such file or folder: \(path)")
            throw ExitCode(2)
        }
        let roots = paths.isEmpty ? ["."] : paths
        guard watch else {
            let status = runSuite(streams)
            if status != 0 { throw ExitCode(status) }
            return
        }
        var apps: Set<String> = []
        while true {
            // Watched from before the run: a save while the tests run starts them again.
            let watcher = FileWatcher(paths: Self.luaFiles(under: roots + apps.map(LuaState.directory(of:))))
            _ = runSuite(streams) { apps.insert($0) }
            watcher.paths = Self.luaFiles(under: roots + apps.map(LuaState.directory(of:)))
            Terminal.writeOut(streams.out.dim("watching \(watcher.paths.count) Lua files; saving one runs the tests again (Ctrl-C stops)") + "\n")
            Terminal.flushOut()
            while !watcher.changed() { Processes.pause(milliseconds: 100) }
            Terminal.writeOut("\n")
        }
    }

    /// Every `.lua` file under `paths` (files or folders; hidden and build folders skipped): what `--watch`
    /// watches.
    static func luaFiles(under paths: [String]) -> [String] {
        Array(Set(Files.files(in: paths) { $0.hasSuffix(".lua") })).sorted()
    }

    /// What running one test file gave.
    struct FileRun: Sendable {
        var results: [FlowTestResult] = []
        /// Why the file's tests could not run (a syntax error, its app failing to start), or nil.
        var loadFailure: String?
        var failed: Bool { loadFailure != nil || results.contains { $0.outcome.failure != nil } }
    }

    /// How each file's tests run: the options that apply to every file.
    struct Settings: Sendable {
        let filter: String?
        let failFast: Bool
        let strictLifecycle: Bool
        let timeLimit: Double?
        let limits: RuntimeLimits
        /// This machine's shard's tests (file and place in it), or nil for every test.
        var shard: Set<String>? = nil

        func includes(_ test: FlowTest) -> Bool {
            if let shard, !shard.contains(test.file + "\u{0}" + String(test.index)) { return false }
            guard let filter else { return true }
            return test.name.contains(filter) || test.file.contains(filter)
        }
    }

    /// Runs the suite once: prints each file's failures (and what its tests printed) in the files' order,
    /// writes the reports, prints the summary; the exit status. `apps` hears each app a test drove.
    func runSuite(_ streams: CoordRun.Streams, apps: (String) -> Void = { _ in }) -> Int32 {
        var files = Files.testFiles(in: paths.isEmpty ? ["."] : paths)
        var shardTests: Set<String>?
        if let shard = shardSetting {
            guard let split = try? shardedFiles(files, shard, streams) else { return 2 }
            (files, shardTests) = (split.files, split.tests)
        }
        let settings = Settings(filter: filter, failFast: failFast, strictLifecycle: strictLifecycle,
                                timeLimit: timeout > 0 ? timeout : nil, limits: limitOptions.limits, shard: shardTests)
        if list {
            var listed = 0
            for file in files {
                do {
                    for test in try FlowTests.list(file) where settings.includes(test) {
                        listed += 1
                        Terminal.writeOut(TextStyle.inert("\(test.file):\(test.line): \(test.name)\(test.isSkipped ? " (skipped)" : "")") + "\n")
                    }
                } catch {
                    Terminal.writeError(streams.err.error(TextStyle.inert("\(file): cannot list its tests: \(REPL.message(for: error))")) + "\n")
                }
            }
            return listed == 0 ? 5 : 0
        }
        let line = ProgressLine(files: files.count, style: streams.err, shown: Terminal.isTerminal(2))
        let runs = jobs > 1 ? Self.runConcurrently(files, jobs: jobs, settings, streams, line) : Self.runInOrder(files, settings, streams, line)
        line.end()
        let results = runs.flatMap(\.results)
        let loadFailures = zip(files, runs).compactMap { file, run in run.loadFailure.map { (file: file, message: $0) } }
        for result in results { if let app = result.coverage?.app { apps(app) } }

        // Coverage per app, over every test of it.
        var coverages: [FlowCoverage] = []
        for result in results {
            guard let covered = result.coverage else { continue }
            if let i = coverages.firstIndex(where: { $0.app == covered.app }) { coverages[i].merge(covered) } else { coverages.append(covered) }
        }
        if coverage { for c in coverages { Terminal.writeOut(TextStyle.inert(c.text) + "\n") } }
        if let coverageJSON, let failure = Files.writing("[\n" + coverages.map { "  " + $0.json }.joined(separator: ",\n") + "\n]\n", to: coverageJSON) {
            streams.notice("--coverage-json: \(failure)")
            return 2
        }
        if let junit, let failure = Files.writing(JUnitReport.xml(results, loadFailures: loadFailures), to: junit) {
            streams.notice("--junit: \(failure)")
            return 2
        }
        if let json, let failure = Files.writing(FlowTestReport.json(results, loadFailures: loadFailures), to: json) {
            streams.notice("--json: \(failure)")
            return 2
        }
        let summary = FlowTestReport.Summary(results, loadFailures: loadFailures.count)
        Terminal.writeOut(summary.text + "\n")
        if results.isEmpty && loadFailures.isEmpty && shardTests?.isEmpty == true {
            streams.notice("shard \(shardSetting.map { "\($0.index)/\($0.count)" } ?? "") has no test: there are fewer tests than shards")
            return 0
        }
        if results.isEmpty && loadFailures.isEmpty {
            streams.notice("no test ran: " + (files.isEmpty ? "no *_test.lua file under \(paths.isEmpty ? "." : paths.joined(separator: ", "))"
                                                             : "--filter \(filter ?? "") matched no test of \(files.count) file\(files.count == 1 ? "" : "s")"))
            return 5
        }
        return summary.failed > 0 ? 1 : 0
    }

    /// Each file's failures on standard error (the place, the test, the message) and what its tests printed
    /// on standard output, test by test.
    static func print(_ run: FileRun, of file: String, _ streams: CoordRun.Streams) {
        for result in run.results { print(result, streams) }
        if let message = run.loadFailure {
            Terminal.writeError(streams.err.error(TextStyle.inert("\(file): cannot run its tests: \(message)")) + "\n")
        }
    }

    static func print(_ result: FlowTestResult, _ streams: CoordRun.Streams) {
        if !result.output.isEmpty { Terminal.writeOut(result.output) }
        if let (message, location) = result.outcome.failure {
            Terminal.writeError(streams.err.error(TextStyle.inert("\(location ?? result.test.file): \(result.test.name): \(message)")) + "\n")
        }
    }

    /// The files one after another on this thread, each result printed as it comes.
    static func runInOrder(_ files: [String], _ settings: Settings, _ streams: CoordRun.Streams, _ line: ProgressLine) -> [FileRun] {
        var runs: [FileRun] = []
        for file in files {
            line.started(file)
            let run = runFile(file, settings) { result in line.printing(heard: result) { print(result, streams) } }
            // its results were printed as they came
            line.printing(file: run.loadFailure != nil) { print(FileRun(loadFailure: run.loadFailure), of: file, streams) }
            runs.append(run)
            if settings.failFast, run.failed { break }
        }
        return runs
    }

    /// The files on `jobs` threads, each file's runtimes its own; each file is printed once it and every
    /// file before it are done, so the output is the same as one job's.
    static func runConcurrently(_ files: [String], jobs: Int, _ settings: Settings, _ streams: CoordRun.Streams, _ line: ProgressLine) -> [FileRun] {
        let progress = Progress(count: files.count)
        DispatchQueue.concurrentPerform(iterations: min(jobs, files.count)) { _ in
            while let index = progress.take() {
                line.started(files[index])
                let run = runFile(files[index], settings) { result in line.printing(heard: result) {} }
                progress.finish(index, run, stopping: settings.failFast && run.failed) { index, run in
                    line.printing(file: run.loadFailure != nil) { print(run, of: files[index], streams) }
                }
            }
        }
        return progress.runs
    }

    /// `coordrun test`'s progress on a terminal: one line on standard error, written over as each test ends
    /// (`12 passed, 1 failed · 3 of 8 files · shop_test.lua`), taken away before anything else is printed
    /// and at the end, so that the output is what it is without it. Not shown when standard error is no
    /// terminal.
    final class ProgressLine: Sendable {
        private struct State {
            var passed = 0, failed = 0, skipped = 0, filesDone = 0
            var current = ""
            var drawn = false
        }
        private let state = Mutex(State())
        private let files: Int, style: TextStyle, shown: Bool

        init(files: Int, style: TextStyle, shown: Bool) { (self.files, self.style, self.shown) = (files, style, shown) }

        /// A file's tests begin.
        func started(_ file: String) {
            guard shown else { return }
            state.withLock { state in
                state.current = file
                draw(&state)
            }
        }

        /// A test ended (`result`, when one did) or a file's tests did (`file`: it did not load, or its
        /// last test ended): `body` prints what it has to say with the line taken away, then the line is
        /// drawn again with the counts.
        func printing(heard result: FlowTestResult? = nil, file failed: Bool? = nil, _ body: () -> Void) {
            guard shown else { return body() }
            state.withLock { state in
                if state.drawn { Terminal.writeError("\r\u{1B}[K") }
                state.drawn = false
                body()
                Terminal.flushOut()
                switch result?.outcome {
                case .passed?: state.passed += 1
                case .skipped?: state.skipped += 1
                case .failed?, .error?: state.failed += 1
                case nil: break
                }
                if let failed {
                    state.filesDone += 1
                    if failed { state.failed += 1 }
                }
                draw(&state)
            }
        }

        /// The run ended: the line goes.
        func end() {
            guard shown else { return }
            state.withLock { state in
                if state.drawn { Terminal.writeError("\r\u{1B}[K") }
                state.drawn = false
            }
        }

        private func draw(_ state: inout State) {
            guard state.filesDone < files else { return }
            let counts = "\(state.passed) passed, \(state.failed) failed" + (state.skipped > 0 ? ", \(state.skipped) skipped" : "")
            let place = "\(state.filesDone) of \(files) file\(files == 1 ? "" : "s")"
            // One row, never wrapped (a wrapped line could not be written over): cut to the terminal's width.
            let text = counts + " · " + place + " · " + (state.current.split(separator: "/").last.map(String.init) ?? state.current)
            Terminal.writeError("\r\u{1B}[K" + style.dim(TextStyle.inert(String(text.prefix(max(Terminal.columns(2) - 1, 10))))))
            state.drawn = true
        }
    }

    /// The files handed out to the jobs and what they gave, printed in order.
    final class Progress: Sendable {
        private struct State {
            var runs: [FileRun?]
            var next = 0
            var printed = 0
            var stopped = false
        }
        private let state: Mutex<State>

        init(count: Int) { state = Mutex(State(runs: Array(repeating: nil, count: count))) }

        /// The next file's index, or nil when every file was handed out (or a failure stopped the run).
        func take() -> Int? {
            state.withLock { state in
                guard !state.stopped, state.next < state.runs.count else { return nil }
                state.next += 1
                return state.next - 1
            }
        }

        /// Keeps what file `index` gave and prints every file done in order so far (under the lock: one
        /// file's text is never mixed with another's).
        func finish(_ index: Int, _ run: FileRun, stopping: Bool, print: (Int, FileRun) -> Void) {
            state.withLock { state in
                state.runs[index] = run
                if stopping { state.stopped = true }
                while state.printed < state.runs.count, let done = state.runs[state.printed] {
                    print(state.printed, done)
                    state.printed += 1
                }
            }
        }

        /// What the files that ran gave, in order (up to the first not run, when a failure stopped the run).
        var runs: [FileRun] { state.withLock { Array($0.runs.prefix { $0 != nil }.compactMap { $0 }) } }
    }

    /// Runs one test file's tests (on any thread: everything it makes is its own).
    static func runFile(_ file: String, _ settings: Settings, report: (FlowTestResult) -> Void) -> FileRun {
        var run = FileRun()
        do {
            run.results = try FlowTests.run(file, include: settings.includes, failFast: settings.failFast,
                                            strictLifecycle: settings.strictLifecycle, timeLimit: settings.timeLimit,
                                            limits: settings.limits, report: report)
        } catch {
            run.loadFailure = REPL.message(for: error)
        }
        return run
    }
}
