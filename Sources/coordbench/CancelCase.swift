import Foundation
import CoordinatorLua

/// How long a runaway script takes to stop once another thread cancels it (``LuaCancellation``, what
/// `Task.cancel()` sets through `LuaState.cancellable`): the worst of `rounds` cancellations of
/// `while true do end`, timed from `cancel()` to the end of the call.
func cancelCase(rounds: Int) throws -> [BenchResult] {
    var worst = 0.0
    for _ in 0..<rounds {
        let started = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let stop = LuaCancellation()
        let thread = Thread {
            // The state is made and used on this thread only.
            if let lua = try? LuaState() {
                try? lua.globals.set("started", lua.function(name: "started") { _ in started.signal() })
                _ = try? lua.withCancellation(stop) { try lua.run("started() local t = {} while true do t[#t % 100 + 1] = #t end") }
            } else {
                started.signal()
            }
            done.signal()
        }
        thread.start()
        started.wait()
        let begin = now()
        stop.cancel()
        done.wait()
        worst = max(worst, Double(now() - begin))
    }
    return [BenchResult(name: "cancel a runaway script from another thread (worst of \(rounds))", value: worst / 1e6, unit: "ms",
                        target: 100, targetIsRatio: false, note: "LuaCancellation; Task.cancel() through LuaState.cancellable")]
}
