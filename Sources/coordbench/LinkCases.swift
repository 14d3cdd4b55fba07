import Foundation
import CoordinatorCore
import CoordinatorTools

/// Deep links, snapshots and time travel on examples/shop.lua: what each costs.
func linkCases(rounds: Int, repeats: Int, root: String) throws -> [BenchResult] {
    let shop = root + "/examples/shop.lua"
    let runtime = try ScriptRuntime(driverFunctions: true)
    runtime.lua.tracebacks = false
    try runtime.load(script: shop)
    try runtime.start()
    // A three-deep product link inside the Catalog tab: the shop rebuilt from its start each time.
    let open = try best(rounds: rounds, operations: repeats) {
        for _ in 0..<repeats { try runtime.open("shop://catalog/shoes/42") }
    }
    // A link of a mebibyte that matches no route: read over its bytes, its message cut.
    let long = "shop://catalog/" + String(repeating: "x", count: 1 << 20)
    let longOpen = best(rounds: rounds, operations: 1) { _ = try? runtime.open(long) }
    // Three deep in a tab with the checkout modal over it, a product in the cart.
    try runtime.app.tap("add")
    try runtime.app.tap("buy")
    var json = ""
    let snapshot = try best(rounds: rounds, operations: repeats) {
        for _ in 0..<repeats { json = try runtime.snapshot() }
    }
    let restore = try best(rounds: rounds, operations: repeats) {
        for _ in 0..<repeats { try runtime.restore(json) }
    }
    // :undo in a REPL session of 100 lines: a fresh runtime and the 99 lines before the last again.
    let repl = try REPL(runtime: runtime.fresh(), mode: .repl) { _ in }
    for i in 0..<50 {
        repl.handle("tap('open', top().categories[\(i % 2 + 1)])")
        repl.handle("back()")
    }
    let undoRounds = max(1, rounds / 2)
    let undo = best(rounds: undoRounds, operations: 1) {
        repl.handle(":undo")
        repl.handle(":redo")
    }
    let (loops, pathRestore, loopSteps, pathSteps, withLoops, message) = try loopCase(rounds: rounds)
    // `coordrun routes` on a 24-screen app whose seven links all require the main state: each opened in main
    // and held at the start until the user's shortest way there (found once) signs in. CPU time per held route.
    let store = root + "/Sources/coordbench/Apps/store.lua"
    var held = 0, failed = 0
    var heldCost = Double.infinity
    for _ in 0..<max(1, rounds / 2) {
        let start = cpuNow()
        let results = try RouteCheck.run(script: store)
        let spent = Double(cpuNow() - start)
        held = results.filter { $0.order?.hasPrefix("held") == true }.count
        failed = results.filter { $0.failure != nil }.count
        heldCost = min(heldCost, spent / Double(max(held, 1)))
    }
    return [
        BenchResult(name: "check a held route of a 24-screen app (coordrun routes, CPU time)", value: failed == 0 ? heldCost / 1e6 : .infinity, unit: "ms",
                    target: 1000, targetIsRatio: false,
                    note: "\(held) held routes, each also opened in its state, all in the time counted; \(failed) failed"),
        BenchResult(name: "open a three-deep link in a tab (rebuilt from the start)", value: open / 1000, unit: "us",
                    note: "\(Int(1e9 / open)) links/s"),
        BenchResult(name: "open a 1 MiB link that matches no route", value: longOpen / 1000, unit: "us",
                    note: String(format: "%.0fx the three-deep link", longOpen / open)),
        BenchResult(name: "snapshot: shop three deep, a modal, \(json.utf8.count) B of JSON", value: snapshot / 1000, unit: "us"),
        BenchResult(name: "restore that snapshot (replay, check, reconcile)", value: restore / 1000, unit: "us"),
        BenchResult(name: ":undo then :redo in a 100-line REPL session", value: undo / 1_000_000, unit: "ms",
                    note: "each replays the session's lines in a fresh runtime"),
        BenchResult(name: "restore a 1,000-step back-and-forth, steps' loops dropped (\(loopSteps) steps kept)", value: loops / 1000, unit: "us",
                    floor: pathRestore / 1000, floorName: "a 10-step path (\(pathSteps) steps)", target: 2,
                    note: String(format: "with every step kept: %.0f us; a message (a tap and its snapshot, loops dropped): %.0f us",
                                 withLoops / 1000, message / 1000)),
    ]
}

/// A host's conversation: a page that pushes the next page, a snapshot after every step (as a host saves
/// its user's session after each message). Restores, each into a fresh runtime: a 1,000-step back-and-forth
/// with the steps' loops dropped, a 10-step path forward, and the back-and-forth with every step kept; and
/// what a message costs with loops dropped.
func loopCase(rounds: Int) throws -> (loops: Double, path: Double, loopSteps: Int, pathSteps: Int, withLoops: Double, message: Double) {
    try withTemporaryScript("pages.lua", """
        local flow = require "coordinator"
        flow.screen "Page" { inputs = { "n" }, outputs = { "next" } }
        local Main = flow.coordinator "Main"
        function Main:start()
          local function show(n) self:push("Page", { n = n }).onNext = function() show(n + 1) end end
          show(1)
        end
        flow.app { authorization = Main }
        """) { script in
        func runtime(dropping: Bool) throws -> ScriptRuntime {
            let runtime = try ScriptRuntime()
            runtime.lua.tracebacks = false
            runtime.dropsStepLoops = dropping
            try runtime.load(script: script)
            return runtime
        }
        func conversation(dropping: Bool, steps: Int, forward: Bool) throws -> (json: String, steps: Int, perMessage: Double) {
            let app = try runtime(dropping: dropping)
            try app.start()
            var json = try app.snapshot()
            let start = now()
            for i in 0..<steps {
                if forward || i % 2 == 0 { try app.app.tap("next") } else { try app.app.perform(.back) }
                json = try app.snapshot()
            }
            return (json, app.app.steps.count, Double(now() - start) / Double(max(steps, 1)))
        }
        // The restore alone: each round a fresh runtime is made first, untimed.
        func restoring(_ json: String, dropping: Bool) throws -> Double {
            var fastest = Double.infinity
            for _ in 0..<max(rounds, 3) {
                let fresh = try runtime(dropping: dropping)
                let start = now()
                try fresh.restore(json)
                fastest = min(fastest, Double(now() - start))
            }
            return fastest
        }
        let loops = try conversation(dropping: true, steps: 1_000, forward: false)
        let path = try conversation(dropping: true, steps: 10, forward: true)
        let kept = try conversation(dropping: false, steps: 1_000, forward: false)
        return (try restoring(loops.json, dropping: true), try restoring(path.json, dropping: true), loops.steps, path.steps,
                try restoring(kept.json, dropping: false), loops.perMessage)
    }
}
