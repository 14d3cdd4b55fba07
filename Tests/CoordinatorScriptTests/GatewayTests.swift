import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// The gateway's flows as real apps have them: a main flow with a tab bar (its own, or a child's, or on a
/// modal) that the user signs out of and into again, as often as they like.
@Suite struct GatewayTests {
    static let app = """
        local flow = require "coordinator"
        flow.screen "Login" { outputs = { "signIn" } }
        flow.screen "Feed" { outputs = { "logout", "compose" } }
        flow.screen "Profile" { outputs = { "logout" } }
        flow.screen "Compose" { outputs = { "logout", "expire" } }
        local main
        local function logout() flow.gateway.state = "authorization" main:finish() end

        local Login = flow.coordinator "Login"
        function Login:start()
          local s = self:setRoot("Login")
          s.onSignIn = function() flow.gateway.state = "main" self:finish() end
        end

        local Compose = flow.coordinator "Compose"
        function Compose:start()
          self:setTabs { { "Compose", Compose.Page } }
        end
        Compose.Page = flow.coordinator "ComposePage"
        function Compose.Page:start()
          local s = self:push("Compose")
          s.onLogout = logout
          s.onExpire = function() flow.restart("authorization") end
        end

        local FeedFlow = flow.coordinator "FeedFlow"
        function FeedFlow:start()
          local s = self:push("Feed")
          s.onLogout = logout
          s.onCompose = function() self:run(Compose, nil, { modal = true }) end
        end
        local ProfileFlow = flow.coordinator "ProfileFlow"
        function ProfileFlow:start() self:push("Profile").onLogout = logout end

        local Tabs = flow.coordinator "Tabs"
        function Tabs:start() self:setTabs { { "Feed", FeedFlow }, { "Profile", ProfileFlow } } end

        local Main = flow.coordinator "Main"
        function Main:start()
          main = self
          if TABS_IN_CHILD then self:run(Tabs) else Tabs.start(self) end
        end

        flow.app { authorization = Login, main = Main }
        """

    static func runtime(state: String = "authorization", tabsInChild: Bool = false) throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(state: AppState(state), driverFunctions: true)
        try runtime.run("TABS_IN_CHILD = \(tabsInChild)")
        try runtime.run(app, name: "=app")
        try runtime.start()
        return runtime
    }

    @Test(arguments: [false, true])
    func aTabBarMainFlowSignsOutAndInAgainTenTimes(tabsInChild: Bool) throws {
        let runtime = try Self.runtime(tabsInChild: tabsInChild)
        let app = runtime.app
        for round in 1...10 {
            try app.tap("signIn")
            #expect(app.window.visibleStack.map(\.name) == ["Feed"], "round \(round)")
            #expect(app.visibleTabs?.titles == ["Feed", "Profile"])
            if round.isMultiple(of: 2) { try app.selectTab(1) }
            try app.tap("logout")
            #expect(app.window.visibleStack.map(\.name) == ["Login"], "round \(round): \(app.window.hierarchyDescription)")
            #expect(app.visibleTabs == nil)
            #expect(app.gateway.state == .authorization)
        }
        // Nothing piles up: one flow runs, showing one screen.
        #expect(app.root?.children.count == 1)
        #expect(app.window.allScreens.map(\.name) == ["Login"])
    }

    @Test func startedInMainItSignsOutToo() throws {
        let runtime = try Self.runtime(state: "main")
        try runtime.app.tap("logout")
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Login"])
        try runtime.app.tap("signIn")
        #expect(runtime.app.visibleTabs?.titles == ["Feed", "Profile"])
    }

    /// A modal flow that set tabs on its own stack: signing out from inside it ends everything, and the
    /// modal goes with the flow that set its tabs.
    @Test func signingOutFromTabsOnAModalEndsTheModalToo() throws {
        let runtime = try Self.runtime()
        let app = runtime.app
        try app.tap("signIn")
        try app.tap("compose")
        #expect(app.window.modals.count == 1 && app.window.visibleScreen?.name == "Compose")
        try app.tap("logout")
        #expect(app.window.modals.isEmpty)
        #expect(app.window.visibleStack.map(\.name) == ["Login"])
        try app.tap("signIn")
        try app.tap("compose")
        #expect(app.window.visibleScreen?.name == "Compose" && app.window.modals.count == 1)
    }

    /// A sign-out that fails after the tabs gave their place back is undone whole: the tabs are back.
    @Test func aFailedSignOutLeavesTheTabs() throws {
        let runtime = try Self.runtime()
        try runtime.app.tap("signIn")
        let before = runtime.app.stateDescription
        try runtime.run("""
            local flow = require "coordinator"
            local Login = flow.coordinator "Login"
            function Login:start() error("the sign-in screen is broken") end
            """, name: "=break")
        #expect(throws: LuaError.self) { try runtime.app.tap("logout") }
        #expect(runtime.app.stateDescription == before)
        #expect(runtime.app.visibleTabs?.titles == ["Feed", "Profile"])
    }

    /// `flow.restart(state)` tears the whole tree down (the flows hear nothing) and starts that state's
    /// flow in one step, as often as it is called; a snapshot taken after it restores to the same place.
    @Test func flowRestartStartsTheGatewaysFlowAgain() throws {
        let runtime = try Self.runtime()
        let app = runtime.app
        for _ in 1...10 {
            try app.tap("signIn")
            try app.tap("compose")
            try app.tap("expire")
            #expect(app.window.modals.isEmpty && app.window.visibleStack.map(\.name) == ["Login"])
            #expect(app.gateway.state == .authorization)
        }
        #expect(app.root?.children.count == 1)
        try app.tap("signIn")
        #expect(app.visibleTabs?.titles == ["Feed", "Profile"])
        func withoutIDs(_ text: String) -> String { text.replacing(/#[0-9]+/, with: "#") }
        let before = withoutIDs(app.stateDescription)
        let fresh = try Self.runtime()
        try fresh.restore(try runtime.snapshot())
        #expect(withoutIDs(fresh.app.stateDescription) == before)
    }

    /// `flow.app(Class)`: a root flow that finishes starts again with its result, as the gateway's flows
    /// do, instead of leaving an empty window.
    @Test func aRootFlowThatFinishesStartsAgain() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.run("""
            local flow = require "coordinator"
            flow.screen "Welcome" { inputs = { "visits" }, outputs = { "done" } }
            local Root = flow.coordinator "Root"
            function Root:start(visits)
              local s = self:setRoot("Welcome", { visits = (visits or 0) + 1 })
              s.onDone = function() self:finish(s.visits) end
            end
            flow.app(Root)
            """, name: "=root")
        try runtime.start()
        for visits in 2...5 {
            try runtime.app.tap("done")
            #expect(runtime.app.window.visibleScreen?["visits"] == .int(visits))
        }
    }
}
