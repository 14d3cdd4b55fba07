import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// Links dispatched to the flow that handles them (`from = "Class"`): the deepest running coordinator of
/// the class, ties to the one started last, brought to the front (the modals above it dismissed, its tab
/// selected), its stack and data untouched.
@Suite struct LinkDispatchTests {
    static let browser = repositoryRoot + "/examples/browser.lua"

    /// Two tabs, each a `Pane`; a pane can run a deeper pane, present a sheet, a locked sheet or an alert.
    static let panes = """
        local flow = require "coordinator"
        flow.screen "Pane" { inputs = { "n" }, outputs = { "deeper", "sheet", "locked", "alert", "detail" } }
        flow.screen "Sheet" {}
        flow.screen "Detail" {}
        flow.screen "Linked" {}
        local Pane = flow.coordinator "Pane"
        function Pane:start(n)
          local pane = self:push("Pane", { n = n })
          pane.onDeeper = function() self:run(Pane, n * 10, { modal = true }) end
          pane.onSheet = function() self:present("Sheet") end
          pane.onLocked = function() self:present("Sheet", nil, { presentation = "fullScreen", dismissable = false }) end
          pane.onAlert = function() self:alert { title = "Sure?", actions = { "OK" } } end
          pane.onDetail = function() self:push("Detail") end
        end
        local Tabs = flow.coordinator "Tabs"
        function Tabs:start() self:setTabs { { "One", Pane, 1 }, { "Two", Pane, 2 } } end
        flow.app(Tabs)
        flow.route("panes://pane", { from = "Pane", { on = "Pane", tap = "detail" } })
        """

