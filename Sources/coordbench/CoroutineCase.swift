import CoordinatorLua

/// Coroutine ping-pongs, `coroutine.resume` and a `coroutine.wrap` function each resuming a coroutine that
/// yields back at once, in a runtime's state (whose resume and wrap note the running coroutine for the
/// limits and Ctrl-C) against the same loops in a plain liblua state with Lua's own coroutine library: the
/// ratio of their times per ping-pong (target 1.1).
func coroutineCase(pingPongs n: Int, rounds: Int) throws -> [BenchResult] {
    let loops = [
        ("coroutine.resume", "local co = coroutine.create(function() while true do coroutine.yield() end end)\n"
            + "local resume = coroutine.resume\nfor _ = 1, \(n) do resume(co) end"),
        ("coroutine.wrap", "local co = coroutine.wrap(function() while true do coroutine.yield() end end)\n"
            + "for _ = 1, \(n) do co() end"),
    ]
    return try loops.map { name, code in
        try againstPlainLua("\(name) ping-pong", code, operations: n, rounds: rounds, floorName: "Lua's own coroutine library")
    }
}
