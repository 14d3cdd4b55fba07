import Foundation
import Testing
import CoordinatorCore
import CoordinatorScript
import CoordinatorTools
import TestSupport

/// Exploration: every reachable state, the faults with their shortest paths as tests.
/// Serialized: each exploration keeps a core busy, and the terminal tests beside them poll a screen.
@Suite(.serialized) struct ExploreTests {
    static func explorer(_ script: String, _ configure: (inout Explorer.Options) -> Void = { _ in }) throws -> Explorer {
        var options = Explorer.Options()
        configure(&options)
        return try Explorer(options: options) {
            let runtime = try ScriptRuntime()
            try Explorer.prepare(runtime)
            try runtime.load(script: script)
            return runtime
        }
    }

    static func explore(_ script: String, _ configure: (inout Explorer.Options) -> Void = { _ in }) throws -> ExploreReport {
        try explorer(script, configure).run()
    }

    @Test(arguments: ["scripts/app.lua", "examples/tabs.lua", "examples/ab-picker.lua", "examples/catalog.lua",
                      "examples/launch.lua", "examples/notes.lua", "examples/multi-select.lua", "examples/shop.lua"])
    func theAppAndTheExamplesReachAFixedPointWithoutErrors(_ script: String) throws {
        let report = try Self.explore(repositoryRoot + "/" + script) { $0.depth = 60 }
        let fixedPoint = report.reachedFixedPoint, clean = report.errors.isEmpty && report.violations.isEmpty, text = report.text
        #expect(fixedPoint, "\(text)")
        #expect(clean, "\(text)")
    }

    @Test func theSourceAppsStatesAndTransitions() throws {
        let report = try Self.explore(repositoryRoot + "/scripts/app.lua")
        #expect(report.states.count == 52 && report.transitions.count == 193, "\(report.text)")
        #expect(report.unreachedTypes.isEmpty && report.unhandled.isEmpty && report.deadEnds.isEmpty)
        // The wrong password's alert, and its only action.
        #expect(report.states.contains { $0.screen == "Alert" && $0.path == [.tap("login", payload: ["name": "Ann", "password": "wrong"])] })
    }

    /// Planted faults: a handler that fails for one region, a child flow that never finishes (it shows
    /// nothing), a screen with no way out, an output nobody handles. Each is found, and its written test
    /// reproduces it.
    @Test func plantedFaultsAreFoundAndTheirTestsReproduceThem() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("faulty.lua", """
            local flow = require "coordinator"
            flow.screen "Regions" { inputs = { "regions" }, outputs = { pick = { from = "regions" }, "help", "about" } }
            flow.screen "Cities" { inputs = { "region" }, outputs = { "done" } }
            flow.screen "Help" { render = function() return "no way out" end }
            flow.screen "About" { outputs = { "close" } }
            local Ghost = flow.coordinator "Ghost"
            function Ghost:start() end                              -- never shows a screen, never finishes
            local Help = flow.coordinator "Help"
            function Help:start() self:setRoot("Help") end          -- replaces its stack: no way back
            local App = flow.coordinator "App"
            function App:start()
              local regions = self:push("Regions", { regions = { "North", "South", "East" } })
              regions.onPick = function(region)
                if region == "South" then error("no cities for " .. region) end
                local cities = self:push("Cities", { region = region })
                cities.onDone = function() self:run(Ghost) end
              end
              regions.onHelp = function() self:run(Help) end
              regions.onAbout = function() self:push("About") end   -- About's close has no handler
            end
            flow.app(App)
            """)
        // Each tap on Cities' done runs one more Ghost: the tree grows without end, so the depth bounds it.
        let report = try Self.explore(script) { $0.depth = 5 }
        let text = report.text
        #expect(report.errors.count == 1, "\(text)")
        #expect(report.errors.first?.message.contains("faulty.lua:14: no cities for South") == true, "\(text)")
        #expect(report.errors.first?.path == [.tap("pick", payload: "South")])
        #expect(report.violations.count == 1, "\(text)")
        #expect(report.violations.first?.message.contains("runs but shows no screen") == true, "\(text)")
        #expect(report.violations.first?.path == [.tap("pick", payload: "North"), .tap("done", payload: nil)]) // the shortest
        #expect(report.deadEnds.map(\.message) == ["Help has no way forward and no way back"], "\(text)")
        #expect(report.unhandled.count == 1 && report.unhandled.first?.message.hasPrefix("nothing handles close on About") == true, "\(text)")
        #expect(report.failed)

