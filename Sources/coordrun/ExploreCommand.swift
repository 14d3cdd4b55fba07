import ArgumentParser
import CoordinatorTools

/// `coordrun explore SCRIPT`: every state the app can reach, breadth first, the faults found with their
/// shortest paths written as a flow test, and the flow as a graph (docs/Explore.md).
struct ExploreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explore",
        abstract: "Explore every state the app can reach, and draw its flow.",
        discussion: """
            Tries every action of every state, breadth first: each output (each item of a list, each example \
            payload a screen type declares), Back, the swipe-down of a modal, every other tab. Prints the \
            states and transitions found, the screen types never reached, outputs never handled, dead ends, \
            errors and lifecycle violations, each with the shortest path to it, and writes those paths as a \
            test file. Exits 1 when it finds an error or a lifecycle violation.
            """)

    @Argument(help: "The app's main script.")
    var script: String

    @Option(help: "The most steps from the start.")
    var depth = 12

    @Option(name: .customLong("max-states"), help: "The most states to find.")
    var maxStates = 10_000

    @Option(help: "The gateway state to start in.")
    var state = "authorization"

    @Option(help: ArgumentHelp("Explore from this link instead of the app's start.", valueName: "url"))
    var open: String?

    @Option(help: ArgumentHelp("Explore from this snapshot instead of the app's start.", valueName: "file"))
    var restore: String?

    @Option(help: ArgumentHelp("Write the report as JSON to this file.", valueName: "file"))
    var json: String?

    @Option(help: ArgumentHelp("Write the flow graph: .mmd (Mermaid), .dot (Graphviz), .json, or .svg/.png (rendered by Graphviz's dot).", valueName: "file"))
    var graph: String?

    @Option(help: ArgumentHelp("Colour the graph by what flow tests reached (a file from coordrun test --coverage-json).", valueName: "file"))
    var coverage: String?

    @Option(help: ArgumentHelp("Where to write the findings as a flow test (default: .coordrun/explore/NAME_test.lua).", valueName: "file"))
    var tests: String?

    @Option(help: ArgumentHelp("The most seconds one action may run before it counts as an error (0: no limit).", valueName: "seconds"))
    var timeout: Double = 5

    @Option(help: "Worker processes that share each level of the search (default: 1, this process alone).")
    var workers = 1

    @Option(help: .hidden)
    var expand: String?

    func run() throws {
        let streams = CoordRun.Streams()
        let runtime = try make()
        var options = Explorer.Options()
        options.depth = max(depth, 0)
        options.maxStates = max(maxStates, 1)
        options.stepTimeLimit = timeout > 0 ? timeout : nil
        if let open {
            options.base = .link(open)
        } else if let restore {
            guard let text = Platform.readFile(restore) else { fail(streams, "cannot read the snapshot \(restore)") }
            options.base = .snapshot(text)
        }
        if workers > 1 || expand != nil { options.digestKeys = true } // keys cross the pipes: short ones
        let explorer = Explorer(runtime: runtime, options: options)
        if expand != nil {
            do { try ExploreWorkers.expand(explorer: explorer) } catch { fail(streams, "worker: \(error)") }
            return
        }
        let began = Platform.nanoseconds()
        let report: ExploreReport
        do {
            if workers > 1 {
                var arguments = [script, "--state", state, "--timeout", String(timeout)]
                if let open { arguments += ["--open", open] }
                if let restore { arguments += ["--restore", restore] }
                report = try ExploreWorkers.run(explorer: explorer, script: runtime.scriptFiles.first ?? script, workers: workers,
                                                arguments: arguments, catalog: runtime.app.catalog.names)
            } else {
                report = try explorer.run()
            }
        } catch {
            fail(streams, REPL.message(for: error))
        }
        let seconds = Double(Platform.nanoseconds() - began) / 1e9
        Platform.writeOut(report.text + "\n")
        let rate = Int(Double(report.steps) / max(seconds, 1e-9))
        Platform.writeOut("\(rate) transitions/s (\(Int(seconds * 1000)) ms)\n")
        if report.hasFindings {
            let name = String((script.split(separator: "/").last ?? "app").prefix { $0 != "." })
            let path = tests ?? ".coordrun/explore/\(name)_test.lua"
            let folder = path.split(separator: "/").dropLast().joined(separator: "/")
            let app = script.hasPrefix("/") ? script : Platform.currentFolder() + "/" + script
            guard folder.isEmpty || Platform.makeFolders((path.hasPrefix("/") ? "/" : "") + folder),
                  Platform.writeFile(path, report.testFile(app: app, base: options.base)) else {
                fail(streams, "cannot write \(path)")
            }
            Platform.writeOut("reproductions: \(path) (./scripts/coordrun test \(path))\n")
        }
        if let json, !Platform.writeFile(json, document(report, seconds: seconds).prettyJSON + "\n") {
            fail(streams, "--json: cannot write \(json)")
        }
        if let graph { try writeGraph(report, to: graph, streams) }
        if report.failed { throw ExitCode.failure }
    }

    private func make() throws -> ScriptRuntime {
        let streams = CoordRun.Streams()
        do {
            let runtime = try ScriptRuntime(stateNamed: state)
            runtime.lua.warningsEnabled = false
            // What the scripts and handlers print while every state is tried would drown the report.
            try runtime.lua.globals.set("print", runtime.lua.function(name: "print") { _ in })
            try runtime.load(script: script)
            return runtime
        } catch {
            streams.message(REPL.message(for: error))
            throw ExitCode.failure
        }
    }

    private func writeGraph(_ report: ExploreReport, to path: String, _ streams: CoordRun.Streams) throws {
        var tested: Set<String>?
        if let coverage {
            guard let text = Platform.readFile(coverage), let value = try? FlowValue(json: text) else {
                fail(streams, "--coverage: cannot read \(coverage) (a file from coordrun test --coverage-json)")
            }
            tested = Set((value.listValue ?? [value]).flatMap { $0["screens"]?["reached"]?.listValue?.compactMap(\.stringValue) ?? [] })
        }
        let graph = FlowGraph(report, tested: tested)
        let format = path.split(separator: ".").last.map { String($0).lowercased() } ?? ""
        switch format {
        case "mmd", "mermaid": guard Platform.writeFile(path, graph.mermaid) else { fail(streams, "--graph: cannot write \(path)") }
        case "dot", "gv": guard Platform.writeFile(path, graph.dot) else { fail(streams, "--graph: cannot write \(path)") }
        case "json": guard Platform.writeFile(path, graph.json) else { fail(streams, "--graph: cannot write \(path)") }
        case "svg", "png":
            let status = Platform.run("dot -T\(format) -o \(Platform.shellQuoted(path))", input: graph.dot)
            guard status == 0 else {
                fail(streams, "--graph: Graphviz's dot could not write \(path)" + (status == 127 ? " (dot is not installed: ./scripts/coordrun installs graphviz)" : ""))
            }
        default:
            fail(streams, "--graph: \(path) must end in .mmd, .dot, .json, .svg or .png")
        }
        Platform.writeOut("graph: \(path) (\(graph.nodes.count) screens, \(graph.edges.count) edges)\n")
    }

    private func document(_ report: ExploreReport, seconds: Double) -> FlowValue {
        func findings(_ list: [ExploreReport.Finding]) -> FlowValue {
            .list(list.map { ["message": .string($0.message), "path": .list($0.path.map { .string($0.luaSource) })] })
        }
        return [
            "script": .string(report.script), "states": .int(report.states.count), "transitions": .int(report.transitions.count),
            "steps": .int(report.steps), "seconds": .double(seconds), "fixedPoint": .bool(report.reachedFixedPoint),
            "unreachedScreenTypes": .list(report.unreachedTypes.map(FlowValue.string)),
            "errors": findings(report.errors), "lifecycleViolations": findings(report.violations),
            "unhandledOutputs": findings(report.unhandled), "deadEnds": findings(report.deadEnds),
        ]
    }

    private func fail(_ streams: CoordRun.Streams, _ message: String) -> Never {
        streams.message(message)
        Platform.exit(1)
    }
}
