import Testing
import CoordinatorTools
import TestSupport

/// Each flow test runs as in a fresh runtime of its file: nothing a test changes reaches the next one,
/// whether the harness is used again (the test left no trace) or made anew (it did).
@Suite struct FlowTestIsolationTests {
    @Test func noTestSeesWhatAnotherChanged() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("cart.lua", """
            local flow = require "coordinator"
            local cart = {}
            flow.screen "Shop" { outputs = { "add" }, inputs = { "count" } }
            local App = flow.coordinator "App"
            function App:start()
              local shop = self:push("Shop", { count = #cart })
              shop.onAdd = function() cart[#cart + 1] = "item" shop.count = #cart end
            end
            flow.app(App)
            """)
        let file = try folder.write("cart_test.lua", """
            app "cart.lua"
            local taps = 0
            test("adds to the app's cart", function() tap("add") expect.screen("Shop", { count = 1 }) end)
            test("starts with an empty cart", function() expect.screen("Shop", { count = 0 }) end)
            test("counts in the file's local", function() taps = taps + 1 expect.equal(taps, 1) end)
            test("sees the local as declared", function() expect.equal(taps, 0) end)
            test("sets a global", function() leaked = true end)
            test("does not see the global", function() expect.equal(leaked, nil) end)
            test("leaves nothing", function() end)
            test("starts where the app starts", function() expect.screen("Shop", { count = 0 }) end)
            """)
        let results = try FlowTests.run(file)
        let failures = results.compactMap { result -> String? in
            if case .failed(let message, _) = result.outcome { return result.test.name + ": " + message }
            return nil
        }
        #expect(results.count == 8 && failures.isEmpty, "\(failures)")
    }

    /// Each test starts with empty storage, or the storage `app(script, { storage = ... })` seeds: what a
    /// test writes into it (and a relaunch keeps) never reaches the next test.
    @Test func eachTestStartsWithTheStorageTheFileSeeds() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("flag.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { inputs = { "seen" }, outputs = { "see" } }
            local App = flow.coordinator "App"
            function App:start()
              local home = self:push("Home", { seen = flow.storage.seen or false })
              home.onSee = function() flow.storage.seen = true end
            end
            flow.app(App)
            """)
        let file = try folder.write("flag_test.lua", """
            app "flag.lua"
            test("writes and relaunches", function() tap("see") relaunch() expect.screen("Home", { seen = true }) end)
            test("starts empty again", function() expect.screen("Home", { seen = false }) expect.storage("seen", nil) end)
            """)
        let seeded = try folder.write("seeded_test.lua", """
            app("flag.lua", { storage = { seen = true } })
            test("starts seeded", function() expect.screen("Home", { seen = true }) expect.storage { seen = true } end)
            test("a wrong expectation names the key", function() expect.storage { seen = false } end)
            """)
        let failures = { (results: [FlowTestResult]) in
            results.compactMap { result -> String? in
                if case .failed(let message, _) = result.outcome { return result.test.name + ": " + message }
                if case .error(let message, _) = result.outcome { return result.test.name + ": " + message }
                return nil
            }
        }
        #expect(failures(try FlowTests.run(file)).isEmpty)
        #expect(failures(try FlowTests.run(seeded)) == ["a wrong expectation names the key: storage.seen: expected false, got true"])
        let bad = try folder.write("bad_test.lua", "app(\"flag.lua\", { storage = 5 })\ntest('x', function() end)\n")
        #expect(throws: (any Error).self) { try FlowTests.run(bad) }
    }

    /// `expect.presentation` checks the top modal's style (a name, or the fields given), failing at the
    /// test's line with what the app shows.
    @Test func expectPresentationChecksTheTopModal() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("cover.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "cover", "sheet" } }
            flow.screen "Modal" { }
            local Home = flow.coordinator "Home"
            function Home:start()
              local home = self:push("Home")
              home.onCover = function() self:present("Modal", nil, { presentation = "fullScreen" }) end
              home.onSheet = function() self:present("Modal", nil, { detents = { "medium" }, dismissable = false }) end
            end
            flow.app(Home)
            """)
        let file = try folder.write("cover_test.lua", """
            app "cover.lua"
            test("a cover", function() tap("cover") expect.presentation("fullScreen") expect.presentation { dismissable = false } end)
            test("a sheet", function() tap("sheet") expect.presentation { style = "pageSheet", detent = "medium", dismissable = false } end)
            test("wrong", function() tap("sheet") expect.presentation("formSheet") end)
            test("none", function() expect.presentation("pageSheet") end)
            """)
        let results = try FlowTests.run(file)
        let failures = results.compactMap { result -> String? in
            if case .failed(let message, _) = result.outcome { return result.test.name + ": " + message }
            return nil
        }
        #expect(failures == ["wrong: presentation: expected { style = \"formSheet\" }, got { style = \"pageSheet\" }",
                             "none: presentation: expected { style = \"pageSheet\" }, got \"no modal\""], "\(failures)")
    }
}