        // The reproductions, run as flow tests: each fails as the exploration found.
        let tests = try folder.write("faulty_explore_test.lua", report.testFile(app: script))
        let results = try FlowTests.run(tests)
        #expect(results.count == 4)
        let messages = results.map { result -> String in
            if case let .failed(message, _) = result.outcome { return message }
            return "passed"
        }
        #expect(messages[0].contains("no cities for South"), "\(messages)")
        #expect(messages[1].contains("Ghost") && messages[1].contains("shows no screen"), "\(messages)")
        #expect(messages[2].contains("nothing handles close on About"), "\(messages)")
        #expect(messages[3].contains("there is nothing to go back to"), "\(messages)")
    }

    /// A handler that never returns is an error of its step ("timed out"), not a hung exploration; a link
    /// that never opens fails `coordrun routes` the same way.
    @Test func aStepThatRunsForeverTimesOut() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("loop.lua", """
            local flow = require "coordinator"
            flow.screen "S" { outputs = { "spin", "ok" } }
            flow.screen "T" {}
            local App = flow.coordinator "App"
            function App:start() local s = self:push("S") s.onSpin = function() while true do end end s.onOk = function() self:push("T") end end
            flow.app(App)
            flow.route("loop://spin", { { on = "S", tap = "spin" } })
            """)
        let report = try Self.explore(script) { $0.stepTimeLimit = 0.05 }
        #expect(report.errors.count == 1 && report.errors.first?.message.hasPrefix("\(script):5: timed out") == true)
        #expect(report.states.count == 2 && report.reachedFixedPoint)
        let routes = try RouteCheck.run(script: script, timeLimit: 0.05)
        #expect(routes.first?.failure?.hasSuffix("loop.lua:5: timed out") == true)
        // A base that never arrives times out too; a report from a link starts its tests by opening it.
        let stuck = #expect(throws: NavigationError.self) { _ = try Self.explore(script) { $0.base = .link("loop://spin"); $0.stepTimeLimit = 0.05 } }
        #expect(stuck?.message.hasSuffix("loop.lua:5: timed out") == true, "\(stuck?.message ?? "no error")")
        #expect(report.testFile(app: script, base: .link("loop://x")).contains("test(\"error 1: \(script):5: timed out\", function()\n  open(\"loop://x\")\n  tap(\"spin\")"))
    }

    @Test func aGraphOfTheFlowInEveryFormat() throws {
        let report = try Self.explore(repositoryRoot + "/examples/shop.lua") { $0.depth = 4 }
        let graph = FlowGraph(report, tested: ["Categories", "Products"])
        #expect(graph.nodes.contains { $0.screen == "Checkout" && $0.inModal && $0.coordinator == "Checkout" })
        #expect(graph.edges.contains { $0.label == "buy" && $0.kind == .output })
        #expect(graph.edges.contains { $0.kind == .dismiss } && !graph.edges.contains { $0.kind == .tab })
        #expect(graph.nodes.contains { $0.screen == "Cart" && $0.tab == "Cart" })
        #expect(graph.dot.contains("label=\"Catalog (tab)\""))
        let mermaid = graph.mermaid
        #expect(mermaid.hasPrefix("flowchart LR\n") && mermaid.contains("subgraph") && mermaid.contains("-.->|\"swipe down\"|"))
        #expect(mermaid.contains("class ") && mermaid.contains(" tested"))
        let dot = graph.dot
        #expect(dot.hasPrefix("digraph flow {") && dot.contains("subgraph cluster_") && dot.contains("style=dashed"))
        let json = try FlowValue(json: graph.json)
        #expect(json["nodes"]?.listValue?.count == graph.nodes.count && json["edges"]?.listValue?.count == graph.edges.count)
    }

}
