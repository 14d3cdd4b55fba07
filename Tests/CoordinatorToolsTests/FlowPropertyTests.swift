import Testing
import Foundation
import CoordinatorCore
import CoordinatorScript
import CoordinatorTools
import TestSupport

/// What the team means, checked: invariants (`flow.invariant`) in every state and after every step,
/// reachable properties (`flow.reachable`: no traps) over the graph exploration finds.
@Suite(.serialized) struct FlowPropertyTests {
    static let shop = try! String(contentsOfFile: repositoryRoot + "/examples/shop.lua", encoding: .utf8)

    /// The shop with a remove that forgets to take the item out: removing it twice makes the total negative.
    static var negativeTotal: String {
        shop.replacingOccurrences(of: "      table.remove(self.items, i)\n", with: "")
    }

    /// The shop with help behind the settings: a cover the user cannot swipe away, whose pages turn but never
    /// lead back (a trap: never a dead end, since "next" always leads somewhere else).
    static var trap: String {
        shop.replacingOccurrences(of: #"flow.screen "Settings" { render = function() return "Notifications: on" end }"#,
                                  with: #"flow.screen "Settings" { outputs = { "help" }, render = function() return "Notifications: on" end }"# + "\n"
                                      + #"flow.screen "Help" { inputs = { "page" }, outputs = { "next" } }"#)
            .replacingOccurrences(of: #"self:push("Profile", { user = "Ann" }).onSettings = function() self:push("Settings") end"#,
                                  with: """
                                      self:push("Profile", { user = "Ann" }).onSettings = function()
                                          self:push("Settings").onHelp = function()
                                            local help = self:present("Help", { page = 1 }, { presentation = "fullScreen", dismissable = false })
                                            help.onNext = function() help.page = 3 - help.page end
                                          end
                                        end
                                      """)
    }

    static func explore(_ text: String, in folder: TemporaryDirectory, _ configure: (inout Explorer.Options) -> Void = { $0.depth = 60 }) throws -> (ExploreReport, String) {
        let script = try folder.write("shop.lua", text)
        return (try ExploreTests.explore(script, configure), script)
    }

    /// The planted bugs break the shop's properties, each found with its shortest path; the shop itself
    /// holds them (``ExploreTests``, which explores it to its fixed point, checks that). A trap is told from
    /// the graph as soon as everything reachable from it was tried, the search cut elsewhere or not.
    @Test func thePlantedBugsBreakTheShopsProperties() throws {
        let folder = try TemporaryDirectory()
        #expect(Self.negativeTotal != Self.shop && Self.trap.contains("Help") && Self.trap.contains("onHelp"))
        // A total that goes ever more negative never ends: a shallow search finds the first.
        let (negative, script) = try Self.explore(Self.negativeTotal, in: folder) { $0.depth = 7 }
        #expect(negative.failed && negative.properties.map(\.status) == [.violated, .unchecked], "\(negative.text)")
        // The shortest way: the product, add it, the cart, remove it, and again.
        #expect(negative.invariantViolations.map(\.message) == ["invariant 'the cart's total is never negative' does not hold"])
        #expect(negative.invariantViolations.first?.path.map(\.luaSource) == [
            #"tap("open", {id = "shoes", name = "Shoes", products = {{id = "42", name = "Trail runner", price = 90}, {id = "43", name = "City sneaker", price = 70}}})"#,
            #"tap("open", {id = "42", name = "Trail runner", price = 90})"#, #"tap("add")"#, "tab(2)",
            #"tap("remove", {id = "42", name = "Trail runner", price = 90})"#, #"tap("remove", {id = "42", name = "Trail runner", price = 90})"#,
        ], "\(negative.text)")
        // Its test, run in a fresh runtime, fails the same way (the harness checks invariants after each step).
        let tests = try folder.write("shop_explore_test.lua", negative.testFile(app: script))
        let reproductions = try negative.reproduce(testFile: tests, timeLimit: 5)
        let invariantReproductions = reproductions.filter { $0.kind == .invariant }
        #expect(!invariantReproductions.isEmpty && invariantReproductions.allSatisfy { $0.reproduced }, "\(reproductions.map(\.outcome))")
        #expect(reproductions.contains { $0.kind == .invariant && $0.outcome.contains("does not hold after tap(\"remove\"") }, "\(reproductions.map(\.outcome))")

