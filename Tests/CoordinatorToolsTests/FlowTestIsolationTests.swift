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
}
