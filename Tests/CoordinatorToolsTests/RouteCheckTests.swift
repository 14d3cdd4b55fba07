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
}
