import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// Pages and splits inside a tab, as UIKit apps have them: a tab's flow puts them where its tab's stack
/// was, the tab bar shows over them, Back and swipes work inside them, snapshots keep them and a link
/// reaches a flow in one of them.
@Suite struct ContainerInTabTests {
    static let app = """
        local flow = require "coordinator"
        flow.screen "Feed" { outputs = { "open", "nested", "broken" } }
        flow.screen "Trending" { outputs = { "open" } }
        flow.screen "Latest" {}
        flow.screen "Topic" {}
        flow.screen "Folders" { outputs = { "open" } }
        flow.screen "Mail" {}
        flow.screen "Empty" {}
        local Trending = flow.coordinator "Trending"
        function Trending:start() self:push("Trending").onOpen = function() self:push("Topic") end end
        local Latest = flow.coordinator "Latest"
        function Latest:start() self:push("Latest") end
        local Discover = flow.coordinator "Discover"
        function Discover:start() self:setPages { { "Trending", Trending }, { "Latest", Latest } } end
        local Folders = flow.coordinator "Folders"
        function Folders:start() self:push("Folders").onOpen = function() self:showDetail("Mail") end end
        local Detail = flow.coordinator "Detail"
        function Detail:start() self:push("Empty") end
        local Inbox = flow.coordinator "Inbox"
        function Inbox:start() self:setSplit { primary = { Folders }, secondary = { Detail } } end
        local Feed = flow.coordinator "Feed"
        function Feed:start()
          local feed = self:push("Feed")
          feed.onOpen = function() self:push("Topic") end
          feed.onNested = function() self:setTabs { { "A", Latest } } end
          feed.onBroken = function() self:setPages { { "Latest", Latest } } error("after the pages") end
        end
        local Tabs = flow.coordinator "Tabs"
        function Tabs:start() self:setTabs { { "Feed", Feed }, { "Discover", Discover }, { "Inbox", Inbox } } end
        flow.app(Tabs)
        flow.route("app://latest", { from = "Latest", { on = "Latest" } })
        """

    static func runtime() throws -> ScriptRuntime { try startedAppFile(app) }

    func stack(_ runtime: ScriptRuntime) -> [String] { runtime.app.window.visibleStack.map(\.name) }

    @Test func pagesInATabSwipeAndGoBackInsideTheTab() throws {
        let runtime = try Self.runtime()
        let app = runtime.app
        try app.selectTab(1)
        #expect(app.visibleTabs?.selectedIndex == 1)
        #expect(app.window.visiblePages?.titles == ["Trending", "Latest"])
        #expect(stack(runtime) == ["Trending"])
        try app.tap("open")
        #expect(stack(runtime) == ["Trending", "Topic"])
        try app.back()
        try app.swipe(toPage: 1)
        #expect(stack(runtime) == ["Latest"])
        // Another tab and back: the page chosen stays.
        try app.selectTab(0)
        #expect(app.window.visiblePages == nil && stack(runtime) == ["Feed"])
        try app.selectTab(1)
        #expect(stack(runtime) == ["Latest"])
        #expect(app.window.hierarchyDescription.contains("tab Discover (selected): Pages"), "\(app.window.hierarchyDescription)")
    }

    @Test func aSplitInATabCollapsesAndExpandsWithTheWindow() throws {
        let runtime = try Self.runtime()
        let app = runtime.app
        try app.selectTab(2)
        #expect(app.window.visibleSplit != nil)
        try app.tap("open")
        #expect(app.window.tappableScreens.map(\.name) == ["Mail", "Folders"])
        try app.setSizeClass(.compact)
        #expect(app.window.visibleSplit == nil && stack(runtime) == ["Folders", "Mail"])
        try app.back()
        #expect(stack(runtime) == ["Folders"])
        try app.setSizeClass(.regular)
        #expect(app.window.visibleSplit != nil)
    }

    @Test func aSnapshotKeepsTheContainersInTabsAndTheirSelection() throws {
        let runtime = try Self.runtime()
        try runtime.run("tab(2) swipe('left') tab(3) tap('open') tab(1)", name: "=test")
        let snapshot = try runtime.snapshot()
        let root = try FlowValue(json: snapshot)["window"]?["root"]
        #expect(root?["tabs"]?.listValue?[1]["pages"]?.listValue?.count == 2)
        #expect(root?["tabs"]?.listValue?[1]["selected"] == 2)
        #expect(root?["tabs"]?.listValue?[2]["split"]?["secondary"]?["stack"]?.listValue?.first?["type"] == "Mail")
        let key = try runtime.stateIdentity().key
        try runtime.run("tab(2) swipe('right') tab(1)", name: "=test")
        #expect(try runtime.stateIdentity().key != key, "the page shown in a tab is part of the state")
        try runtime.restore(snapshot)
        #expect(try runtime.snapshot() == snapshot)
        #expect(try runtime.stateIdentity().key == key)
        try runtime.app.selectTab(1)
        #expect(stack(runtime) == ["Latest"])
    }

    @Test func aTabBarInsideATabIsRefusedAndAFailedStepTakesThePagesBack() throws {
        let runtime = try Self.runtime()
        let before = try runtime.snapshot()
        let error = #expect(throws: LuaError.self) { try runtime.app.tap("nested") }
        #expect(error?.message.contains("Feed runs in tab Feed: a tab holds pages or a split, not another tab bar") == true, "\(error?.message ?? "")")
        #expect(throws: LuaError.self) { try runtime.app.tap("broken") }
        #expect(try runtime.snapshot() == before)
        #expect(runtime.app.visibleTabs?.contents.isEmpty == false) // Discover's and Inbox's, not Feed's
        #expect(runtime.app.visibleTabs?.contents[0] == nil)
        #expect(stack(runtime) == ["Feed"])
    }

    @Test func aLinkToAFlowInAPageOfATabSelectsBoth() throws {
        let runtime = try Self.runtime()
        try runtime.app.tap("open")
        try runtime.open("app://latest")
        #expect(runtime.app.visibleTabs?.selectedIndex == 1)
        #expect(runtime.app.window.visiblePages?.selectedIndex == 1)
        #expect(stack(runtime) == ["Latest"])
        try runtime.app.selectTab(0)
        #expect(stack(runtime) == ["Feed", "Topic"], "the other tab's stack is untouched")
    }
}
