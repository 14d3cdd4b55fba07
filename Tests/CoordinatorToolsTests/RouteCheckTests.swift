import Foundation
import Testing
import CoordinatorTools
import TestSupport

/// `coordrun routes`: each link opens as in a fresh runtime of the app.
@Suite struct RouteCheckTests {
    /// A link whose handlers leave a trace in the Lua data (a global) does not reach the next link: that
    /// one opens in a fresh runtime, and the links after it share that runtime again.
    @Test func eachLinkOpensAsInAFreshRuntime() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("marks.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "mark" } }
            flow.screen "Marked" {}
            local App = flow.coordinator "App"
            function App:start()
              local home = self:push(marked and "Marked" or "Home")
              home.onMark = function() marked = true end
            end
            flow.app(App)
            flow.route("marks://set", { { on = "Home", tap = "mark" } })
            flow.route("marks://home", { { on = "Home" } })
            flow.route("marks://again", { { on = "Home" } })
            flow.route("marks://fails", { { on = "Home", tap = "mark" }, { on = "Marked" } })
            flow.route("marks://last", { { on = "Home" } })
            """)
        let results = try RouteCheck.run(script: script)
        #expect(results.map(\.failure) == [nil, nil, nil, results[3].failure, nil])
        #expect(results[3].failure?.contains("step 2") == true)
        #expect(results.map(\.stack) == [["Home"], ["Home"], ["Home"], [], ["Home"]])
    }

    /// A route that requires a gateway state is checked both ways: opened in that state, and held in the
    /// start state until the user gets there the shortest way exploration finds (a sign-in that answers
    /// later), where it must continue. A route whose steps fail after the sign-in fails the second way.
    @Test func aDeferredRouteIsOpenedBothWays() throws {
        let results = try RouteCheck.run(script: repositoryRoot + "/examples/bank.lua")
        let transfer = results.filter { $0.route.pattern == "bank://transfer?to=:to" }
        #expect(transfer.map(\.order) == ["in main", "held until main"])
        #expect(transfer.allSatisfy { $0.failure == nil && $0.stack == ["Accounts", "Transfer"] }, "\(transfer.map(\.failure))")
        let folder = try TemporaryDirectory()
        // After a sign-in (not in a launch signed in) the main flow shows a tip over the accounts first.
        let broken = try String(contentsOfFile: repositoryRoot + "/examples/bank.lua", encoding: .utf8)
            .replacingOccurrences(of: "flow.gateway.state = \"main\"\n      self:finish()", with: "flow.gateway.state = \"main\"\n      self:finish(\"fresh\")")
            .replacingOccurrences(of: "function Main:start()", with: "function Main:start(how)")
            .replacingOccurrences(of: "  accounts.onSignOut = function()", with: "  if how == \"fresh\" then self:push(\"Welcome\") end\n  accounts.onSignOut = function()")
        #expect(broken.contains("self:finish(\"fresh\")") && broken.contains("Main:start(how)") && broken.contains("if how =="))
        let failing = try RouteCheck.run(script: folder.write("bank.lua", broken)).filter { $0.route.pattern == "bank://transfer?to=:to" }
        // In main it opens; held, it continues after the sign-in on the tip, and fails there.
        #expect(failing.map(\.order) == ["in main", "held until main"])
        #expect(failing[1].failure?.contains("held until main, it did not continue after") == true, "\(failing.map(\.failure)) \(failing.map(\.stack))")
    }

    /// Several held routes of an app whose sign-in is a few screens in all take the one way into main,
    /// found once before any link opens (it loads the script once for its search, not once per route); a
    /// route that requires a state no user can reach fails saying its own search found no way.
    @Test func heldRoutesShareTheWayIntoTheirState() throws {
        let folder = try TemporaryDirectory()
        let loads = folder.path + "/loads.txt"
        var app = """
            local flow = require "coordinator"
            local log = io.open("\(loads)", "a") log:write("x") log:close()
            flow.screen "Welcome" { outputs = { "next", "skip" } }
            flow.screen "Terms" { outputs = { "accept" } }
            flow.screen "Login" { outputs = { "login" } }
            flow.screen "Home" { outputs = { open = "value" } }
            flow.screen "Item" { inputs = { "itemId" } }
            local Login = flow.coordinator "Login"
            function Login:start()
              local welcome = self:push("Welcome")
              welcome.onSkip = function() end
              welcome.onNext = function()
                self:push("Terms").onAccept = function()
                  self:push("Login").onLogin = function() flow.gateway.state = "main" self:finish() end
                end
              end
            end
            local Main = flow.coordinator "Main"
            function Main:start() self:push("Home").onOpen = function(id) self:push("Item", { itemId = id }) end end
            flow.app { authorization = Login, main = Main }

            """
        for n in 1...4 {
            app += "flow.route(\"app://item\(n)\", { requires = \"main\", { on = \"Home\", tap = \"open\", payload = \"\(n)\" } })\n"
        }
        let script = try folder.write("app.lua", app)
        let results = try RouteCheck.run(script: script)
        #expect(results.count == 8 && results.allSatisfy { $0.failure == nil }, "\(results.map(\.failure))")
        #expect(results.filter { $0.order == "held until main" }.allSatisfy { $0.stack == ["Home", "Item"] }, "\(results.map(\.stack))")
        let heldAlone = (try String(contentsOfFile: loads, encoding: .utf8)).count
        // One held route more, in a copy: its check loads the script no more times for the way into main.
        let more = try folder.write("more.lua", app + "flow.route(\"app://item5\", { requires = \"main\", { on = \"Home\", tap = \"open\", payload = \"5\" } })\n")
        try "".write(toFile: loads, atomically: true, encoding: .utf8)
        _ = try RouteCheck.run(script: more)
        let withOneMore = (try String(contentsOfFile: loads, encoding: .utf8)).count
        #expect(withOneMore <= heldAlone + 1, "\(heldAlone) loads for four held routes, \(withOneMore) for five")
        let unreachable = try folder.write("unreachable.lua", app.replacingOccurrences(of: "flow.gateway.state = \"main\" ", with: ""))
        let refused = try RouteCheck.run(script: unreachable).filter { $0.order == "held until main" }
        #expect(refused.count == 4 && refused.allSatisfy { $0.failure?.contains("the search for the user's way to main (its own, 60 s at most) found none") == true },
                "\(refused.map(\.failure))")
    }


    /// A route that starts at a coordinator class opens after the user's shortest way to a state where that
    /// class runs, and says which; a class no user can reach fails saying its search found no way.
    @Test func aRouteToAFlowOpensWhereTheUserFindsIt() throws {
        let results = try RouteCheck.run(script: repositoryRoot + "/examples/browser.lua")
        #expect(results.allSatisfy { $0.failure == nil }, "\(results.map(\.failure))")
        #expect(results.first?.order == "at Browser from the start")
        let folder = try TemporaryDirectory()
        let script = try folder.write("app.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "settings" } }
            flow.screen "Settings" { outputs = { "privacy" } }
            flow.screen "Privacy" {}
            local Settings = flow.coordinator "Settings"
            function Settings:start() self:push("Settings").onPrivacy = function() self:push("Privacy") end end
            flow.coordinator "Never"
            local Home = flow.coordinator "Home"
            function Home:start() self:push("Home").onSettings = function() self:run(Settings, nil, { modal = true }) end end
            flow.app(Home)
            flow.route("app://privacy", { from = "Settings", { on = "Settings", tap = "privacy" } })
            flow.route("app://never", { from = "Never" })
            """)
        let found = try RouteCheck.run(script: script)
        #expect(found[0].failure == nil, "\(found[0].failure ?? "")")
        #expect(found[0].order == "at Settings after tap(\"settings\")")
        #expect(found[0].stack == ["Home", "Settings", "Privacy"])
        #expect(found[1].failure?.contains("it starts at Never, but the search for the user's way to a state where Never runs") == true, "\(found[1].failure ?? "")")
    }
}
