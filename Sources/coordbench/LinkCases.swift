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
    return [
        BenchResult(name: "open a three-deep link in a tab (rebuilt from the start)", value: open / 1000, unit: "us",
                    note: "\(Int(1e9 / open)) links/s"),
        BenchResult(name: "open a 1 MiB link that matches no route", value: longOpen / 1000, unit: "us",
                    note: String(format: "%.0fx the three-deep link", longOpen / open)),
        BenchResult(name: "snapshot: shop three deep, a modal, \(json.utf8.count) B of JSON", value: snapshot / 1000, unit: "us"),
        BenchResult(name: "restore that snapshot (replay, check, reconcile)", value: restore / 1000, unit: "us"),
        BenchResult(name: ":undo then :redo in a 100-line REPL session", value: undo / 1_000_000, unit: "ms",
                    note: "each replays the session's lines in a fresh runtime"),
    ]
}