        let (trapped, _) = try Self.explore(Self.trap, in: folder) { $0.depth = 6 }
        #expect(trapped.properties.map(\.status) == [.unchecked, .violated], "\(trapped.text)")
        #expect(trapped.deadEnds.isEmpty, "\(trapped.text)") // the pages turn: no dead end, a trap
        #expect(trapped.traps.first?.path.map(\.luaSource) == ["tab(3)", #"tap("settings")"#, #"tap("help")"#], "\(trapped.text)")
        #expect(trapped.traps.first?.message == "a trap: from Help 'the catalog can always be reached' can never hold again", "\(trapped.text)")
    }

    /// A worker's answer is not believed: the coordinator expands an answer that breaks an invariant again,
    /// and one that hides the broken invariant (or invents one) ends the exploration naming the worker.
    @Test func aPropertyAWorkerFoundIsCheckedByTheCoordinator() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("shop.lua", Self.negativeTotal)
        let explorer = try ExploreTests.explorer(script)
        let report = try ExploreTests.explore(script) { $0.depth = 7 }
        let broken = try #require(report.invariantViolations.first)
        // The state before the second remove: its expansion holds the state that breaks the invariant.
        let path = Array(broken.path.dropLast())
        let key = try #require(report.states.first { $0.path == path }?.key)
        let request = ExploreRequest(index: 1, path: path, key: key)
        let honest = try explorer.expand(path, expecting: key)
        #expect(honest.outcomes.contains { if case .state(let seen) = $0.result { !seen.brokenInvariants.isEmpty } else { false } })
        let check = AnswerCheck(explorer: explorer, sample: 0)
        #expect(try check.check([request], [honest], from: "honest:1") == 1) // a finding: always expanded again
        // The same answer without its broken invariant, as a rogue worker would send it over the wire.
        func withoutBroken(_ value: FlowValue) -> FlowValue {
            switch value {
            case .record(let record): .record(FlowRecord(record.fields.filter { $0.key != "broken" }.map { ($0.key, withoutBroken($0.value)) }))
            case .list(let items): .list(items.map(withoutBroken))
            default: value
            }
        }
        let hiding = try Explorer.Expansion(answer: withoutBroken(honest.value).json)
        #expect(!hiding.outcomes.contains { if case .state(let seen) = $0.result { !seen.brokenInvariants.isEmpty } else { false } })
        // Hidden, nothing says to look again: a sample of every answer does.
        #expect(throws: AnswerCheck.Mismatch.self) { try AnswerCheck(explorer: explorer, sample: 1).check([request], [hiding], from: "rogue:2") }
    }

    /// A search cut short tells nothing of the states it did not see: a property it found no violation of is
    /// unchecked, said plainly; a trap is only one when everything reachable from it was tried, so a state
    /// whose future was cut is never called one.
    @Test func aCutSearchLeavesPropertiesUncheckedAndCallsNoStateATrap() throws {
        let folder = try TemporaryDirectory()
        let (shallow, _) = try Self.explore(Self.trap, in: folder) { $0.depth = 3 }
        #expect(shallow.properties.map(\.status) == [.unchecked, .unchecked], "\(shallow.text)")
        #expect(!shallow.failed)
        #expect(shallow.text.contains("reachable 'the catalog can always be reached': unchecked (no trap among the states whose whole future was explored, but the search was cut)"), "\(shallow.text)")
        let (few, _) = try Self.explore(Self.trap, in: folder) { $0.depth = 60; $0.maxStates = 40 }
        #expect(few.cutByStates && few.traps.isEmpty && few.deadEnds.isEmpty, "\(few.text)")
    }

    /// With a view, a property is checked on the view's graph, and the report says so.
    @Test func withAViewThePropertiesAreCheckedOnItsGraph() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("counter.lua", ExploreTests.counter(view: """
            function Main:__view() return { many = self.count > 2 } end
            flow.invariant("a screen shows", function(app) return app.top() ~= nil end)
            flow.reachable("home can be reached", function(app) return app.top().name == "Home" end)
            """))
        let report = try ExploreTests.explore(script)
        #expect(report.viewed && report.properties.map(\.status) == [.holds, .holds], "\(report.text)")
        #expect(report.properties.allSatisfy { $0.message.hasSuffix("(on the graph of the app's view)") }, "\(report.properties.map(\.message))")
    }

    /// A property reads: one that changes the navigation is refused wherever it runs (the change undone),
    /// and exploration refuses one that changes the scripts' data.
    @Test func aPropertyThatChangesTheAppIsAnError() throws {
        let folder = try TemporaryDirectory()
        let base = """
            local flow = require "coordinator"
            flow.screen "Home" { inputs = { "n" }, outputs = { "add" } }
            local App = flow.coordinator "App"
            function App:start() local home = self:push("Home", { n = 0 }) home.onAdd = function() home.n = home.n + 1 end end
            flow.app(App)
            """
        let writes = try folder.write("writes.lua", base + "\nflow.invariant('writes the screen', function(app) app.top().n = 5 return true end)\n")
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: writes)
        try runtime.start()
        let results = try runtime.checkInvariants()
        #expect(results.map(\.failure) == ["it changed the app: a property only reads"])
        #expect(runtime.app.window.visibleScreen?["n"] == 0) // undone
        let counts = try folder.write("counts.lua", base + "\nlocal calls = 0\nflow.invariant('counts its calls', function() calls = calls + 1 return true end)\n")
        let report = try ExploreTests.explore(counts) { $0.depth = 2 }
        #expect(report.errors.contains { $0.message.hasPrefix("a property changed the app's data ('counts its calls')") }, "\(report.text)")
        let view = try folder.write("view.lua", base + "\nflow.invariant('writes its view', function(app) app.gateway = 'main' return true end)\n")
        let other = try ScriptRuntime(driverFunctions: true)
        try other.load(script: view)
        try other.start()
        #expect(try other.checkInvariants().first?.failure?.contains("a property's app is read-only (cannot set gateway)") == true)
    }

    /// In flow tests an invariant is checked after every step: a broken one fails the test at the step that
    /// broke it, naming both.
    @Test func aFlowTestFailsAtTheStepThatBreaksAnInvariant() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("shop.lua", Self.negativeTotal)
        let file = try folder.write("shop_test.lua", """
            app "shop.lua"
            test("remove twice", function()
              open("shop://catalog/shoes/42")
              tap("add")
              tab("Cart")
              tap("remove", top().items[1])
              tap("remove", top().items[1])
              tap("checkout")
            end)
            """)
        let results = try FlowTests.run(file)
        guard case .failed(let message, let location)? = results.first?.outcome else {
            Issue.record("the test did not fail: \(results.map(\.outcome))")
            return
        }
        #expect(message.contains(#"invariant 'the cart's total is never negative' does not hold after tap("remove""#), "\(message)")
        #expect(location?.hasSuffix("shop_test.lua:7") == true, "\(location ?? "no place")")
    }

    /// The REPL warns after a line that breaks an invariant, and the line stands.
    @Test func theREPLWarnsOfABrokenInvariant() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("shop.lua", Self.negativeTotal)
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: script)
        try runtime.start()
        var errors: [String] = []
        let repl = try REPL(runtime: runtime, mode: .repl, output: REPL.Output(write: { _ in }, error: { errors.append($0) }))
        repl.handle("open('shop://catalog/shoes/42') tap('add') tab('Cart') tap('remove', top().items[1])")
        #expect(errors.isEmpty, "\(errors)")
        repl.handle("tap('remove', top().items[1])")
        #expect(errors.count == 1 && errors[0].hasPrefix("warning: invariant 'the cart's total is never negative' (") && errors[0].hasSuffix(") does not hold\n"), "\(errors)")
    }

    /// An invariant of a search cut short holds within as many steps as the search found every state: at
    /// the depth limit, the depth; at the state limit or where a step was not followed (`--max-pending`),
    /// the nearest state that was not fully tried, however deep the search went elsewhere. A reachable
    /// property says no such thing.
    @Test func anInvariantHoldsWithinTheStepsTheSearchFoundCompletely() throws {
        let folder = try TemporaryDirectory()
        func app(asking: Bool) -> String {
            """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "add", "ask" } }
            flow.request "lookup" { examples = { found = "here" } }
            local Main = flow.coordinator "Main"
            function Main:start()
              self.count = 0
              local home = self:push("Home")
              home.onAdd = function() self.count = self.count + 1 end
              home.onAsk = function() \(asking ? "self:request(\"lookup\").onResult = function(r) self.last = r end" : "") end
            end
            flow.invariant("never negative", function(app) return app.flows("Main")[1].count >= 0 end)
            flow.reachable("home", function(app) return app.top() ~= nil end)
            flow.app { authorization = Main }
            """
        }
        let counting = try folder.write("counting.lua", app(asking: false)), asking = try folder.write("asking.lua", app(asking: true))
        let byDepth = try ExploreTests.explore(counting) { $0.depth = 4 }
        #expect(byDepth.properties.map(\.status) == [.unchecked, .unchecked])
        #expect(byDepth.properties.map(\.withinSteps) == [4, nil], "\(byDepth.properties.map(\.message))")
        #expect(byDepth.properties[0].message.hasPrefix("every state at most 4 steps away found and checked"))
        // A third ask is not followed: the states two asks away were not fully tried, the depth 6 whatever.
        let byPending = try ExploreTests.explore(asking) { $0.depth = 6 }
        #expect(byPending.cutByPending > 0 && byPending.properties[0].withinSteps == 2, "\(byPending.properties.map(\.message))")
        // Four states: the base and the two one step away expanded, the fourth found two steps away.
        let byStates = try ExploreTests.explore(asking) { ($0.depth, $0.maxStates) = (6, 4) }
        #expect(byStates.states.count == 4 && byStates.properties[0].withinSteps == 1, "\(byStates.properties.map(\.message))")
    }

}
