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

    /// An app whose one output, `add`, only counts (in the coordinator's `self.count`); `view` is Lua after
    /// the class.
    static func counter(view: String = "") -> String {
        """
        local flow = require "coordinator"
        flow.screen "Home" { outputs = { "add" } }
        local Main = flow.coordinator "Main"
        function Main:start()
          self.count = 0
          self.router:push("Home").onAdd = function() self.count = self.count + 1 end
        end
        \(view)
        flow.app { authorization = Main }
        """
    }

    static func explore(_ script: String, _ configure: (inout Explorer.Options) -> Void = { _ in }) throws -> ExploreReport {
        try explorer(script, configure).run()
    }

    @Test(arguments: ["scripts/app.lua", "examples/tabs.lua", "examples/ab-picker.lua", "examples/catalog.lua",
                      "examples/launch.lua", "examples/notes.lua", "examples/multi-select.lua", "examples/shop.lua",
                      "examples/social.lua", "examples/pages.lua", "examples/split.lua", "examples/ride.lua", "examples/profile.lua",
                      "examples/bank.lua", "examples/browser.lua"])
    func theAppAndTheExamplesReachAFixedPointWithoutErrorsAndVerify(_ script: String) throws {
        let explorer = try Self.explorer(repositoryRoot + "/" + script) { $0.depth = 60 }
        let report = try explorer.run()
        let fixedPoint = report.reachedFixedPoint, clean = report.errors.isEmpty && report.violations.isEmpty, text = report.text
        #expect(fixedPoint, "\(text)")
        #expect(clean, "\(text)")
        // The properties an app declares hold in every state (the shop's: its total never negative, the
        // catalog reachable from everywhere).
        #expect(report.properties.allSatisfy { $0.status == .holds }, "\(text)")
        if script == "examples/shop.lua" { #expect(report.properties.count == 2) }
        // Branches are isolated: transitions re-run in fresh runtimes reach the states the search recorded.
        let verification = try explorer.verify(report, sample: 40)
        #expect(verification.checked == min(40, report.transitions.count))
        #expect(verification.mismatches.isEmpty, "\(verification.mismatches.map { $0.path.map(\.luaSource) + [$0.message] })")
    }

    /// The walk of the parts that seldom change, kept between identities (``StateIdentities/cachesStableWalk``),
    /// changes no state and no transition: the shop, and an app whose steps write into the standard library, a
    /// global and a module's upvalue (the cache then walks them again), give the full walk's report.
    @Test func theStableRootsCacheGivesTheFullWalksStatesAndTransitions() throws {
        let writer = """
            local flow = require "coordinator"
            local visits = 0
            flow.screen "Home" { outputs = { "mark", "global", "count", "reset" } }
            local Main = flow.coordinator "Main"
            function Main:start()
              local home = self.router:push("Home")
              home.onMark = function() string.marked = not string.marked end
              home.onGlobal = function() seen = (seen or 0) % 3 + 1 end
              home.onCount = function() visits = (visits + 1) % 4 end
              home.onReset = function() string.marked, seen, visits = nil, nil, 0 end
            end
            flow.app { authorization = Main }
            """
        let path = NSTemporaryDirectory() + "stable-writer-\(UUID().uuidString).lua"
        try writer.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for (script, depth) in [(repositoryRoot + "/examples/shop.lua", 8), (path, 12)] {
            func report(cached: Bool) throws -> ExploreReport {
                var options = Explorer.Options()
                options.depth = depth
                return try Explorer(options: options) {
                    let runtime = try ScriptRuntime()
                    runtime.identities.cachesStableWalk = cached
                    try Explorer.prepare(runtime)
                    try runtime.load(script: script)
                    return runtime
                }.run()
            }
            let fast = try report(cached: true), full = try report(cached: false)
            #expect(fast.states.map(\.key) == full.states.map(\.key), "\(script)")
            #expect(fast.transitions.map { [$0.from, $0.to] } == full.transitions.map { [$0.from, $0.to] }, "\(script)")
            #expect(fast.transitions.map(\.action.luaSource) == full.transitions.map(\.action.luaSource), "\(script)")
            #expect(fast.states.count > 20, "\(script): \(fast.states.count) states")
        }
    }

    /// Screens only events reach (the driver found, the car arrived) are reached: exploration sends every
    /// declared event with its examples, and the app's own where a flow listens.
    @Test func screensOnlyEventsReachAreReached() throws {
        let report = try Self.explore(repositoryRoot + "/examples/ride.lua") { $0.depth = 60 }
        #expect(report.unreachedTypes.isEmpty, "\(report.text)")
        #expect(report.transitions.contains { $0.action == .event("arrived", payload: nil) && report.states[$0.to].screen == "Riding" })
        #expect(report.transitions.contains { $0.action == .event("background", payload: nil) && report.states[$0.to].screen == "Locked" })
        // On Home no flow listens to background: it is not tried there.
        #expect(!report.transitions.contains { $0.action == .event("background", payload: nil) && report.states[$0.from].screen == "Home" })
        #expect(FlowGraph(report).dot.contains("label=\"event arrived\", style=bold"))
    }

    /// Time passing is a step where a timer is pending: a screen only a timeout reaches is reached, and a
    /// repeating timer still comes to a fixed point (the state holds its time left, not the clock).
    @Test func timersFireAsStepsAndARepeatingOneReachesAFixedPoint() throws {
        let folder = try TemporaryDirectory()
        let report = try Self.explore(try folder.write("timeout.lua", """
            local flow = require "coordinator"
            flow.screen "Main" { outputs = { "touch" } }
            flow.screen "Expired" {}
            local Session = flow.coordinator "Session"
            function Session:start()
              local main = self:push("Main")
              self:every(60, function() end)
              local timeout
              local function arm() timeout = self:after(300, function() self:push("Expired") end) end
              arm()
              main.onTouch = function() timeout:cancel() arm() end
            end
            flow.app(Session)
            """)) { $0.depth = 40 }
        #expect(report.reachedFixedPoint && report.errors.isEmpty, "\(report.text)")
        #expect(report.unreachedTypes.isEmpty, "\(report.text)")
        #expect(report.transitions.contains { if case .advance = $0.action { report.states[$0.to].screen == "Expired" } else { false } })
        #expect(FlowGraph(report).dot.contains("style=bold, color=\"#6a1b9a\""))
    }

    /// Requests that answer later: exploration answers each pending request with each outcome between
    /// the user's steps, so "Back while loading" (the request dropped with its flow) is a state it visits,
    /// and a planted "a second tap while loading pushes twice" shows with its shortest path.
    @Test func requestsAnswerBetweenTheUsersSteps() throws {
        let report = try Self.explore(repositoryRoot + "/examples/profile.lua") { $0.depth = 30 }
        #expect(report.reachedFixedPoint && report.errors.isEmpty && report.unreachedTypes.isEmpty, "\(report.text)")
        // Back while a profile loads: Home again, nothing pending, and its answer never tried.
        let back = report.transitions.first { $0.action == .back && report.states[$0.from].screen == "People" }
        #expect(back.map { report.states[$0.to].screen } == "Home")
        #expect(report.transitions.contains { $0.action == .answer("loadProfile", nth: 0, outcome: "ok", value: nil) })
        // Without the guard, a second tap while loading starts a second request, and both answers push.
        let folder = try TemporaryDirectory()
        let buggy = try String(contentsOfFile: repositoryRoot + "/examples/profile.lua", encoding: .utf8)
            .replacingOccurrences(of: "if people.loading then return end", with: "")
        let planted = try Self.explore(try folder.write("profile.lua", buggy)) { $0.depth = 30 }
        let twice = planted.states.filter { $0.shownTypes.filter { $0 == "Profile" }.count == 2 }
        #expect(!twice.isEmpty, "\(planted.text)")
        let shortest = twice.map(\.path.count).min()
        // Signing in (a tap, an answer), the directory, two taps while loading, two answers.
        #expect(shortest == 7, "\(twice.map { $0.path.map(\.luaSource) })")
        // With one request of a kind followed at a time, the second tap is cut, and the report says so.
        let one = try Self.explore(try folder.write("profile1.lua", buggy)) { $0.depth = 30; $0.maxPending = 1 }
        #expect(one.cutByPending > 0 && !one.reachedFixedPoint)
        #expect(one.text.contains("cut where more than 1 request of a kind would wait (--max-pending)"), "\(one.text)")
        #expect(!one.states.contains { $0.shownTypes.filter { $0 == "Profile" }.count == 2 })
    }

    /// The storage is state: two states that differ in it alone are two, and a relaunch is a step where it
    /// may lead elsewhere than the start (the storage, the clock or the width not the start's): the app
    /// launched again with the storage kept. From the start a relaunch is not tried (it relaunches into the
    /// start).
    @Test func theStorageIsStateAndARelaunchIsAStep() throws {
        let folder = try TemporaryDirectory()
        let report = try Self.explore(try folder.write("count.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { inputs = { "n" }, outputs = { "add" } }
            local App = flow.coordinator "App"
            function App:start()
              local home = self:push("Home", { n = 0 })
              home.onAdd = function() if (flow.storage.n or 0) < 2 then flow.storage.n = (flow.storage.n or 0) + 1 end end
            end
            flow.app(App)
            """))
        #expect(report.reachedFixedPoint && report.errors.isEmpty, "\(report.text)")
        // Nothing on screen tells them apart: n = 0, 1, 2 in the storage.
        #expect(report.states.count == 3, "\(report.text)")
        let relaunches = report.transitions.filter { $0.action == .relaunch }
        #expect(relaunches.count == 2 && relaunches.allSatisfy { $0.from == $0.to }, "\(relaunches)")
        let bank = try Self.explore(repositoryRoot + "/examples/bank.lua") { $0.depth = 30 }
        // Signed in, a relaunch starts the app signed in; from the start none is tried.
        #expect(!bank.transitions.contains { $0.from == 0 && $0.action == .relaunch })
        #expect(bank.transitions.contains { $0.action == .relaunch && bank.states[$0.from].screen == "Accounts" && bank.states[$0.to].screen == "Accounts" })
    }

    /// A child flow a global keeps after it finishes: each way it finishes (its own close, Back) leaks it.
    static let keptFlowApp = """
        local flow = require "coordinator"
        flow.screen "Home" { outputs = { "open", "other" } }
        flow.screen "Detail" { outputs = { "close" } }
        local opened = 0 -- a file-level local a restart keeps: branches replay in fresh runtimes
        local Detail = flow.coordinator "Detail"
        function Detail:start() self:push("Detail").onClose = function() self:finish() end end
        local App = flow.coordinator "App"
        function App:start()
          local home = self:push("Home")
          home.onOpen = function() opened = opened + 1; kept = self:run(Detail) end
          home.onOther = function() opened = opened + 1 end
        end
        flow.app(App)
        """

    /// A flow left alive is found with the step that left it even when a later action of the same
    /// expansion frees it (the next branch's replay gives the global another flow), and a flow a replay
    /// finished again is not found a second time without its step (its test would pass: an explorer fault,
    /// exit 2, for a real leak).
    @Test func everyLeakIsFoundOnceWithItsStepAndReproduces() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("kept.lua", Self.keptFlowApp)
        let report = try Self.explore(script) { $0.depth = 4 }
        #expect(report.violations.map(\.message) == [
            #"lifecycle: coordinator Detail finished at tap("close") but is still alive (something still holds it)"#,
            "lifecycle: coordinator Detail finished at back() but is still alive (something still holds it)",
        ], "\(report.text)")
        #expect(report.violations.map { $0.path.map(\.luaSource) } == [[#"tap("open")"#, #"tap("close")"#], [#"tap("open")"#, "back()"]])
        let tests = try folder.write("kept_explore_test.lua", report.testFile(app: script))
        let reproductions = try report.reproduce(testFile: tests, timeLimit: 5)
        #expect(reproductions.allSatisfy { $0.reproduced }, "\(reproductions.map(\.outcome))")
    }

    /// A state whose actions all lead to states past the state limit is not a dead end: its actions lead
    /// somewhere, the search stopped taking those states in.
    @Test func theStateLimitMakesNoDeadEnd() throws {
        let folder = try TemporaryDirectory()
        let report = try Self.explore(try folder.write("movie.lua", """
            local flow = require "coordinator"
            flow.screen "Movie" { inputs = { "n" }, outputs = { "next" } }
            local App = flow.coordinator "App"
            function App:start()
              local movie = self:push("Movie", { n = 1 })
              movie.onNext = function() movie.n = movie.n + 1 end
            end
            flow.app(App)
            """)) { $0.maxStates = 5 }
        #expect(report.cutByStates && report.deadEnds.isEmpty, "\(report.text)")
    }

    /// Names holding control characters are written escaped, on one line, and a finding of one reproduces:
    /// ids come out of the name as written, and both sides are compared escaped alike.
    @Test func aFindingNamedWithControlCharactersReproduces() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("odd.lua", #"""
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "open" } }
            flow.screen "Odd\1Name" { outputs = { "cl\2ose" } }
            local Odd = flow.coordinator "Odd\nFlow"
            function Odd:start() self:push("Odd\1Name") end
            local App = flow.coordinator "App"
            function App:start()
              self:push("Home").onOpen = function() kept = self:run(Odd) end
            end
            flow.app(App)
            """#)
        let report = try Self.explore(script) { $0.depth = 3 }
        #expect(report.unhandled.map(\.message).contains(#"nothing handles cl\u{2}ose on Odd\u{1}Name"#), "\(report.text)")
        #expect(report.violations.contains { $0.message.hasPrefix(#"lifecycle: coordinator Odd\nFlow finished at back()"#) }, "\(report.text)")
        #expect(!report.text.contains("\u{1}") && !report.text.contains("Flow#"), "\(report.text)")
        let tests = try folder.write("odd_explore_test.lua", report.testFile(app: script))
        let reproductions = try report.reproduce(testFile: tests, timeLimit: 5)
        #expect(!reproductions.isEmpty && reproductions.allSatisfy { $0.reproduced }, "\(reproductions.map(\.outcome))")
    }

    /// A feed that polls: each answer asks again, and Refresh asks once more.
    static let pollingApp = """
        local flow = require "coordinator"
        flow.request "load" { examples = { ok = { items = 3 } } }
        flow.screen "Feed" { outputs = { "refresh" } }
        local Feed = flow.coordinator "Feed"
        function Feed:start()
          local feed = self:push("Feed")
          local function poll() self:request("load").onResult = function() poll() end end
          poll()
          feed.onRefresh = function() poll() end
        end
        flow.app(Feed)
        """

    /// A step not followed for `--max-pending` is listed with its request kind and shortest path, and the
    /// state it was not followed from is not called a dead end: its other actions only loop back (a feed
    /// that polls: each answer asks again), but the step cut might have led elsewhere.
    @Test func aStepNotFollowedForMaxPendingIsListedAndItsStateIsNoDeadEnd() throws {
        let folder = try TemporaryDirectory()
        let poll = try folder.write("poll.lua", Self.pollingApp)
        let one = try Self.explore(poll) { $0.maxPending = 1 }
        #expect(one.deadEnds.isEmpty, "\(one.text)")
        #expect(one.cutByPending == 1 && !one.reachedFixedPoint && !one.complete)
        #expect(one.pendingCuts.map(\.message) == ["tap(\"refresh\") would leave 2 requests of load waiting"])
        #expect(one.pendingCuts.map { $0.path.map(\.luaSource) } == [["tap(\"refresh\")"]])
        #expect(one.text.contains("  tap(\"refresh\") would leave 2 requests of load waiting\n    after: (the start)"), "\(one.text)")
        // Two followed: the second refresh is the one cut, after the first.
        let two = try Self.explore(poll) { $0.maxPending = 2 }
        #expect(two.deadEnds.isEmpty && two.states.count == 2, "\(two.text)")
        #expect(two.pendingCuts.map { $0.path.map(\.luaSource) } == [["tap(\"refresh\")", "tap(\"refresh\")"]])
        // Cut by the depth limit too (a screen one step away is never expanded), the first line says both.
        let deeper = try String(contentsOfFile: poll, encoding: .utf8)
            .replacingOccurrences(of: "outputs = { \"refresh\" }", with: "outputs = { \"refresh\", \"about\" } }\nflow.screen \"About\" {")
            .replacingOccurrences(of: "poll()\n", with: "poll()\n  feed.onAbout = function() self:push(\"About\") end\n")
        let both = try Self.explore(try folder.write("deeper.lua", deeper)) { $0.maxPending = 1; $0.depth = 1 }
        #expect(both.reach == "cut at the depth limit (1 steps): 1 state found and not expanded; "
                + "cut where more than 1 request of a kind would wait (--max-pending): 1 step not followed", "\(both.text)")
    }

    /// An output whose `when` is false is not there: exploration never taps it (so never reports it
    /// unhandled), and taps it where it is offered.
    @Test func anOutputThatIsNotOfferedIsNeverTried() throws {
        let folder = try TemporaryDirectory()
        let report = try Self.explore(try folder.write("when.lua", """
            local flow = require "coordinator"
            flow.screen "Profile" { inputs = { "own" }, outputs = { "toggle", settings = { when = function(p) return p.own end } } }
            flow.screen "Settings" {}
            local Main = flow.coordinator "Main"
            function Main:start()
              local profile = self:push("Profile", { own = false })
              profile.onToggle = function() profile.own = not profile.own end
              profile.onSettings = function() if profile.own then self:push("Settings") end end
            end
            flow.app(Main)
            """))
        #expect(report.reachedFixedPoint && report.errors.isEmpty && report.unhandled.isEmpty, "\(report.text)")
        let settings = report.transitions.filter { $0.action.luaSource.contains("settings") }
        #expect(settings.count == 1, "\(report.text)")
        #expect(settings.allSatisfy { report.states[$0.to].screen == "Settings" })
        #expect(report.states.count == 3)
    }

    /// A full-screen cover and a modal presented with `dismissable = false` are never swiped away by the
    /// exploration (no swipe-down transition, so no swipe edge in the graph); a sheet is.
    @Test func modalsTheUserCannotSwipeAwayHaveNoSwipeEdge() throws {
        let folder = try TemporaryDirectory()
        func app(_ options: String) throws -> String {
            try folder.write("app\(options.count).lua", """
                local flow = require "coordinator"
                flow.screen "Home" { outputs = { "open" } }
                flow.screen "Modal" { outputs = { "close" } }
                local Home = flow.coordinator "Home"
                function Home:start()
                  local home = self:push("Home")
                  home.onOpen = function() self:present("Modal", nil, \(options)).onClose = function() self:dismiss() end end
                end
                flow.app(Home)
                """)
        }
        for options in ["{ presentation = 'fullScreen' }", "{ dismissable = false }"] {
            let report = try Self.explore(try app(options))
            #expect(report.reachedFixedPoint && report.states.count == 2, "\(options): \(report.text)")
            #expect(!report.transitions.contains { $0.action == .dismiss }, "\(options)")
            #expect(!FlowGraph(report).dot.contains("swipe down"), "\(options)")
        }
        // The graph says how each modal is presented; a plain page sheet is drawn as a modal and no more.
        for (options, caption) in [("{ presentation = 'fullScreen' }", "Modal (fullScreen)"), ("{ dismissable = false }", "Modal (pageSheet, not dismissable)"),
                                   ("{ presentation = 'formSheet' }", "Modal (formSheet)"), ("nil", "Modal")] {
            let graph = FlowGraph(try Self.explore(try app(options)))
            let modal = graph.nodes.first { $0.screen == "Modal" }
            #expect(modal?.caption == caption, "\(options)")
            #expect(graph.dot.contains("label=\"\(caption)\""), "\(options): \(graph.dot)")
            #expect(graph.mermaid.contains("([\"\(caption)\"])"), "\(options)")
            let node = try FlowValue(json: graph.json)["nodes"]?.listValue?.first { $0["screen"] == "Modal" }
            #expect(node?["presentation"]?.stringValue == modal?.modal && modal?.modal != nil, "\(options)")
        }
        let sheet = try Self.explore(try app("{ detents = { 'medium' } }"))
        #expect(sheet.transitions.contains { $0.action == .dismiss })
        #expect(FlowGraph(sheet).dot.contains("swipe down"))
    }

    /// An alert whose actions are functions leaves nothing behind once answered: exploring it reaches a
    /// fixed point with the same states as the same app whose alert's actions are names its screen's
    /// handlers answer, and a child flow finished from an action re-runs to the same state (`verify`).
    @Test func anAlertWithFunctionActionsExploresAsOneWithNamedActions() throws {
        let folder = try TemporaryDirectory()
        func app(_ actions: String, handlers: String = "") -> String {
            """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "ask", "open" } }
            flow.screen "Page" { outputs = { "ask" } }
            local Child = flow.coordinator "Child"
            function Child:start()
              local page = self:push("Page")
              page.onAsk = function()
                local alert = self:alert { title = "Done?", actions = \(actions) }
                \(handlers)
              end
            end
            local Home = flow.coordinator "Home"
            function Home:start()
              local home = self:push("Home")
              home.onAsk = function() self:alert { title = "Sure?", actions = { { "OK", function() end }, "Cancel" } } end
              home.onOpen = function() self:run(Child) end
            end
            flow.app(Home)
            """
        }
        let functions = try folder.write("functions.lua", app(#"{ { "Finish", function() self:finish() end }, { "Stay", function() end } }"#))
        let names = try folder.write("names.lua", app(#"{ "Finish", "Stay" }"#, handlers: "alert.onFinish = function() self:finish() end"))
        let explorer = try Self.explorer(functions) { $0.depth = 30 }
        let withFunctions = try explorer.run(), withNames = try Self.explore(names) { $0.depth = 30 }
        #expect(withFunctions.reachedFixedPoint, "\(withFunctions.text)")
        #expect(withNames.reachedFixedPoint, "\(withNames.text)")
        #expect(withFunctions.states.map(\.screen) == withNames.states.map(\.screen))
        #expect(withFunctions.states.count == 4, "\(withFunctions.states.map(\.screen))")
        let verification = try explorer.verify(withFunctions, sample: 100)
        #expect(verification.mismatches.isEmpty, "\(verification.mismatches.map { $0.path.map(\.luaSource) + [$0.message] })")
    }

    /// Data only a handler changes (a coordinator's `self.count`): states that differ in it are different
    /// states, so a bug three data-only steps away is found, with its shortest path, and its test fails.
    @Test func aBugThreeDataOnlyStepsAwayIsFoundWithItsShortestPath() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("count.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "add", "cart" } }
            flow.screen "Cart" {
              inputs = { "count" },
              render = function(s)
                if s.count >= 3 then error("cart overflow: " .. s.count) end
                return "items: " .. s.count
              end,
            }
            local Main = flow.coordinator "Main"
            function Main:start()
              self.count = 0
              local home = self.router:push("Home")
              home.onAdd = function() self.count = self.count + 1 end
              home.onCart = function() self.router:push("Cart", { count = self.count }) end
            end
            flow.app { authorization = Main }
            """)
        let report = try Self.explore(script)
        let text = report.text
        #expect(report.errors.count == 1, "\(text)")
        #expect(report.errors.first?.message.contains("count.lua:6: cart overflow: 3") == true, "\(text)")
        #expect(report.errors.first?.path == [.tap("add", payload: nil), .tap("add", payload: nil), .tap("add", payload: nil), .tap("cart", payload: nil)])
        #expect(!report.complete && report.cutByDepth && text.contains("cut at the depth limit (12 steps): 1 state found and not expanded"), "\(text)")
        let tests = try folder.write("count_explore_test.lua", report.testFile(app: script))
        let reproductions = try report.reproduce(testFile: tests, timeLimit: 5)
        #expect(reproductions.count == 1 && reproductions.allSatisfy(\.reproduced), "\(reproductions.map(\.outcome))")
    }

    /// State in file-level locals (a counter, a cart) survives the restart between branches; exploration
    /// must not carry it from one branch into the next. Every finding is one a user can reach: its test,
    /// run in a fresh runtime, fails the same way.
    @Test func stateInFileLevelLocalsGivesNoFalseFindings() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("shop.lua", """
            local flow = require "coordinator"
            local cart = {}
            local visits = 0
            flow.screen "Shop" { outputs = { "add", "checkout", "browse" } }
            flow.screen "Aisle" { outputs = {} }
            local Main = flow.coordinator "Main"
            function Main:start()
              local shop = self.router:push("Shop")
              shop.onAdd = function() cart[#cart + 1] = "item" end
              shop.onCheckout = function() if #cart >= 3 then error("too many items: " .. #cart) end end
              shop.onBrowse = function()
                visits = visits + 1
                if visits > 1 then error("browsed twice") end
                self.router:push("Aisle")
              end
            end
            flow.app { authorization = Main }
            """)
        let report = try Self.explore(script) { $0.depth = 6 }
        let text = report.text
        #expect(report.errors.map(\.path.count).sorted() == [3, 4], "\(text)")
        #expect(report.errors.contains { $0.message.contains("too many items: 3") && $0.path.suffix(1) == [.tap("checkout", payload: nil)] }, "\(text)")
        #expect(report.errors.contains { $0.message.contains("browsed twice") && $0.path == [.tap("browse", payload: nil), .back, .tap("browse", payload: nil)] }, "\(text)")
        #expect(report.freshRuntimes > 0)
        let tests = try folder.write("shop_explore_test.lua", report.testFile(app: script))
        let reproductions = try report.reproduce(testFile: tests, timeLimit: 5)
        #expect(reproductions.count == report.reproducible.count && reproductions.allSatisfy(\.reproduced), "\(reproductions.map(\.outcome))")
    }

    /// From a snapshot taken two steps in, the same states as from the start: every state of the app is
    /// reachable from there (log out, log in again), and exact states make the two searches agree.
    @Test func fromASnapshotTheSameStatesAsFromTheStart() throws {
        let script = repositoryRoot + "/scripts/app.lua"
        let runtime = try ScriptRuntime()
        try runtime.load(script: script)
        try runtime.start()
        try runtime.app.perform(.tap("login", payload: ["name": "Ann", "password": "secret"]))
        try runtime.app.perform(.tap("selectCity", payload: nil))
        let snapshot = try runtime.snapshot()
        // The login's password is secret: the snapshot does not hold it, the exploration is given it.
        let restored = try Self.explore(script) { $0.base = .snapshot(snapshot); $0.secrets = ["password": "secret"]; $0.depth = 60 }
        let start = try Self.explore(script) { $0.depth = 60 }
        #expect(restored.complete && start.complete, "\(restored.text)")
        #expect(restored.states.count == start.states.count && restored.transitions.count == start.transitions.count, "\(restored.text)")
        #expect(Set(restored.states.map(\.key)) == Set(start.states.map(\.key)))
    }

    /// A coordinator class's `__view` stands for its `self`: a counter capped at 2 gives a bounded search,
    /// and the report says the result is the view's, not every reachable state.
    @Test func aViewBoundsTheSearchAndTheReportSaysSo() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("counter.lua", Self.counter(view: "function Main:__view() return math.min(self.count, 2) end"))
        let report = try Self.explore(script) { $0.depth = 60 }
        #expect(report.states.count == 3 && report.reachedFixedPoint && report.viewed && !report.complete, "\(report.text)")
        #expect(report.text.contains("every state of the app's view"), "\(report.text)")
        #expect(!report.text.contains("every reachable state"))
    }

    /// Every limit that cuts the search is named, with the states it left.
    @Test func theReportNamesTheLimitThatCutTheSearch() throws {
        let byStates = try Self.explore(repositoryRoot + "/examples/shop.lua") { $0.maxStates = 20 }
        #expect(byStates.states.count == 20 && byStates.text.contains("stopped at the state limit (20): "), "\(byStates.text)")
        #expect(byStates.unexpanded > 0 && !byStates.complete)
        #expect(byStates.text.hasSuffix("no errors, no lifecycle violations, no property violated in the states explored"), "\(byStates.text)")
        let byTime = try Self.explore(repositoryRoot + "/examples/shop.lua") { $0.timeLimit = 0 }
        #expect(byTime.cutByTime && byTime.text.contains("stopped at the time limit (0.0 s): 1 state found and not expanded"), "\(byTime.text)")
        let complete = try Self.explore(repositoryRoot + "/examples/tabs.lua")
        #expect(complete.complete && complete.text.contains("every reachable state") && complete.unexpanded == 0)
    }

    /// Progress comes as the search goes: states and transitions only grow, and the frontier is what is left.
    @Test func progressIsHeardAsTheSearchGoes() throws {
        let explorer = try Self.explorer(repositoryRoot + "/scripts/app.lua") { $0.progressEvery = 10 }
        var heard: [Explorer.Progress] = []
        explorer.progress = { heard.append($0) }
        let report = try explorer.run()
        #expect(heard.count == 5, "\(heard.map(\.states))")
        #expect(zip(heard, heard.dropFirst()).allSatisfy { $0.states <= $1.states && $0.transitions < $1.transitions })
        #expect(heard.allSatisfy { $0.states <= report.states.count && $0.frontier >= 0 && $0.frontier < $0.states })
    }

    /// A handler that keeps data from outside its steps (the clock) cannot be explored by its steps: the
    /// explorer says so instead of reporting states it cannot reach again.
    @Test func anAppThatDependsOnTheClockIsRefused() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("clock.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "stamp", "next" } }
            flow.screen "Next" {}
            local Main = flow.coordinator "Main"
            function Main:start()
              local home = self.router:push("Home")
              home.onStamp = function() self.at = os.clock() end
              home.onNext = function() self.router:push("Next") end
            end
            flow.app { authorization = Main }
            """)
        let failure = #expect(throws: ExploreFailure.self) { _ = try Self.explore(script) }
        #expect("\(failure.map { "\($0)" } ?? "")".contains("depends on more than its steps"))
    }

    /// A finding whose test does not fail the same way in a fresh runtime is the explorer's fault: it
    /// leaves the app's findings and is reported as such.
    @Test func aFindingThatDoesNotReproduceIsTheExplorersFault() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("broken.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "fail" } }
            local Main = flow.coordinator "Main"
            function Main:start() self.router:push("Home").onFail = function() error("it fails") end end
            flow.app { authorization = Main }
            """)
        var report = try Self.explore(script)
        #expect(report.errors.count == 1 && report.deadEnds.count == 1 && report.failed)
        // A test file whose error test passes: it does not reproduce the finding.
        let tests = try folder.write("broken_explore_test.lua", report.testFile(app: script).replacingOccurrences(of: "  tap(\"fail\")\n", with: ""))
        let reproductions = try report.reproduce(testFile: tests, timeLimit: 5)
        #expect(reproductions.map(\.reproduced) == [false, true] && reproductions.first?.outcome == "its test passed", "\(reproductions.map(\.outcome)) \((try? String(contentsOfFile: tests, encoding: .utf8)) ?? "")")
        report.withdraw(reproductions)
        #expect(report.errors.isEmpty && report.deadEnds.count == 1 && !report.failed && report.unreproduced.count == 1)
        #expect(report.text.contains("explorer faults (findings whose tests did not fail the same way in a fresh runtime: not the app's): 1"), "\(report.text)")
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
            result.outcome.failure?.message ?? "passed"
        }
        #expect(messages[0].contains("no cities for South"), "\(messages)")
        #expect(messages[1].contains("Ghost") && messages[1].contains("shows no screen"), "\(messages)")
        #expect(messages[2].contains("nothing handles close on About"), "\(messages)")
        #expect(messages[3].contains("there is nothing to go back to"), "\(messages)")
    }

    /// A workforce that answers a level's batches last first, as when the first batch's worker is the
    /// slowest, and sends every request and answer through the wire's lines.
    struct Backwards: ExploreWorkforce {
        let explorer: Explorer
        func expand(_ batches: [[ExploreRequest]], take: (Int, [Explorer.Expansion]) throws -> Bool) throws {
            let answers = try batches.map { batch in
                try batch.map { try Explorer.Expansion(answer: explorer.answer(try ExploreRequest(line: $0.line))) }
            }
            for i in answers.indices.reversed() { guard try take(i, answers[i]) else { return } }
        }
    }

    /// The order of the merge is the whole rule: batches answered in any order, through the wire, give the
    /// one process's report — the same states with the same paths, transitions and findings, and the same
    /// cuts at the state limit and for `--max-pending`, the same properties broken (an invariant, a trap).
    @Test func batchesAnsweredInAnyOrderGiveTheOneProcesssReport() throws {
        let folder = try TemporaryDirectory()
        let faults = try folder.write("faults.lua", explorationFaultsApp)
        let poll = try folder.write("poll.lua", Self.pollingApp)
        let negative = try folder.write("shop-negative.lua", FlowPropertyTests.negativeTotal)
        let trap = try folder.write("shop-trap.lua", FlowPropertyTests.trap)
        for (script, depth, maxStates, maxPending) in [(negative, 7, 10_000, 2), (trap, 6, 10_000, 2),(repositoryRoot + "/scripts/app.lua", 12, 10_000, 2), (faults, 5, 10_000, 2),
                                                       (repositoryRoot + "/examples/shop.lua", 6, 10_000, 2), (repositoryRoot + "/examples/shop.lua", 6, 30, 2),
                                                       (poll, 12, 10_000, 3)] {
            let configure: (inout Explorer.Options) -> Void = { $0.depth = depth; $0.maxStates = maxStates; $0.maxPending = maxPending }
            let one = try Self.explore(script, configure)
            let explorer = try Self.explorer(script, configure)
            let levels = ExploreLevels(explorer: explorer)
            let shared = try levels.run(workforce: Backwards(explorer: explorer), workers: 3)
            #expect(shared.text == one.text, "\(shared.text)\n---\n\(one.text)")
            #expect(shared.fingerprint == one.fingerprint && shared.unexpanded == one.unexpanded, "\(script)")
            #expect(shared.states.map(\.path) == one.states.map(\.path))
            #expect(shared.properties.map(\.status) == one.properties.map(\.status) && shared.invariantViolations.map(\.path) == one.invariantViolations.map(\.path))
        }
    }

    /// A screen that a step took away and that something still holds is found at the end of the state's
    /// expansion, with the step that left it as its path, also when the app keeps data a restart does not
    /// reset (the explorer then replays in fresh runtimes, and what the old runtime left alive is looked
    /// for before it goes); its test fails the same way in a fresh runtime.
    @Test func aScreenLeftAliveIsFoundWithTheStepThatLeftIt() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("faults.lua", explorationFaultsApp)
        let report = try Self.explore(script) { $0.depth = 5 }
        let leak = report.violations.first { $0.message.contains("screen About left at tap(\"close\") but is still alive") }
        #expect(leak?.path == [.tap("about", payload: nil), .tap("close", payload: nil)], "\(report.text)")
        #expect(report.freshRuntimes > 0)
        // Findings name objects by type: an id counts the objects a runtime made, whatever it did before.
        #expect(!report.text.contains("#"), "\(report.text)")
        let tests = try folder.write("faults_explore_test.lua", report.testFile(app: script))
        let reproductions = try report.reproduce(testFile: tests, timeLimit: 5)
        #expect(reproductions.count == 5 && reproductions.allSatisfy(\.reproduced), "\(reproductions.map(\.outcome))")
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
        let report = try Self.explore(script) { $0.stepTimeLimit = 1 } // a second: the other steps fit in it on a loaded machine
        #expect(report.errors.count == 1 && report.errors.first?.message.hasPrefix("\(script):5: timed out") == true)
        #expect(report.states.count == 2 && report.reachedFixedPoint)
        let routes = try RouteCheck.run(script: script, timeLimit: 1)
        #expect(routes.first?.failure?.hasSuffix("loop.lua:5: timed out") == true)
        // A base that never arrives times out too; a report from a link starts its tests by opening it.
        let stuck = #expect(throws: RouteError.self) { _ = try Self.explore(script) { $0.base = .link("loop://spin"); $0.stepTimeLimit = 1 } }
        #expect(stuck?.code == .stepFailed)
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
        #expect(json["start"]?.stringValue == graph.start && graph.start == "n1")
    }

    /// The source app's graph: a start, its two gateway states as groups, the alert by its title, and the
    /// two logins with the password masked; coverage colours the alert a test answered, and a
    /// modal keeps its rounded shape (one `style`).
    @Test func theGraphShowsStartGatewaysAlertsAndWhichPayloadGoesWhere() throws {
        let report = try Self.explore(repositoryRoot + "/scripts/app.lua")
        let graph = FlowGraph(report, tested: ["Login", "Alert: Login failed"])
        let mermaid = graph.mermaid
        #expect(mermaid.contains("subgraph gw1[\"gateway: authorization\"]") && mermaid.contains("subgraph gw2[\"gateway: main\"]"), "\(mermaid)")
        #expect(mermaid.contains("start((start)) --> n1"))
        #expect(mermaid.contains("([\"Alert: Login failed\"])"))
        // The password is secret: drawn masked, never as typed.
        #expect(mermaid.contains("|\"login {name = #quot;Ann#quot;, password = #quot;•••#quot;}\"|") && !mermaid.contains("wrong"), "\(mermaid)")
        let alert = try #require(graph.nodes.first { $0.screen == "Alert: Login failed" })
        #expect(alert.tested == true && alert.inModal)
        #expect(graph.dot.contains("[label=\"Alert: Login failed\", style=\"rounded,filled\", peripheries=2, fillcolor=\"#c8f7c5\"];"), "\(graph.dot)")
        #expect(graph.dot.contains("start -> n1;") && graph.dot.contains("subgraph cluster_gateway_2"))
    }

    /// An item read by a field (`label = "subject"`) names the edges it leads along.
    @Test func anItemsLabelNamesItsEdge() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("inbox.lua", """
            local flow = require "coordinator"
            flow.screen "Inbox" { inputs = { "messages" }, outputs = { open = { from = "messages", label = "subject" } } }
            flow.screen "Message" { inputs = { "text" } }
            flow.screen "Draft" { inputs = { "text" } }
            local App = flow.coordinator "App"
            function App:start()
              local s = self:push("Inbox", { messages = { { id = 1, subject = "Hello", draft = false }, { id = 2, subject = "Plans", draft = true } } })
              s.onOpen = function(m) self:push(m.draft and "Draft" or "Message", { text = m.subject }) end
            end
            flow.app(App)
            """)
        let report = try Self.explore(script) { $0.depth = 2 }
        #expect(report.itemLabels == ["Inbox.open": "subject"])
        let labels = FlowGraph(report).edges.filter { $0.kind == .output }.map(\.label).sorted()
        #expect(labels == ["open Hello", "open Plans"], "\(labels)")
    }

    /// An output that changes only data is drawn as a loop on its screen, not left out.
    @Test func anOutputThatChangesOnlyDataIsALoop() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("loop.lua", Self.counter())
        let graph = FlowGraph(try Self.explore(script) { $0.depth = 3 })
        #expect(graph.edges.map { [$0.from, $0.to, $0.label, $0.kind.rawValue] } == [["n1", "n1", "add", "output"]])
    }

}
