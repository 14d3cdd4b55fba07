import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// Pages of child flows (a `UIPageViewController`): the user swipes between them, a flow shows one, each
/// flow hears its page shown; a host's router sees them set and selected; a snapshot restores them.
@Suite struct PageTests {
    static let app = """
        local flow = require "coordinator"
        flow.screen "A" { outputs = { "next", "done" } }
        flow.screen "B" { outputs = { "first" } }
        shown = {}
        local One = flow.coordinator "One"
        function One:start() self:push("A").onNext = function() self:push("A") end end
        function One:onPageSelected() table.insert(shown, "One") end
        local Two = flow.coordinator "Two"
        function Two:start() self:push("B").onFirst = function() self:selectPage(1) end end
        function Two:onPageSelected() table.insert(shown, "Two") end
        local Home = flow.coordinator "Home"
        function Home:start()
          flows = self:setPages { { "One", One }, { "Two", Two } }
          home = self
        end
        flow.app(Home)
        """

    static func runtime(router: ((Application) -> any Router)? = nil) throws -> ScriptRuntime { try startedApp(app, router: router) }

    @Test func theUserSwipesBetweenPagesEachWithItsOwnStack() throws {
        let runtime = try Self.runtime()
        let app = runtime.app
        #expect(try runtime.lua.evaluate("return #flows", as: Int.self) == 2)
        try app.tap("next")
        #expect(app.window.visibleStack.map(\.name) == ["A", "A"])
        try runtime.run("swipe('left')", name: "=test")
        #expect(app.window.visibleStack.map(\.name) == ["B"])
        #expect(app.window.visiblePages?.selectedIndex == 1)
        let before = app.stateDescription
        for (line, message) in [
            ("swipe('left')", "test:1: there is no page after Two (pages: One, Two)"),
            ("swipeTo(3)", "test:1: there is no page 3 (pages: One, Two)"),
            ("swipeTo('Three')", "test:1: there is no page titled 'Three' (pages: One, Two)"),
            ("swipe('up')", "test:1: bad argument #1 to 'swipe' (\"left\" (the next page) or \"right\" (the previous one) expected, got 'up')"),
            ("tab(1)", "test:1: no tab bar is showing"),
        ] {
            let error = luaError { try runtime.run(line, name: "=test") }
            #expect(error?.message == message, "\(line): \(error?.message ?? "no error")")
            #expect(app.stateDescription == before)
        }
        try runtime.run("swipe('right')", name: "=test")
        #expect(app.window.visibleStack.map(\.name) == ["A", "A"])
        #expect(app.steps.suffix(2) == [.swipeTo(1), .swipeTo(0)])
        #expect(UserStep.swipeTo(1).luaSource == "swipeTo(2)")
    }

    /// A page's flow shows another page; each flow hears its own page shown (not the first, shown at once).
    @Test func aFlowSelectsAPageAndEachHearsItsOwn() throws {
        let runtime = try Self.runtime()
        try runtime.run("swipeTo('Two')", name: "=test")
        try runtime.app.tap("first")
        #expect(runtime.app.window.visiblePages?.selectedIndex == 0)
        #expect(try runtime.lua.evaluate("return shown", as: [String].self) == ["Two", "One"])
        let error = luaError { try runtime.run("home:selectPage(5)", name: "=test") }
        #expect(error?.message == "test:1: there is no page 5 (pages: One, Two)")
    }

    @Test func aHostsRouterSeesThePagesSetAndSelected() throws {
        let log = RecordingRouter.Log()
        let runtime = try Self.runtime { app in RecordingRouter(app.headlessRouter(), log: log) }
        try runtime.run("swipeTo(2)", name: "=test")
        try runtime.app.tap("first")
        #expect(log.lines == ["Home: set Pages[One, Two] unanimated", "One: push A", "Two: push B", "Two: select page 1"], "\(log.lines)")
    }

    /// A snapshot holds the pages and the swipes that led there; a restore in a fresh runtime rebuilds them.
    @Test func aSnapshotRestoresThePages() throws {
        let runtime = try Self.runtime()
        try runtime.app.tap("next")
        try runtime.run("swipe('left')", name: "=test")
        let json = try runtime.snapshot()
        let document = try FlowValue(json: json)
        #expect(document["window"]?["root"]?["pages"]?.listValue?.count == 2)
        #expect(document["window"]?["root"]?["selected"] == 2)
        #expect(document["steps"]?.listValue?.last == ["page": 2])
        let fresh = try Self.runtime()
        try fresh.restore(json)
        #expect(fresh.app.window.hierarchyDescription.replacing(/#\d+/, with: "") == runtime.app.window.hierarchyDescription.replacing(/#\d+/, with: ""))
        #expect(fresh.app.window.visiblePages?.selectedIndex == 1)
    }

    @Test func aPageEntryIsChecked() throws {
        let runtime = try Self.runtime()
        for (entries, message) in [
            ("{ { 'A', One, title = 'x' } }", "a page's entries have no 'title' (they take: \"Title\", Class [, args], in that order)"),
            ("{ { 'A' } }", "bad argument #1 to 'setPages' (pages are { \"Title\", CoordinatorClass [, args] })"),
            ("{}", "pages need at least one title, and one coordinator per title"),
        ] {
            let before = runtime.app.stateDescription
            let error = luaError { try runtime.run("One = require('coordinator').coordinator 'One2' home:setPages \(entries)", name: "=line") }
            #expect(error?.message == "line:1: " + message, "\(entries): \(error?.message ?? "no error")")
            #expect(runtime.app.stateDescription == before)
        }
    }
}
