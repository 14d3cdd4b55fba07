import ArgumentParser
import CoordinatorOptions
import CoordinatorTools

/// `coordrun explore SCRIPT`: every state the app can reach, breadth first, the faults found with their
/// shortest paths written as a flow test (each checked in a fresh runtime before it is reported), and the
/// flow as a graph (docs/Explore.md).
struct ExploreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explore",
        abstract: "Explore every state the app can reach, and draw its flow.",
        usage: "coordrun explore [<options>] <script>\n  coordrun explore --worker <postgres://...> [--run <id>] [<script>]",
        discussion: """
            Tries every action of every state, breadth first: each output (each item of a list, each example \
            payload a screen type declares), Back, the swipe-down of a modal the user may swipe away, every \
            other tab, a swipe to each page beside the one shown, a rotation where a split shows. States are told \
            apart by everything a later step can observe, Lua data included (or by the view the app declares). \
            Prints the states and transitions found and how far the search went, the screen types never \
            reached, outputs never handled, dead ends, errors and lifecycle violations, each with the shortest \
            path to it, and writes those paths as a test file; each finding's test is run in a fresh runtime \
            before the finding is reported. With --workers N, worker processes share the search; with --queue, \
            workers on any machine share it through a PostgreSQL database (coordrun explore --worker URL); \
            the report is the one process's either way. Exit status: 0 nothing found, 1 an error or a \
            lifecycle violation found, 2 the exploration itself failed (the script does not load, a state \
            ends every worker that expands it, the queue cannot be reached, a finding did not reproduce, \
            --verify found a mismatch).
            """)

    @Argument(help: """
        The app's main script (for --worker: where the exploration's script is here, when not where the exploration \
        named it).
        """, completion: .file(extensions: ["lua"]))
    var script: String?

    @Option(help: "The most steps from the start.")
    var depth = 12

    @Option(name: .customLong("max-states"), help: "The most states to find.")
    var maxStates = 10_000

    @Option(name: .customLong("max-pending"), help: ArgumentHelp("""
        The most requests of one kind waiting for their answers at once: a step that would start more is not followed \
        (the report says so).
        """, valueName: "n"))
    var maxPending = 2

    @Option(name: .customLong("time-limit"), help: ArgumentHelp("The most seconds the whole search may take (0: no limit).", valueName: "seconds"))
    var timeLimit: Double = 0

    /// `--state`, `--open`, `--restore`: where the exploration starts (its base), as where coordrun starts an app.
    @OptionGroup var start: StartOptions

    /// `--set`, `-e`: the variant explored.
    @OptionGroup var variant: VariantOptions

    @Option(help: ArgumentHelp("Write the report as JSON to this file.", valueName: "file"), completion: .file())
    var json: String?

    @Option(help: ArgumentHelp("Write the findings as SARIF 2.1.0 to this file (for code-scanning views).", valueName: "file"), completion: .file())
    var sarif: String?

    @Option(
        help: ArgumentHelp("Write the flow graph: .mmd (Mermaid), .dot (Graphviz), .json, or .svg/.png (rendered by Graphviz's dot).", valueName: "file"),
        completion: .file()
    )
    var graph: String?

    @Option(
        help: ArgumentHelp("Colour the graph by what flow tests reached (a file from coordrun test --coverage-json).", valueName: "file"),
        completion: .file(extensions: ["json"])
    )
    var coverage: String?

    @Option(
        help: ArgumentHelp("Where to write the findings as a flow test (default: .coordrun/explore/NAME_test.lua).", valueName: "file"),
        completion: .file()
    )
    var tests: String?

    /// `--timeout`: the most seconds one action may run.
    @OptionGroup var actionTimeout: ActionTimeout

    @OptionGroup var limitOptions: LimitOptions

    @Flag(help: "Re-run a sample of the transitions, each in a fresh runtime, and check that each reaches the state the search recorded.")
    var verify = false

    @Flag(help: """
        Take every action after replaying its path from the start, instead of in a branch the runtime comes back \
        from: the reference, slower, reaching the same states with the same findings.
        """)
    var replay = false

    @Option(name: .customLong("verify-sample"), help: ArgumentHelp("""
        With --queue: the share of the workers' answers this process expands again, from 0 to 1 (every answer with a \
        finding is, too); a mismatch ends the exploration naming the worker. With --verify, a number above 1 is how \
        many transitions it re-runs (default 200).
        """, valueName: "share"))
    var verifySample = 0.05

    @Option(help: """
        Worker processes on this machine that share each level of the search (default: 1, this process alone; with \
        --queue, the workers started here, 0 for none).
        """)
    var workers = 1

    @Option(help: ArgumentHelp("""
        Coordinate the search through this PostgreSQL database: workers on any machine join with --worker \
        (docs/Explore.md).
        """, valueName: "postgres://..."))
    var queue: String?

    @Option(help: ArgumentHelp("""
        Work for an exploration coordinated through this PostgreSQL database: expand the batches it hands out until \
        it ends.
        """, valueName: "postgres://..."))
    var worker: String?

    @Option(name: .customLong("run"), help: ArgumentHelp("With --worker: the exploration to work for (default: the newest).", valueName: "id"))
    var runID: Int?

    @Option(help: ArgumentHelp("With --queue: how long a worker holds a batch before another may claim it (renewed while it works).", valueName: "seconds"))
    var lease: Double = 30

    @Option(help: .hidden)
    var expand: String?

    /// The storage the exploration began with, as JSON: what a worker starts its runtimes with (a worker on
    /// another machine may not have the coordinator's `--storage` file).
    @Option(name: .customLong("storage-values"), help: .hidden)
    var storageValues: String?

    @Option(name: .customLong("max-windows"), help: ArgumentHelp("""
        The most windows open at once (an iPad's scenes): the user opens another while fewer are open, chooses and \
        closes them.
        """, valueName: "n"))
    var maxWindows = 1

    mutating func validate() throws {
        guard verifySample.isFinite, verifySample >= 0 else {
            throw ValidationError("--verify-sample takes a share from 0 to 1 (or, with --verify, a count), not \(verifySample)")
        }
        try validateSeconds(timeLimit, "--time-limit")
        try validateSeconds(lease, "--lease")
        if worker == nil, script == nil { throw ValidationError("Missing expected argument '<script>'") }
        if worker != nil, queue != nil { throw ValidationError("--worker and --queue: a worker works for a queue's exploration, give one of them") }
        if runID != nil, worker == nil { throw ValidationError("--run names the exploration a --worker works for") }
        if workers < (queue == nil ? 1 : 0) { throw ValidationError("--workers must be at least \(queue == nil ? 1 : 0)") }
        if lease <= 0 { throw ValidationError("--lease must be more than 0 seconds") }
        if maxWindows < 1 { throw ValidationError("--max-windows must be at least 1") }
        if start.open.count > 1 { throw ValidationError("--open given \(start.open.count) times: an exploration starts from one link") }
        if !start.open.isEmpty, start.restore != nil { throw ValidationError("--open and --restore: an exploration starts from one of them") }
        if start.idioms.count > 1, start.restore != nil { throw ValidationError("--idiom both and --restore: a snapshot runs on the device it was taken on") }
    }

    var state: String { start.gateway.state }
    var open: String? { start.open.first }
    var restore: String? { start.restore }
    var sets: [String] { variant.sets }
    var chunks: [String] { variant.chunks }

    func run() throws {
        let streams = CoordRun.Streams()
        if let worker {
            work(for: worker, streams)
            return
        }
        let script = self.script ?? ""
        var snapshot: String?
        if let restore {
            do { snapshot = try ScriptRuntime.snapshotText(at: restore) } catch { fail(streams, "\(error)") }
        }
        if expand != nil {
            let explorer = makeExplorer(snapshot: snapshot, idiom: start.appStart.idiom, streams)
            do { try ExploreWorkers.serve(explorer: explorer) } catch { fail(streams, "worker: \(error)") }
            return
        }
        let progress = ProgressLine()
        let began = Processes.nanoseconds()
        // One search for each device (`--idiom both`: two, in one report), each with its own explorer.
        var parts: [(report: ExploreReport, explorer: Explorer)] = []
        for idiom in start.idioms {
            let explorer = makeExplorer(snapshot: snapshot, idiom: idiom, streams)
            progress.follow(explorer, label: start.idioms.count > 1 ? idiom.rawValue + ": " : "")
            do {
                let levels = ExploreLevels(explorer: explorer)
                if let queue {
                    let workforce = try ExploreQueue(url: queue, digest: explorer.runtime.scriptsDigest, arguments: workerArguments(idiom: idiom),
                                                     snapshot: snapshot, lease: lease, localWorkers: workers,
                                                     check: AnswerCheck(explorer: explorer, sample: verifySample))
                    Terminal.writeError("""
                        explore: exploration \(workforce.run) on the queue (more workers: \(Processes.commandName()) \
                        explore --worker QUEUE --run \(workforce.run))\n
                        """)
                    parts.append((try levels.run(workforce: workforce, workers: max(workers, 1)), explorer))
                } else if workers > 1 {
                    let arguments = workerArguments(idiom: idiom) + (restore.map { ["--restore", $0] } ?? [])
                    parts.append((try levels.run(workforce: ExploreWorkers(count: workers, arguments: arguments), workers: workers), explorer))
                } else {
                    parts.append((try explorer.run(), explorer))
                }
            } catch {
                progress.clear()
                fail(streams, Self.message(for: error))
            }
        }
        progress.clear()
        let seconds = Double(Processes.nanoseconds() - began) / 1e9
        guard let explorer = parts.first?.explorer else { fail(streams, "explore: no device to explore on") }
        let options = explorer.options
        var report = parts.count == 1 ? parts[0].report
            : ExploreReport.combining(parts.map(\.report), catalog: explorer.runtime.app.catalog.names)

        // Each finding's test must fail the same way in a fresh runtime before the finding is the app's.
        var testPath: String?
        if report.hasFindings {
            let path = tests ?? ".coordrun/explore/\(String((script.split(separator: "/").last ?? "app").prefix { $0 != "." }))_test.lua"
            write(report, testsTo: path, base: options.base, streams)
            do {
                let reproductions = try report.reproduce(testFile: path, timeLimit: options.stepTimeLimit, limits: limitOptions.limits)
                if reproductions.contains(where: { !$0.reproduced }) {
                    report.withdraw(reproductions)
                    if report.hasFindings { write(report, testsTo: path, base: options.base, streams) } else { Files.remove(path) }
                }
            } catch {
                fail(streams, "the findings' test file \(path) does not load: \(REPL.message(for: error))")
            }
            if report.hasFindings { testPath = path }
        }
        var verification: ExploreVerification?
        if verify {
            // Each device's search re-run by its own explorer.
            let count = verifySample > 1 ? Int(verifySample.rounded()) : 200
            do {
                verification = try parts.map { try $0.explorer.verify($0.report, sample: count) }.reduce(nil) { sum, next in sum.map { $0 + next } ?? next }
            } catch { fail(streams, "--verify: \(REPL.message(for: error))") }
        }

        Terminal.writeOut(TextStyle.inert(report.text) + "\n")
        if report.freshRuntimes > 0 {
            Terminal.writeOut("""
                fresh runtimes: \(report.freshRuntimes) (the app keeps data a restart does not reset, such as a \
                file-level local: those branches replayed in a fresh runtime)\n
                """)
        }
        if let verification {
            if verification.mismatches.isEmpty {
                Terminal.writeOut("verified: \(verification.checked) transitions re-run in fresh runtimes reached the states recorded\n")
            } else {
                Terminal.writeOut("""
                    verify: \(verification.mismatches.count) of \(verification.checked) transitions re-run in fresh \
                    runtimes did not reach the state recorded\n
                    """)
                for mismatch in verification.mismatches.prefix(10) {
                    Terminal.writeOut("  " + TextStyle.inert(mismatch.path.map(\.luaSource).joined(separator: " ") + ": " + mismatch.message) + "\n")
                }
            }
        }
        let rate = Int(Double(report.steps) / max(seconds, 1e-9))
        Terminal.writeOut("\(rate) transitions/s (\(Int(seconds * 1000)) ms)\n")
        if let testPath { Terminal.writeOut("reproductions: \(testPath) (\(Processes.commandName()) test \(testPath))\n") }
        if let json, let failure = Files.writing(document(report, seconds: seconds, verification: verification).prettyJSON + "\n", to: json) {
            fail(streams, "--json: \(failure)")
        }
        if let sarif, let failure = Files.writing(ExploreSARIF.document(report, script: script, folder: Files.currentFolder()).prettyJSON + "\n", to: sarif) {
            fail(streams, "--sarif: \(failure)")
        }
        if let graph { writeGraph(report, to: graph, streams) }
        if !report.unreproduced.isEmpty || verification.map({ !$0.mismatches.isEmpty }) == true { throw ExitCode(2) }
        if report.failed { throw ExitCode.failure }
    }

    /// What makes a worker's runtime the same as this process's: the script, then the options (`--restore`
    /// aside: a worker of a queue gets the snapshot itself).
    private func workerArguments(idiom: Idiom) -> [String] {
        var arguments = [script ?? "", "--state", state, "--size-class", start.sizeClass, "--idiom", idiom.rawValue, "--timeout", String(actionTimeout.timeout),
                         "--max-pending", String(max(maxPending, 1)), "--max-windows", String(max(maxWindows, 1))]
        for set in sets { arguments += ["--set", set] }
        for chunk in chunks { arguments += ["-e", chunk] }
        arguments += limitOptions.arguments
        if replay { arguments.append("--replay") }
        if let open { arguments += ["--open", open] }
        if let values = try? baseStorage(), !values.isEmpty { arguments += ["--storage-values", FlowValue.record(values).json] }
        return arguments
    }

    /// The explorer these options make, from the app's start, the link, or `snapshot`.
    private func makeExplorer(snapshot: String?, idiom: Idiom, _ streams: CoordRun.Streams) -> Explorer {
        var options = Explorer.Options()
        options.depth = max(depth, 0)
        options.maxStates = max(maxStates, 1)
        options.maxPending = max(maxPending, 1)
        options.maxWindows = max(maxWindows, 1)
        options.stepTimeLimit = actionTimeout.limit
        options.timeLimit = timeLimit > 0 ? timeLimit : nil
        options.replay = replay
        if let open { options.base = .link(open) } else if let snapshot { options.base = .snapshot(snapshot) }
        do {
            return try Explorer(
                options: options,
                runtime: maker(parsedSets(streams), storage: baseStorage(), idiom: idiom, stepTimeLimit: options.stepTimeLimit)
            )
        } catch {
            fail(streams, REPL.message(for: error))
        }
    }

    /// `--worker URL`: joins an exploration on the queue, explores as its coordinator does (its options,
    /// its snapshot; this script when given), and answers batches until it ends.
    private func work(for url: String, _ streams: CoordRun.Streams) {
        do {
            let database = try PostgresConnection(url)
            let run = try ExploreQueueWorker.join(database, id: runID.map(String.init))
            var command = try ExploreCommand.parse(run.arguments)
            if let script { command.script = script }
            // The worker's own --sandbox and limits hold on top of the run's: for each, the stricter.
            command.limitOptions = command.limitOptions.stricter(limitOptions)
            let worker = try ExploreQueueWorker(database: database, run: run,
                                                explorer: command.makeExplorer(snapshot: run.snapshot, idiom: command.start.appStart.idiom, streams))
            try worker.serve()
        } catch {
            fail(streams, "worker: " + Self.message(for: error))
        }
    }

    /// An error as the user reads it: a worker's or the database's in their own words.
    static func message(for error: Error) -> String {
        (error as? Explorer.WorkerFailure)?.message ?? (error as? PostgresConnection.Failure)?.message ?? REPL.message(for: error)
    }

    /// The `--set` options as globals, or a failure for one that is not `name=value` with a Lua name.
    private func parsedSets(_ streams: CoordRun.Streams) -> [(name: String, value: FlowValue)] {
        sets.map { set in
            guard let equals = set.firstIndex(of: "="), LuaSyntax.isName(String(set[..<equals])) else {
                fail(streams, "--set \(set): expected NAME=VALUE with a Lua name (--set VARIANT=b)")
            }
            let name = String(set[..<equals]), text = String(set[set.index(after: equals)...])
            let value: FlowValue = switch text {
            case "true": true
            case "false": false
            default: Int(text).map(FlowValue.int) ?? Double(text).map(FlowValue.double) ?? .string(text)
            }
            return (name, value)
        }
    }

    /// The Lua that makes the variant explored: the `--set` globals, then the `-e` chunks.
    private func preamble(_ globals: [(name: String, value: FlowValue)]) -> [String] {
        [Explorer.randomSeeding] + globals.map { "\($0.name) = \($0.value.luaLiteral)" } + chunks
    }

    /// The storage the exploration begins with: a worker's from its coordinator, else `--storage`'s file
    /// (only read: exploring writes nothing there), else empty.
    private func baseStorage() throws -> FlowRecord {
        if let storageValues {
            guard case .record(let values) = try FlowValue(json: storageValues) else {
                throw ValidationError("--storage-values: a storage is a JSON object of values by key")
            }
            return values
        }
        return try start.storage.map { try FileStorage(path: $0).load() } ?? [:]
    }

    /// How the explorer makes a runtime: prepared (``Explorer/prepare(_:)``), the variant set, the storage
    /// given, the app loaded.
    private func maker(_ globals: [(name: String, value: FlowValue)], storage: FlowRecord, idiom: Idiom, stepTimeLimit: Double?) -> Explorer.RuntimeMaker {
        Self.maker(script: script ?? "", state: state, width: start.width, idiom: idiom, globals: globals, chunks: chunks, storage: storage,
                   limits: limitOptions.limits, stepTimeLimit: stepTimeLimit)
    }

    /// How an explorer of `script` makes a runtime (``maker(_:storage:stepTimeLimit:)``; `coordrun diff`
    /// explores each version so too).
    static func maker(script: String, state: String, width: SizeClass, idiom: Idiom = .phone, globals: [(name: String, value: FlowValue)] = [],
                      chunks: [String] = [], storage: FlowRecord = [:], limits: RuntimeLimits, stepTimeLimit: Double?) -> Explorer.RuntimeMaker {
        {
            let runtime = try limits.runtime(stateNamed: state, timed: stepTimeLimit != nil, imageable: true)
            runtime.app.setStartingSizeClass(width)
            runtime.app.setIdiom(idiom)
            if !storage.isEmpty { try runtime.seedStorage(storage) }
            try Explorer.prepare(runtime)
            try runtime.lua.withTimeLimit(stepTimeLimit) {
                for (name, value) in globals { try runtime.lua.globals.set(name, value) }
                for chunk in chunks { _ = try runtime.lua.run(chunk, name: "=(command line)") }
                try runtime.load(script: script)
            }
            return runtime
        }
    }

    private func write(_ report: ExploreReport, testsTo path: String, base: Explorer.Options.Base, _ streams: CoordRun.Streams) {
        let folder = path.split(separator: "/").dropLast().joined(separator: "/")
        let script = self.script ?? ""
        let app = script.hasPrefix("/") ? script : Files.currentFolder() + "/" + script
        guard folder.isEmpty || Files.makeFolders((path.hasPrefix("/") ? "/" : "") + folder) else {
            fail(streams, "cannot write \(path): cannot make its folder")
        }
        if let failure = Files.writing(report.testFile(app: app, base: base, preamble: preamble(parsedSets(streams))), to: path) {
            fail(streams, failure)
        }
    }

    private func writeGraph(_ report: ExploreReport, to path: String, _ streams: CoordRun.Streams) {
        var tested: Set<String>?
        if let coverage {
            guard let text = Files.readFile(coverage), let value = try? FlowValue(json: text) else {
                fail(streams, "--coverage: cannot read \(coverage) (a file from coordrun test --coverage-json)")
            }
            tested = Set((value.listValue ?? [value]).flatMap { $0["screens"]?["reached"]?.listValue?.compactMap(\.stringValue) ?? [] })
        }
        let graph = FlowGraph(report, tested: tested)
        let format = path.split(separator: ".").last.map { String($0).lowercased() } ?? ""
        switch format {
        case "mmd", "mermaid", "dot", "gv", "json":
            let text = format == "json" ? graph.json : format == "dot" || format == "gv" ? graph.dot : graph.mermaid
            if let failure = Files.writing(text, to: path) { fail(streams, "--graph: \(failure)") }
        case "svg", "png":
            // A file that cannot be written fails the command; a picture Graphviz cannot draw does not: its
            // graph is written beside, as DOT, and the exploration's status stays.
            if let failure = Files.writing("", to: path) { fail(streams, "--graph: \(failure)") }
            if let why = Graphviz.draw({ graph.dot(clustered: $0) }, format: format, to: path) {
                Files.remove(path)
                let source = String(path.dropLast(format.count)) + "dot"
                if let failure = Files.writing(graph.dot, to: source) { fail(streams, "--graph: \(failure)") }
                streams.notice("--graph: \(path) could not be drawn (\(why)); the graph is in \(source)")
                return
            }
        default:
            fail(streams, "--graph: \(path) must end in .mmd, .dot, .json, .svg or .png")
        }
        Terminal.writeOut("graph: \(path) (\(graph.nodes.count) screens, \(graph.edges.count) edges)\n")
    }

    /// The report for machines (`--json`); `format` says which fields it has (docs/Explore.md).
    private func document(_ report: ExploreReport, seconds: Double, verification: ExploreVerification?) -> FlowValue {
        func findings(_ list: [ExploreReport.Finding]) -> FlowValue {
            .list(list.map { ["message": .string($0.message), "path": .list($0.path.map { .string($0.luaSource) }), "idiom": .string($0.idiom.rawValue)] })
        }
        var fields: FlowRecord = [
            "format": 1,
            "script": .string(report.script), "idioms": .list(report.idioms.map { .string($0.rawValue) }),
            "states": .int(report.states.count), "transitions": .int(report.transitions.count),
            "steps": .int(report.steps), "seconds": .double(seconds), "fixedPoint": .bool(report.reachedFixedPoint),
            "complete": .bool(report.complete), "reach": .string(report.reach), "viewed": .bool(report.viewed),
            "cut": .record(FlowRecord([("depth", .bool(report.cutByDepth)), ("states", .bool(report.cutByStates)), ("time", .bool(report.cutByTime)),
                                      ("pending", .int(report.cutByPending))])),
            "unexpanded": .int(report.unexpanded), "freshRuntimes": .int(report.freshRuntimes),
            "unreachedScreenTypes": .list(report.unreachedTypes.map(FlowValue.string)),
            "errors": findings(report.errors), "lifecycleViolations": findings(report.violations),
            "unhandledOutputs": findings(report.unhandled), "deadEnds": findings(report.deadEnds),
            "explorerFaults": findings(report.unreproduced), "pendingCuts": findings(report.pendingCuts),
            "invariantViolations": findings(report.invariantViolations), "traps": findings(report.traps),
            "properties": .list(report.properties.map { property in
                var entry: FlowRecord = ["name": .string(property.name), "kind": .string(property.kind.rawValue),
                                         "status": .string(property.status.rawValue), "message": .string(property.message)]
                if let path = property.path { entry["path"] = .list(path.map { .string($0.luaSource) }) }
                if let within = property.withinSteps { entry["withinSteps"] = .int(within) }
                return .record(entry)
            }),
            "fingerprint": .string(report.fingerprint),
        ]
        if let verification {
            fields["verify"] = ["checked": .int(verification.checked),
                                "mismatches": .list(verification.mismatches.map {
                                    ["message": .string($0.message), "path": .list($0.path.map { .string($0.luaSource) })]
                                })]
        }
        return .record(fields)
    }

    private func fail(_ streams: CoordRun.Streams, _ message: String) -> Never {
        streams.notice(message)
        Processes.exit(2)
    }
}
