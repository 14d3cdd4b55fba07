import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// A split (a `UISplitViewController`): columns side by side in a regular window, one stack in a compact
/// one; a detail shown by any flow in it; taps that go to the column that has the output.
@Suite struct SplitTests {
    static let app = """
        local flow = require "coordinator"
        flow.screen "List" { inputs = { "items" }, outputs = { open = { from = "items" }, "refresh" } }
        flow.screen "Empty" { outputs = { "refresh" } }
        flow.screen "Detail" { inputs = { "item" }, outputs = { "more" } }
        flow.screen "More" {}
        local Menu = flow.coordinator "Menu"
        function Menu:start()
          self:push("List", { items = { "a", "b" } }).onOpen = function(item)
            self:showDetail("Detail", { item = item }).onMore = function() error("not here") end
          end
        end
        local Side = flow.coordinator "Side"
        function Side:start() self:push("Empty") end
        local Home = flow.coordinator "Home"
        function Home:start() columns = self:setSplit { primary = { Menu }, secondary = { Side } } end
        flow.app(Home)
        """

    static func runtime(router: ((Application) -> any Router)? = nil) throws -> ScriptRuntime { try startedApp(app, router: router) }

    @Test func aTapGoesToTheColumnThatHasTheOutput() throws {
        let runtime = try Self.runtime()
        let app = runtime.app
        #expect(try runtime.lua.evaluate("return tostring(columns.primary):match('^Menu#') ~= nil and tostring(columns.secondary):match('^Side#') ~= nil", as: Bool.self))
        #expect(app.window.visibleScreen?.name == "Empty")
        try app.tap("open", payload: "b")            // only the primary column's List has it
        #expect(app.window.visibleStack.map(\.name) == ["List", "Detail"])
        #expect(app.window.visibleScreen?["item"] == "b")
        let before = app.stateDescription
        // Back in the secondary column stops at its root; an output no column has names them all.
        #expect(throws: NavigationError.self) { try app.back() }
        let unknown = #expect(throws: NavigationError.self) { try app.tap("nope") }
        #expect(unknown?.message == "no column's top screen offers output 'nope' (secondary: Detail, primary: List)", "\(unknown?.message ?? "")")
        #expect(app.stateDescription == before)
        // Both columns' tops have `refresh` once the secondary shows Empty again: a tap by name cannot choose.
        let fresh = try Self.runtime()
        let ambiguous = #expect(throws: NavigationError.self) { try fresh.app.tap("refresh") }
        #expect(ambiguous?.message == "output 'refresh' is on more than one column's top screen (secondary: Empty, primary: List): give one of them another name")
    }

    @Test func aCompactWindowActsAsOneStackAndARotationIsUndoneWithAFailedLine() throws {
        let runtime = try Self.runtime()
        let app = runtime.app
        try app.tap("open", payload: "a")
        try app.setSizeClass(.compact)
        #expect(app.window.hierarchyDescription.hasPrefix("root: Split (compact)"))
        #expect(app.window.tappableScreens.map(\.name) == ["Detail"])
        #expect(throws: NavigationError.self) { try app.tap("open", payload: "a") } // the list is under the detail
        try app.back()
        #expect(app.window.visibleStack.map(\.name) == ["List"])
        #expect(throws: NavigationError.self) { try app.back() }
        // A line that rotates and then fails leaves the window as wide as it was.
        let error = luaError { try runtime.run("sizeClass('regular') error('then it fails')", name: "=line") }
        #expect(error?.message == "line:1: then it fails")
        #expect(app.window.sizeClass == .compact)
        #expect(try runtime.lua.evaluate("return sizeClass()", as: String.self) == "compact")
    }

    @Test func aHostsRouterSeesTheSplitAndTheDetail() throws {
        let log = RecordingRouter.Log()
        let runtime = try Self.runtime { app in RecordingRouter(app.headlessRouter(), log: log) }
        try runtime.app.tap("open", payload: "a")
        #expect(log.lines == ["Home: set Split[primary, secondary] unanimated", "Menu: push List", "Side: push Empty", "Menu: show detail Detail"], "\(log.lines)")
    }

    /// A snapshot holds the width the app started at and the rotations since; a fresh runtime restores both.
    @Test func aSnapshotRestoresTheColumnsAndTheWidth() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.run(Self.app, name: "=app")
        runtime.app.setStartingSizeClass(.compact)
        try runtime.start()
        try runtime.app.back()
        try runtime.app.tap("open", payload: "b")
        try runtime.app.setSizeClass(.regular)
        let json = try runtime.snapshot()
        let document = try FlowValue(json: json)
        #expect(document["start"]?["sizeClass"] == "compact")
        #expect(document["steps"]?.listValue?.last == ["sizeClass": "regular"])
        #expect(document["window"]?["root"]?["split"]?["secondary"]?["stack"]?.listValue?.count == 1)
        let fresh = try ScriptRuntime(driverFunctions: true)
        try fresh.run(Self.app, name: "=app")
        try fresh.restore(json)
        #expect(fresh.app.window.sizeClass == .regular)
        #expect(fresh.app.startSizeClass == .compact)
        #expect(fresh.app.window.visibleStack.map(\.name) == ["List", "Detail"])
    }

    /// A three-column split: the supplementary column between, listed and reachable by name.
    @Test func aSupplementaryColumnSitsBetween() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.run(Self.app.replacingOccurrences(of: "secondary = { Side } }", with: "supplementary = { Side }, secondary = { Side } }"), name: "=app")
        try runtime.start()
        #expect(runtime.app.window.visibleStack.map(\.name) == ["List", "Empty", "Empty"])
        #expect(try runtime.lua.evaluate("return top('supplementary').name", as: String.self) == "Empty")
        #expect(try runtime.lua.evaluate("return columns.supplementary ~= columns.secondary", as: Bool.self))
        try runtime.app.tap("open", payload: "a")
        #expect(runtime.app.window.visibleStack.map(\.name) == ["List", "Empty", "Detail"])
    }

    @Test func aSplitsColumnsAreChecked() throws {
        let runtime = try Self.runtime()
        for (spec, message) in [
            ("{ primary = { Menu } }", "bad argument #1 to 'setSplit' (a split needs a secondary column: { secondary = { Class [, args] } })"),
            ("{ primary = { Menu }, secondary = { Side }, detail = { Side } }", "a split's columns have no 'detail' (they take: primary, secondary, supplementary)"),
            ("{ primary = { Menu, 1, 2 }, secondary = { Side } }", "a split's primary column's entries have no 3 (they take: Class [, args], in that order)"),
        ] {
            let error = luaError { try runtime.run("local flow = require 'coordinator' Menu, Side = flow.coordinator 'M2', flow.coordinator 'S2' columns.primary:setSplit \(spec)", name: "=line") }
            #expect(error?.message.hasSuffix(message) == true, "\(spec): \(error?.message ?? "no error")")
        }
        let noSplit = luaError { try runtime.run("top('supplementary')", name: "=line") }
        #expect(noSplit?.message == "line:1: the split has no supplementary column")
    }
}
