import CCoordinatorLua
import CCoordinatorLuaGlue

/// What bounds the code a state runs: its memory limit, its instruction budget, and the deadline and
/// cancellation flag the bridge watches. The state's public limits (``LuaState/memoryLimit``,
/// ``LuaState/withTimeLimit(_:_:)``, ``LuaState/withCancellation(_:_:)``, ...) are this part's.
///
/// A deadline and a cancellation flag cost nothing while they are not met: `coordlua_watch` arms one timer
/// of the running thread for the nearer of them and lets a cancel reach that thread (`SIGRTMIN + 5`), and
/// the hook that stops the code is installed only when one fires. Each is set for the length of a body and
/// put back after it, so nested limits keep the outer ones.
struct LuaLimits {
    let core: LuaCore

    /// The most bytes Lua code may have allocated (0: no limit).
    var memory: Int? {
        get { core.runtime.pointee.limit == 0 ? nil : Int(core.runtime.pointee.limit) }
        nonmutating set { core.runtime.pointee.limit = newValue.map { max($0, 1) } ?? 0 }
    }

    /// The bytes the system gives the state (0: whatever it gives).
    var systemMemory: Int? {
        get { core.runtime.pointee.systemLimit == 0 ? nil : Int(core.runtime.pointee.systemLimit) }
        nonmutating set { core.runtime.pointee.systemLimit = newValue.map { max($0, 1) } ?? 0 }
    }

    /// The most VM instructions each call from Swift may run.
    var instructionBudget: Int? {
        get { core.instructionBudget }
        nonmutating set { core.instructionBudget = newValue.map { max($0, 1) } }
    }

    /// Runs `body` with the deadline `seconds` from now (or the earlier one already set).
    func withDeadline<R>(_ seconds: Double, _ body: () throws -> R) rethrows -> R {
        let runtime = core.runtime
        let nanoseconds = seconds.isFinite ? Int64(min(max(seconds, 0), 1e9) * 1e9) : Int64.max / 4
        let deadline = coordlua_monotonic_ns() &+ max(nanoseconds, 1)
        let previous = runtime.pointee.deadline
        return try watched(set: { runtime.pointee.deadline = previous == 0 ? deadline : min(previous, deadline) },
                           restore: { runtime.pointee.deadline = previous }, body)
    }

    /// Runs `body` with `cancellation`'s flag as the one the bridge watches.
    func withCancellation<R>(_ cancellation: LuaCancellation, _ body: () throws -> R) rethrows -> R {
        let runtime = core.runtime
        let previous = runtime.pointee.cancel
        return try watched(set: { runtime.pointee.cancel = cancellation.flag }, restore: { runtime.pointee.cancel = previous }, body)
    }

    /// Sets a watched limit, arms the watch for `body` and disarms it (the limit put back) after it, also
    /// when the state has no thread to watch (closed): then `body` runs unwatched.
    private func watched<R>(set: () -> Void, restore: () -> Void, _ body: () throws -> R) rethrows -> R {
        guard let L = try? core.thread() else { return try body() }
        set()
        coordlua_watch(core.runtime, L)
        defer {
            restore()
            coordlua_watch(core.runtime, L)
        }
        return try body()
    }

    /// Stops the running code at its next instruction.
    func interrupt() {
        guard let L = try? core.thread() else { return }
        coordlua_interrupt(L)
    }
}
