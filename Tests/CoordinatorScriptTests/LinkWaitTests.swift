import Foundation
import Testing
import CoordinatorCore
import CoordinatorScript
import CoordinatorTools
import CoordinatorLua
import TestSupport

/// Links that branch and wait: a step taken only when its screen shows, a route that requires a gateway
/// state (held in another until that state's flow runs), parameters declared in the query.
@Suite struct LinkWaitTests {
    static let bank = repositoryRoot + "/examples/bank.lua"

    static func bankRuntime(storage: FlowRecord = [:]) throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(driverFunctions: true)
        runtime.lua.tracebacks = false
        if !storage.isEmpty { try runtime.app.atomically { runtime.app.storage.replaceAll(with: storage) } }
        try runtime.load(script: bank)
        try runtime.start()
        return runtime
    }

    func stack(_ runtime: ScriptRuntime) -> [String] { runtime.app.window.visibleStack.map(\.name) }

    func signIn(_ runtime: ScriptRuntime) throws {
        try runtime.run("tap('login', { name = 'Ann', password = 'secret' }) answer('signIn', 'ok')", name: "=test")
    }

    @Test func aHeldLinkContinuesFromWhereTheAppIsOnceItsStateFlowRuns() throws {
        let runtime = try Self.bankRuntime()
        var events: [String] = []
        let observation = runtime.app.observe { event in
            switch event {
            case .linkHeld, .linkContinued, .linkDropped: events.append("\(event)")
            default: break
            }
        }
        defer { observation.cancel() }
        #expect(try runtime.open("bank://transfer?to=savings") == .held)
        #expect(runtime.heldLink == "bank://transfer?to=savings")
        #expect(stack(runtime) == ["Login", "Welcome"]) // nothing else moved
        #expect(runtime.app.steps == [.open("bank://transfer?to=savings")])
        // A snapshot holds it, and a restore holds it again.
        let snapshot = try runtime.snapshot()
        #expect(try FlowValue(json: snapshot)["heldLink"] == "bank://transfer?to=savings")
        try runtime.app.tap("next")
        try runtime.app.tap("login", payload: ["name": "Ann", "password": "secret"])
        #expect(runtime.heldLink != nil) // the sign-in waits for its answer: still signed out
        try runtime.app.answer("signIn", outcome: "ok")
        #expect(stack(runtime) == ["Accounts", "Transfer"])
        #expect(runtime.app.window.visibleScreen?["to"] == "savings")
        #expect(runtime.heldLink == nil)
        #expect(events == ["hold link bank://transfer?to=savings until main", "continue link bank://transfer?to=savings"])
        try runtime.restore(snapshot)
        #expect(runtime.heldLink == "bank://transfer?to=savings" && stack(runtime) == ["Login", "Welcome"])
    }

    @Test func aHeldLinkWhoseStepsFailIsDroppedAndTheSignInStands() throws {
        let runtime = try Self.bankRuntime()
        #expect(try runtime.open("bank://transfer?to=nowhere") == .held)
        var dropped: String?
        let observation = runtime.app.observe { if case let .linkDropped(_, reason) = $0 { dropped = reason } }
        defer { observation.cancel() }
        try runtime.app.tap("next")
        try signIn(runtime)
        #expect(stack(runtime) == ["Accounts"])
        #expect(runtime.heldLink == nil)
        #expect(dropped?.contains("parameter to = \"nowhere\" matches no item of accounts on Accounts") == true, "\(dropped ?? "nothing dropped")")
    }

    @Test func aSecondHeldLinkReplacesTheFirstAndARelaunchDropsIt() throws {
        let runtime = try Self.bankRuntime()
        var dropped: [String] = []
        let observation = runtime.app.observe { if case let .linkDropped(url, _) = $0 { dropped.append(url) } }
        defer { observation.cancel() }
        try runtime.open("bank://transfer?to=savings")
        try runtime.open("bank://transfer?to=checking")
        #expect(runtime.heldLink == "bank://transfer?to=checking" && dropped == ["bank://transfer?to=savings"])
        try runtime.relaunch()
        #expect(runtime.heldLink == nil)
        // A failed line that held a link holds nothing.
        #expect(throws: LuaError.self) { try runtime.run("open('bank://transfer?to=savings') error('after it')", name: "=test") }
        #expect(runtime.heldLink == nil)
    }

    @Test func aLinkOpenedInItsStateOpensFromThatStatesStart() throws {
        let runtime = try Self.bankRuntime(storage: ["onboarded": true, "user": "Ann", "token": "t"])
        #expect(stack(runtime) == ["Accounts"])
        try runtime.app.tap("transfer", payload: ["id": "checking", "balance": 120])
        #expect(try runtime.open("bank://transfer?to=savings") == .opened)
        #expect(stack(runtime) == ["Accounts", "Transfer"] && runtime.app.window.visibleScreen?["to"] == "savings")
        #expect(runtime.app.startState == "main")
    }

    @Test func anOptionalStepIsTakenOnlyWhenItsScreenShows() throws {
        let first = try Self.bankRuntime()
        try first.open("bank://login")
        #expect(stack(first) == ["Login"] && first.app.storage["onboarded"] == true)
        let again = try Self.bankRuntime(storage: ["onboarded": true])
        try again.open("bank://login")
        #expect(stack(again) == ["Login"])
    }

    /// An app whose Home's `go` output pushes Item with the payload as its inputs, and `routes` (Lua) declared.
    static func itemApp(in folder: TemporaryDirectory, routes: String) throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(driverFunctions: true)
        runtime.lua.tracebacks = false
        try runtime.load(script: folder.write("app.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { go = "value" } }
            flow.screen "Item" { inputs = { "item", "ref", "extra" } }
            local App = flow.coordinator "App"
            function App:start() self:push("Home").onGo = function(item) self:push("Item", item) end end
            flow.app { authorization = App }
            \(routes)
            """))
        try runtime.start()
        return runtime
    }

    /// A query value may be literal text with parameters inside: the link's value (percent-decoded once)
    /// must match it whole, each parameter one or more characters other than `/`, so routes that differ
    /// only there are routes of their own (a browser's `deep-link?url=...`).
    @Test func literalQueryValuesChooseTheRoute() throws {
        let runtime = try Self.itemApp(in: TemporaryDirectory(), routes: """
            flow.route("app://deep-link?url=/settings/:section", { example = { section = "privacy" },
              { on = "Home", tap = "go", payload = { item = "settings", ref = ":section" } } })
            flow.route("app://deep-link?url=/panel/:panel-:size&from=:source", { example = { panel = "top", size = "big", source = "mail" },
              { on = "Home", tap = "go", payload = { item = ":panel", ref = ":size", extra = ":source" } } })
            flow.route("app://deep-link?url=/about", { { on = "Home", tap = "go", payload = { item = "about" } } })
            """)
        func inputs(after url: String) throws -> [String: FlowValue]? {
            try runtime.open(url)
            defer { _ = try? runtime.open("app://deep-link?url=/about") }
            return runtime.app.window.visibleScreen?.inputs.fields.reduce(into: [:]) { $0[$1.key] = $1.value }
        }
        #expect(try inputs(after: "app://deep-link?url=%2Fsettings%2Fgeneral") == ["item": "settings", "ref": "general"])
        #expect(try inputs(after: "app://deep-link?url=/panel/news-feed-small&from=push") == ["item": "news", "ref": "feed-small", "extra": "push"])
        #expect(try inputs(after: "app://deep-link?url=/about") == ["item": "about"])
        for unmatched in ["app://deep-link?url=/settings/a/b", "app://deep-link?url=/settings/", "app://deep-link?url=/about/more",
                          "app://deep-link", "app://deep-link?url=/panel/-x"] {
            #expect(throws: RouteError.self, "\(unmatched)") { try runtime.open(unmatched) }
        }
        #expect(try runtime.declaredRoutes.map { try $0.exampleURL() } == [
            "app://deep-link?url=%2Fsettings%2Fprivacy", "app://deep-link?url=%2Fpanel%2Ftop-big&from=mail", "app://deep-link?url=%2Fabout"])
        #expect(runtime.declaredRoutes[1].parameters == ["panel", "size", "source"])
        // A value past 4 KiB matches no text (each parameter may try every place): refused at once, however
        // many places it offers.
        let long = "app://deep-link?url=/panel/" + String(repeating: "-", count: 1 << 20) + "&from=x"
        #expect(throws: RouteError.self) { try runtime.open(long) }
    }

    @Test func queryParametersAreDeclaredCheckedAndGivenToPayloads() throws {
        let folder = try TemporaryDirectory()
        func load(_ routes: String) throws -> ScriptRuntime { try Self.itemApp(in: folder, routes: routes) }
        let runtime = try load("""
            flow.route("app://item/:id?ref=:source", { example = { id = "7", source = "mail" },
              { on = "Home", tap = "go", payload = { item = ":id", ref = ":source" } } })
            flow.route("app://raw/:id", { { on = "Home", tap = "go", payload = function(p) return { item = p.id, extra = p.utm } end } })
            """)
        #expect(try runtime.declaredRoutes[0].exampleURL() == "app://item/7?ref=mail")
        #expect(runtime.declaredRoutes[0].parameters == ["id", "source"])
        try runtime.open("app://item/7?ref=mail&utm=x")
        #expect(runtime.app.window.visibleScreen?.inputs == ["item": "7", "ref": "mail"])
        try runtime.open("app://raw/8?utm=news") // an undeclared query parameter still reaches a payload function
        #expect(runtime.app.window.visibleScreen?.inputs == ["item": "8", "extra": "news"])
        func failure(_ routes: String) -> String {
            do { _ = try load(routes); return "loaded" } catch { return "\(error)" }
        }
        #expect(failure(#"flow.route("app://item/:id", { { on = "Home", tap = "go", payload = { ref = ":source" } } })"#)
            .contains("the payload names ':source', which is not a parameter of the pattern (parameters: id)"))
        #expect(failure(#"flow.route("app://item?ref=:a:b", { { on = "Home" } })"#).contains("the query's ref has :a and :b side by side (text must part them)"))
        #expect(failure(#"flow.route("app://item?url=/x/:id&id=:id", { { on = "Home" } })"#).contains("parameter ':id' is empty or named twice"))
        #expect(failure(#"flow.route("app://item/:id?x=:id", { { on = "Home" } })"#).contains("parameter ':id' is empty or named twice"))
        #expect(failure(#"flow.route("app://item", { requires = "mian", { on = "Home" } })"#).contains("requires 'mian', which is no gateway state of the app (states: authorization)"))
        #expect(failure(#"flow.route("app://item", { { optional = true, tap = "go" } })"#).contains("an optional step names the screen it waits for"))
        #expect(failure(#"flow.route("app://item", { example = { nope = "1" }, { on = "Home" } })"#).contains("example names 'nope', which is not a parameter"))
    }
}
