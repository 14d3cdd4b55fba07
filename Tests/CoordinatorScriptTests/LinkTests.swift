import Foundation
import Testing
import CoordinatorCore
import CoordinatorScript
import CoordinatorTools
import CoordinatorLua
import TestSupport

/// Deep links: routes declared in Lua, checked when the scripts load, opened atomically.
@Suite struct LinkTests {
    static let shop = repositoryRoot + "/examples/shop.lua"

    static func shopRuntime() throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: shop)
        try runtime.start()
        return runtime
    }

    @Test func aLinkBuildsTheWholeHierarchyInOneOperation() throws {
        let runtime = try Self.shopRuntime()
        try runtime.app.selectTab(2)
        var events: [NavigationEvent] = []
        var visibleWhenEventsCame: [String?] = []
        let observer = runtime.app.observe { [unowned runtime] event in // unowned: the app keeps the observer
            events.append(event)
            visibleWhenEventsCame.append(runtime.app.window.visibleScreen?.name)
        }
        defer { observer.cancel() }
        try runtime.open("shop://catalog/shoes/42")
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Categories", "Products", "Product"])
        #expect(runtime.app.visibleTabs?.selectedIndex == 0)
        #expect(runtime.app.window.visibleScreen?["product"]?["id"] == "42")
        // One operation: every event is reported once it is over, when the product shows.
        #expect(!events.isEmpty && visibleWhenEventsCame.allSatisfy { $0 == "Product" })
        // The steps record the link, not the taps it made.
        #expect(runtime.app.steps == [.open("shop://catalog/shoes/42")])
        // The handlers on the way are wired: the page's outputs work.
        try runtime.app.tap("buy")
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Categories", "Products", "Product", "Checkout"])
        #expect(runtime.app.root?.children.map(\.name) == ["Catalog", "Cart", "Profile", "Checkout"])
    }

    /// The route a link opens is the first declared whose pattern it matches, literal or parameter, at
    /// any depth; the routes are found through an index, never by trying each.
    @Test func aLinkOpensTheFirstRouteDeclaredThatItMatches() throws {
        let folder = try TemporaryDirectory()
        var lines = ["local flow = require 'coordinator'", "flow.screen 'Home' { outputs = { 'a', 'b', 'c' } }", "flow.screen 'A' {}", "flow.screen 'B' {}", "flow.screen 'C' {}",
                     "local App = flow.coordinator 'App'",
                     "function App:start() local home = self:push('Home') for _, n in ipairs { 'A', 'B', 'C' } do home['on' .. n] = function() self:push(n) end end end",
                     "flow.app(App)"]
        lines += (0..<500).map { "flow.route('many://filler\($0)/:x', { { on = 'Home' } })" }
        lines += [
            "flow.route('m://item/:id', { example = { id = 1 }, { on = 'Home', tap = 'a' } })",
            "flow.route('m://item/new', { { on = 'Home', tap = 'b' } })",
            "flow.route('m://new/:id/edit', { example = { id = 1 }, { on = 'Home', tap = 'b' } })",
            "flow.route('m://:kind/2/edit', { example = { kind = 'x' }, { on = 'Home', tap = 'a' } })",
            "flow.route('m://new/2/:action', { example = { action = 'x' }, { on = 'Home', tap = 'c' } })",
            "flow.route('other://item/new', { { on = 'Home', tap = 'c' } })",
        ]
        let script = try folder.write("links.lua", lines.joined(separator: "\n"))
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: script)
        for (url, top) in [("m://item/new", "A"), ("m://item/7", "A"), ("m://new/2/edit", "B"), ("m://old/2/edit", "A"),
                           ("m://new/2/view", "C"), ("other://item/new", "C"), ("many://filler499/y?z=1", "Home")] {
            try runtime.open(url)
            #expect(runtime.app.window.visibleScreen?.name == top, "\(url)")
        }
        for url in ["m://item", "m://item/new/more", "x://item/new", "m://new/3/view"] {
            let error = #expect(throws: RouteError.self, "\(url)") { try runtime.open(url) }
            #expect(error?.code == .noMatch, "\(url): \(error?.message ?? "")")
        }
    }

    /// A route's step can take an alert's action (`{ on = "Alert", tap = "OK" }`, or `{ tap = "OK" }` while
    /// an alert shows): its actions are known when it shows, so the step is checked then. A bare tap that no
    /// screen type declares is an alert's action: it needs an alert showing, and says so when none is.
    @Test func aRouteStepTakesAnAlertsAction() throws {
        let app = """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "ask", "stay" } }
            flow.screen "Done" { }
            local Home = flow.coordinator "Home"
            function Home:start()
              local home = self:push("Home")
              home.onAsk = function()
                self:alert { title = "Sure?", actions = { { "OK", function() self:push("Done") end }, "Cancel" } }
              end
              home.onStay = function() end
            end
            flow.app(Home)
            flow.route("x://ok", { { tap = "ask" }, { on = "Alert", tap = "OK" } })
            flow.route("y://ok", { { tap = "ask" }, { tap = "OK" } })
            flow.route("z://ok", { { tap = "stay" }, { tap = "OK" } })
            """
        let folder = try TemporaryDirectory()
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: try folder.write("alert.lua", app))
        for url in ["x://ok", "y://ok"] {
            try runtime.open(url)
            #expect(runtime.app.window.visibleStack.map(\.name) == ["Home", "Done"], "\(url)")
            #expect(runtime.app.window.modals.isEmpty)
        }
        let before = runtime.app.stateDescription
        let error = #expect(throws: RouteError.self) { try runtime.open("z://ok") }
        #expect(error?.message.contains("step 2 of route 'z://ok'") == true, "\(error?.message ?? "")")
        #expect(error?.message.hasSuffix("expected Alert to be showing, but Home is") == true, "\(error?.message ?? "")")
        #expect(runtime.app.stateDescription == before)
        let payload = luaError {
            try ScriptRuntime(driverFunctions: true).load(script: try folder.write("bare.lua", app + "\nflow.route(\"w://ok\", { { tap = \"OK\", payload = 1 } })"))
        }
        #expect(payload?.message.hasSuffix("route 'w://ok', step 1: no screen type has an output 'OK', and an alert's action takes no payload") == true,
                "\(payload?.message ?? "no error")")
    }

    /// A link from the start rebuilds the app in the gateway state it started in: a sign-in since does not
    /// carry over, so the link's steps find what they found at launch.
    @Test func aLinkFromTheStartStartsWhereTheAppStarted() throws {
        let folder = try TemporaryDirectory()
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: try folder.write("gate.lua", """
            local flow = require "coordinator"
            flow.screen "Login" { outputs = { "login" } }
            flow.screen "Home" { outputs = { "open" } }
            flow.screen "Item" { }
            local Login = flow.coordinator "Login"
            function Login:start() self:push("Login").onLogin = function() flow.gateway.state = "main"; self:finish() end end
            local Main = flow.coordinator "Main"
            function Main:start() self:push("Home").onOpen = function() self:push("Item") end end
            flow.app { authorization = Login, main = Main }
            flow.route("g://item", { { on = "Login", tap = "login" }, { on = "Home", tap = "open" } })
            """))
        try runtime.start()
        try runtime.app.tap("login")
        #expect(runtime.app.gateway.state == .main)
        try runtime.open("g://item")
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Home", "Item"])
        #expect(runtime.app.startState == .authorization)
        try runtime.open("g://item") // again, from the start: Login first
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Home", "Item"])
    }

    @Test func aLinkThatFailsAtAnyStepLeavesTheAppAsItWas() throws {
        let runtime = try Self.shopRuntime()
        try runtime.open("shop://buy/shirts/7")
        let before = runtime.app.stateDescription, steps = runtime.app.steps
        for (url, message) in [
            ("shop://catalog/hats/1", "parameter category = \"hats\" matches no item of categories on Categories (shoes, shirts)"),
            ("shop://catalog/shoes/99", "parameter product = \"99\" matches no item of products on Products (42, 43)"),
            ("shop://nowhere", "no route matches shop://nowhere"),
            ("not a link", "no route matches not a link"),
            // A terminal's escape sequence in a link is shown as text, never sent to the terminal.
            ("shop://\u{1B}]0;title\u{7}\u{9B}", "no route matches shop://\\u{1b}]0;title\\u{7}\\u{9b} ("),
            // A link of megabytes is cut in the message, its length said.
            ("shop://" + String(repeating: "a/", count: 1_500_000), "no route matches shop://" + String(repeating: "a/", count: 96) + "a… (3000007 bytes) ("),
        ] {
            let error = #expect(throws: RouteError.self) { try runtime.open(url) }
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
            #expect(error?.message.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B || $0.value == 7 } == false)
            #expect(runtime.app.stateDescription == before)
            #expect(runtime.app.steps == steps)
        }
    }

    /// `tab(n)` for a tab that does not exist names the n written, even at the ends of the integers.
    @Test func aMissingTabIsNamedAsWritten() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: repositoryRoot + "/examples/tabs.lua")
        try runtime.start()
        for (n, shown) in [("math.mininteger", "-9223372036854775808"), ("math.maxinteger", "9223372036854775807"), ("9", "9")] {
            let error = #expect(throws: LuaError.self) { try runtime.lua.run("tab(\(n))") }
            #expect(error?.message.contains("there is no tab \(shown) (") == true, "\(error?.message ?? "")")
        }
    }

    @Test func whatARouteNamesIsCheckedWhenTheScriptLoads() throws {
        let folder = try TemporaryDirectory()
        let cases: [(route: String, message: String)] = [
            (#"{ { on = "Nope" } }"#, "step 1: no screen type 'Nope'"),
            (#"{ { on = "S", tap = "missing" } }"#, "step 1: S has no output 'missing' (its outputs: go, pick)"),
            (#"{ { on = "S", tap = "go", choose = "id" } }"#, "'go' does not pick from a list, so it cannot choose"),
            (#"{ { on = "S", tap = "pick", choose = "other" } }"#, "choose names ':other', which is not a parameter of the pattern"),
            (#"{ { flow = "Nobody" } }"#, "no coordinator class 'Nobody'"),
            (#"{ { on = "S", push = "X" } }"#, "unknown field 'push'"),
            (#"{ from = "elsewhere", { on = "S" } }"#, "from = \"elsewhere\" names no coordinator class (from is \"start\", \"current\" or a coordinator class)"),
        ]
        for (i, (route, message)) in cases.enumerated() {
            let script = try folder.write("app\(i).lua", """
                local flow = require "coordinator"
                flow.screen "S" { inputs = { "items" }, outputs = { "go", pick = { from = "items" } } }
                local App = flow.coordinator "App"
                function App:start() self:push("S", { items = { "a" } }) end
                flow.app(App)
                flow.route("app://x/:id", \(route))
                """)
            let runtime = try ScriptRuntime()
            let error = luaError { try runtime.load(script: script) }
            #expect(error?.message.contains(message) == true, "\(route): \(error?.message ?? "no error")")
        }
    }

    @Test func aReloadDeclaresTheRoutesAgainAndABrokenOneChangesNothing() throws {
        let folder = try TemporaryDirectory()
        let source = """
            local flow = require "coordinator"
            flow.screen "S" { outputs = { "go" } }
            flow.screen "T" {}
            local App = flow.coordinator "App"
            function App:start() self:push("S").onGo = function() self:push("T") end end
            flow.app(App)
            flow.route("app://t", { { on = "S", tap = "go" } })
            """
        let script = try folder.write("app.lua", source)
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: script)
        try runtime.start()
        try folder.write("app.lua", source.replacingOccurrences(of: "tap = \"go\"", with: "tap = \"went\""))
        let error = luaError { _ = try runtime.reload() }
        #expect(error?.message.contains("reload failed, nothing changed") == true && error?.message.contains("S has no output 'went'") == true, "\(error?.message ?? "")")
        try runtime.open("app://t")
        #expect(runtime.app.window.visibleStack.map(\.name) == ["S", "T"])
        try folder.write("app.lua", source.replacingOccurrences(of: "app://t", with: "app://u"))
        _ = try runtime.reload()
        #expect(runtime.declaredRoutes.map(\.pattern) == ["app://u"])
    }

    /// What a coordinator reads and selects: a coordinator reads its screens and children; the owner of the tabs selects
    /// one by title and sets badges, which the tab bar shows; dismiss() swipes a whole modal away.
    @Test func coordinatorsReadTheirScreensAndChildrenAndOwnTheirTabs() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("tabs.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { inputs = { "report" }, outputs = { "probe", "compose" } }
            flow.screen "Page" {}
            local A = flow.coordinator "A"
            function A:start() self:push("Page") self:push("Page") end
            local Compose = flow.coordinator "Compose"
            function Compose:start() self:push("Page") self:push("Page") end
            local B = flow.coordinator "B"
            function B:start()
              local home = self:push("Home")
              home.onProbe = function() self:send("probe") end
              home.onCompose = function()
                self:run(Compose, nil, { modal = true, onFinish = function(_, reason) flow.update("report", "compose: " .. reason) end })
              end
            end
            local Root = flow.coordinator "Root"
            function Root:start()
              self:setTabs { { "A", A }, { "B", B } }
              self:onSignal("probe", function()
                local names = {}
                for _, child in ipairs(self:children()) do names[#names + 1] = child.__class.__name .. ":" .. #child:screens() end
                self:setBadge("B", 3)
                self:selectTab("A")
                flow.update("report", table.concat(names, " "))
              end)
            end
            flow.app(Root)
            """)
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: script)
        try runtime.start()
        try runtime.app.selectTab(titled: "B")
        try runtime.app.tap("probe")
        let tabs = try #require(runtime.app.visibleTabs)
        #expect(tabs.selectedIndex == 0 && tabs.badges == [nil, 3])
        #expect(tabs.label(ofTab: 1) == "B (3)")
        #expect(runtime.app.window.hierarchyDescription.contains("  tab B (3): NavigationStack"))
        #expect(runtime.app.window.allScreens.first { $0.name == "Home" }?["report"] == "A:2 B:1")
        // dismiss(): the whole modal stack goes, and its flow finishes by the system.
        try runtime.app.selectTab(1)
        try runtime.app.tap("compose")
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Home", "Page", "Page"])
        try runtime.app.back() // Back pops one page of the modal only
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Home", "Page"])
        try runtime.app.dismiss()
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Home"])
        #expect(runtime.app.window.visibleScreen?["report"] == "compose: systemBack")
        #expect(runtime.app.root?.children.map(\.name) == ["A", "B"])
        #expect(throws: NavigationError.self) { try runtime.app.dismiss() }
    }
}

/// How the layers' errors relate: the same mistake made from Swift is a NavigationError, and
/// made from Lua a LuaError that carries that NavigationError as its `underlying` error, with the place in
/// the script.
@Suite struct LayeredErrorTests {
    @Test func aNavigationMistakeFromLuaCarriesTheCoreError() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: repositoryRoot + "/scripts/app.lua")
        try runtime.start()
        let direct = #expect(throws: NavigationError.self) { try runtime.app.tap("nope") }
        #expect(direct?.code == .unknownOutput)
        let fromLua = luaError { _ = try runtime.run("tap('nope')", name: "=host") }
        #expect(fromLua?.location == "host:1")
        #expect((fromLua?.underlying as? NavigationError)?.code == .unknownOutput)
        #expect((fromLua?.underlying as? NavigationError)?.message == direct?.message)
    }
}

extension LayeredErrorTests {
    /// `navigationError` finds the core's error however many Lua calls it crossed: here a tap from Lua runs
    /// a handler that pushes an unknown screen.
    @Test func theNavigationErrorIsFoundThroughEveryLuaCallItCrossed() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("app.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "go" } }
            local App = flow.coordinator "App"
            function App:start()
              local home = self:push("Home")
              home.onGo = function() self:push("Nowhere") end
            end
            flow.app(App)
            """)
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: script)
        try runtime.start()
        let error = try #require(luaError { _ = try runtime.run("tap('go')", name: "=host") })
        #expect(error.navigationError?.code == .unknownScreen, "\(error)")
        #expect(luaError { _ = try runtime.run("error('plain')", name: "=host") }?.navigationError == nil)
    }
}
