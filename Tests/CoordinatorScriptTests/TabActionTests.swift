import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// Tabs that act (a Compose tab: a button in the tab bar that selects nothing) and a flow that hears its
/// tab become the selected one.
@Suite struct TabActionTests {
    static let app = """
        local flow = require "coordinator"
        flow.screen "Feed" {}
        flow.screen "Compose" { outputs = { "send" } }
        flow.screen "Profile" {}
        selections = {}
        local Feed = flow.coordinator "Feed"
        function Feed:start() self:push("Feed") end
        function Feed:onTabSelected() table.insert(selections, "Feed") end
        local Profile = flow.coordinator "Profile"
        function Profile:start() self:push("Profile") end
        function Profile:onTabSelected() table.insert(selections, "Profile") end
        local Compose = flow.coordinator "Compose"
        function Compose:start() self:push("Compose").onSend = function() self:finish() end end
        local Main = flow.coordinator "Main"
        function Main:start()
          flows = self:setTabs {
            { "Feed", Feed },
            { "Compose", action = function() self:run(Compose, nil, { modal = true }) end },
            { "Profile", Profile },
          }
          main = self
        end
        flow.app(Main)
        flow.route("t://profile", { from = "current", { tab = "Profile" } })
        """

    static func runtime() throws -> ScriptRuntime { try startedApp(app) }

    @Test func aTabThatActsRunsItsActionAndSelectsNothing() throws {
        let runtime = try Self.runtime()
        let app = runtime.app
        #expect(try runtime.lua.evaluate("return #flows", as: Int.self) == 2) // one per flow entry, in order
        #expect(try runtime.lua.evaluate("return tostring(flows[2])", as: String.self).hasPrefix("Profile#"))
        let tabs = try #require(app.visibleTabs)
        #expect(tabs.titles == ["Feed", "Compose", "Profile"] && tabs.isAction(1) && !tabs.isAction(0))
        var events: [String] = []
        _ = app.observe { events.append($0.description) }
        try runtime.run("tab(2)", name: "=test")
        #expect(app.window.visibleStack.map(\.name) == ["Feed", "Compose"])
        #expect(tabs.selectedIndex == 0)
        #expect(events.first == "user taps tab 2 (an action)", "\(events)")
        try app.tap("send")
        try runtime.run("tab('Compose')", name: "=test")
        #expect(app.window.modals.count == 1)
        try app.tap("send")
        // Code cannot select it: it is a button.
        let before = app.stateDescription
        let error = luaError { try runtime.run("main:selectTab(2)", name: "=test") }
        #expect(error?.message == "test:1: tab 2 (Compose) is an action, not a tab to select: the user taps it", "\(error?.message ?? "no error")")
        #expect(app.stateDescription == before)
    }

    /// `onTabSelected` runs whenever the flow's tab becomes the selected one: the user, a coordinator's
    /// `selectTab`, a link; not for the tab shown first, nor when the selected tab is chosen again.
    @Test func aFlowHearsItsTabBecomeTheSelectedOne() throws {
        let runtime = try Self.runtime()
        func selections() throws -> [String] { try runtime.lua.evaluate("return selections", as: [String].self) }
        #expect(try selections().isEmpty)
        try runtime.run("tab(3)", name: "=test")
        try runtime.run("tab(3)", name: "=test")
        try runtime.run("main:selectTab(1)", name: "=test")
        try runtime.open("t://profile")
        try runtime.run("tab(2)", name: "=test") // the action: no tab selected
        #expect(try selections() == ["Profile", "Feed", "Profile"])
    }

    @Test func aTabEntryIsAFlowOrAnAction() throws {
        let runtime = try Self.runtime()
        for (entries, message) in [
            ("{ { 'A', action = 3 } }", "bad argument #1 to 'setTabs' (tab 'A': action is a function)"),
            ("{ { 'A', Tab, action = print } }", "bad argument #1 to 'setTabs' (tab 'A' is an action: it takes no coordinator class)"),
            ("{ { 'A', action = print } }", "tabs need at least one tab that is a flow (tabs that are actions select nothing)"),
            ("{ { 'A', Tab, acton = print } }", "a tab's entries have no 'acton' (they take: \"Title\", Class [, args], in that order; or \"Title\", action = function)"),
        ] {
            let before = runtime.app.stateDescription
            let error = luaError { try runtime.run("Tab = require('coordinator').coordinator 'Tab' main:setTabs \(entries)", name: "=line") }
            #expect(error?.message == "line:1: " + message, "\(entries): \(error?.message ?? "no error")")
            #expect(runtime.app.stateDescription == before)
        }
    }
}
