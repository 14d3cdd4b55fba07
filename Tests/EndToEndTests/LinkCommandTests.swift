import Foundation
import Testing
import TestSupport
import CoordinatorTools

/// Deep links on the command line: `coordrun routes` and `coordrun --open`.
@Suite struct LinkCommandTests {
    @Test func routesReportsEveryRouteAndFailsOnABrokenOne() throws {
        let good = try Programs.run(["routes", "examples/shop.lua"], input: "")
        #expect(good.status == 0)
        #expect(good.out.contains("✔ shop://catalog/:category/:product (shop://catalog/shoes/42) → Categories > Products > Product\n"))
        #expect(good.out.hasSuffix("5 routes, 0 failed\n"))

        let folder = try TemporaryDirectory()
        let script = try folder.write("app.lua", """
            local flow = require "coordinator"
            flow.screen "S" { inputs = { "items" }, outputs = { pick = { from = "items" } } }
            local App = flow.coordinator "App"
            function App:start() self:push("S", { items = { "a", "b" } }) end
            flow.app(App)
            flow.route("app://pick/:item", { example = { item = "c" }, { on = "S", tap = "pick", choose = "item" } })
            flow.route("app://none/:item", { { on = "S" } })
            flow.route("app://home", { { on = "S" } })
            """)
        let bad = try Programs.run(["routes", script], input: "")
        #expect(bad.status == 1)
        #expect(bad.err.contains("✘ app://pick/:item (app://pick/c), \(script):6: app://pick/c, step 1 of route 'app://pick/:item' (\(script):6): parameter item = \"c\" matches no item of items on S (a, b)"), "\(bad.err)")
        #expect(bad.err.contains("declares no example for :item"))
        #expect(bad.out.contains("✔ app://home (app://home) → S"))
        #expect(bad.out.hasSuffix("3 routes, 2 failed\n"))
    }

    @Test func coordrunOpensTheAppAtALink() throws {
        let outcome = try Programs.run(["--open", "shop://buy/shirts/7", "examples/shop.lua"], input: "= stack()\npay\n")
        #expect(outcome.status == 0, "\(outcome.err)")
        #expect(outcome.out.hasPrefix("== Checkout ==\n1 item(s), 45 EUR\n"))
        #expect(outcome.out.contains("{ \"Categories\", \"Products\", \"Product\", \"Checkout\" }\n== Paid ==\nPaid 45 EUR\n"))
        let unknown = try Programs.run(["--open", "shop://zz", "examples/shop.lua"], input: "")
        #expect(unknown.status == 1 && unknown.err.contains("no route matches shop://zz"))
    }
}