    static func runtime(_ script: String? = nil) throws -> ScriptRuntime {
        if let script { return try startedAppFile(script) }
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: browser)
        try runtime.start()
        return runtime
    }

    func stack(_ runtime: ScriptRuntime) -> [String] { runtime.app.window.visibleStack.map(\.name) }

    @Test func aLinkReachesTheRunningFlowOverItsSheetsAndKeepsItsData() throws {
        let runtime = try Self.runtime()
        try runtime.run("tap('go', 'https://example.org') tap('tabTray') tap('newTab') tap('menu') tap('share')", name: "=test")
        #expect(stack(runtime) == ["Browser", "Share"])
        var events: [String] = []
        let observation = runtime.app.observe { events.append("\($0)") }
        defer { observation.cancel() }
        #expect(try runtime.open("firefox://deep-link?url=/settings/privacy") == .opened)
        #expect(stack(runtime) == ["Browser", "Settings", "SettingsSection"])
        // The share sheet went as the user's swipe takes it; the browser was not rebuilt: its tabs stand.
        #expect(events.contains { $0.hasPrefix("system: swipe down") }, "\(events)")
        #expect(events.contains { $0.hasPrefix("finish Share") }, "\(events)")
        #expect(!events.contains { $0.hasPrefix("start Browser") }, "\(events)")
        #expect(runtime.app.window.allScreens.first?["tabs"] == 2)
        #expect(runtime.app.steps.last == .open("firefox://deep-link?url=/settings/privacy"))
        #expect(runtime.app.steps.count == 6, "the link is noted after the steps before it, not in their place")
    }

    @Test func theDeepestFlowOfTheClassIsTheOneBroughtForward() throws {
        let runtime = try Self.runtime(Self.panes)
        // Tab One's pane runs a deeper pane (modal), which presents a sheet: the deeper pane is the one.
        try runtime.run("tap('deeper') tap('sheet')", name: "=test")
        #expect(stack(runtime) == ["Pane", "Pane", "Sheet"])
        try runtime.open("panes://pane")
        #expect(stack(runtime) == ["Pane", "Pane", "Detail"])
        #expect(runtime.app.window.visibleStack[1]["n"] == 10)
    }

    @Test func amongEquallyDeepFlowsTheOneStartedLastWinsAndItsTabIsSelected() throws {
        let runtime = try Self.runtime(Self.panes)
        // Both tabs' panes are equally deep: tab Two's started last. Tab One is selected, a sheet over it.
        try runtime.run("tap('sheet')", name: "=test")
        try runtime.open("panes://pane")
        #expect(runtime.app.visibleTabs?.selectedIndex == 1)
        #expect(stack(runtime) == ["Pane", "Detail"])
        #expect(runtime.app.window.visibleStack.first?["n"] == 2)
        // Tab One's stack was not touched.
        try runtime.app.selectTab(0)
        #expect(stack(runtime) == ["Pane"])
        #expect(runtime.app.window.visibleStack.first?["n"] == 1)
    }

    @Test func aModalThatCannotBeDismissedFailsTheLinkAndLeavesTheAppAsItWas() throws {
        for (setup, refusal) in [("tap('locked')", "Sheet is showing above Pane and was presented with dismissable = false"),
                                 ("tap('alert')", "Alert is showing above Pane: an alert goes only with one of its actions")] {
            let runtime = try Self.runtime(Self.panes)
            try runtime.run(setup, name: "=test")
            let before = try runtime.snapshot()
            let error = #expect(throws: RouteError.self) { try runtime.open("panes://pane") }
            #expect(error?.message.contains(refusal) == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("panes://pane") == true)
            #expect(try runtime.snapshot() == before)
        }
    }

    @Test func aLinkToAFlowThatDoesNotRunFailsNamingIt() throws {
        let runtime = try Self.runtime(Self.panes.replacingOccurrences(of: "from = \"Pane\"", with: "from = \"Tabs\"")
            + "\nflow.coordinator \"Lonely\"\nflow.route(\"panes://lonely\", { from = \"Lonely\" })")
        let before = try runtime.snapshot()
        let error = #expect(throws: RouteError.self) { try runtime.open("panes://lonely") }
        #expect(error?.code == .notRunning)
        #expect(error?.message.contains("starts at Lonely, and no Lonely runs") == true, "\(error?.message ?? "")")
        #expect(try runtime.snapshot() == before)
        // The root flow holds no stack of its own (its tabs took its place): it is brought forward all the same.
        try runtime.run("tap('sheet')", name: "=test")
        try runtime.open("panes://pane")
        #expect(stack(runtime) == ["Pane", "Detail"])
    }

    @Test func routesNamingNoClassOrClassesNamedLikeTheKeywordsAreErrorsAtLoad() throws {
        let folder = try TemporaryDirectory()
        for (script, message) in [
            ("flow.route('x://y', { from = 'Nobody' })", "from = \"Nobody\" names no coordinator class"),
            ("flow.coordinator 'start'", "a coordinator class cannot be named 'start'"),
            ("flow.coordinator 'current'", "a coordinator class cannot be named 'current'"),
        ] {
            let runtime = try ScriptRuntime()
            let source = "local flow = require 'coordinator'\nflow.screen 'Home' {}\nlocal A = flow.coordinator 'A'\nfunction A:start() self:push('Home') end\nflow.app(A)\n" + script
            let error = #expect(throws: LuaError.self) { try runtime.load(script: folder.write("app.lua", source)) }
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("app.lua:6") == true, "\(error?.message ?? "")")
        }
    }

    @Test func aHeldRouteToAFlowIsBroughtForwardOnceTheStateRuns() throws {
        let runtime = try Self.runtime("""
            local flow = require "coordinator"
            flow.screen "Login" { outputs = { "login" } }
            flow.screen "Home" { outputs = { "sheet" } }
            flow.screen "Sheet" {}
            flow.screen "Inbox" {}
            local Login = flow.coordinator "Login"
            function Login:start() self:push("Login").onLogin = function() flow.gateway.state = "main" self:finish() end end
            local Home = flow.coordinator "Home"
            function Home:start() self:push("Home").onSheet = function() self:present("Sheet") end end
            flow.app { authorization = Login, main = Home }
            flow.route("app://inbox", { from = "Home", requires = "main", { on = "Home" } })
            """)
        #expect(try runtime.open("app://inbox") == .held)
        try runtime.app.tap("login")
        #expect(runtime.heldLink == nil)
        #expect(stack(runtime) == ["Home"])
    }
}
