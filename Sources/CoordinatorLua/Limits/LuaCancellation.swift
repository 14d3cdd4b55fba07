import CCoordinatorLua
import CCoordinatorLuaGlue

/// A flag that stops the Lua code a state runs, set from any thread or task: the safe way to interrupt Lua
/// from outside the thread that runs it. While a state runs inside ``LuaState/withCancellation(_:_:)``,
/// setting the flag signals the thread that runs it (`SIGRTMIN + 5`; nothing costs anything before), and
/// the running code stops at its next instruction with a "cancelled" error (kind `.interrupted`), which
/// Lua code cannot catch for good (every later instruction of the same call fails again). Like the instruction budget, it cannot stop a single
/// long C call (`string.rep` of a huge string).
///
/// ```swift
/// let stop = LuaCancellation()
/// DispatchQueue.global().asyncAfter(deadline: .now() + 1) { stop.cancel() }
/// try lua.withCancellation(stop) { try lua.run("while true do end") }   // LuaError: "…: cancelled"
/// ```
public final class LuaCancellation: @unchecked Sendable { // SAFETY[atomic-flag]
    let flag: UnsafeMutableRawPointer? // SAFETY[c-owned-memory]

    /// A flag that is not set.
    public init() { flag = coordlua_cancel_new() }

    deinit { coordlua_cancel_free(flag) }

    /// Sets the flag: the Lua code running under it stops at its next check. Safe from any thread.
    public func cancel() { coordlua_cancel_set(flag) }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { coordlua_cancel_test(flag) != 0 }
}

extension LuaState {
    /// Runs `body` so that `cancellation.cancel()`, from any thread, stops the Lua code it runs on this state
    /// with a "cancelled" error (kind `.interrupted`) at its next instruction. A flag set before `body`
    /// starts stops it before it runs.
    public func withCancellation<R>(_ cancellation: LuaCancellation, _ body: () throws -> R) throws -> R {
        if cancellation.isCancelled { throw LuaError(.interrupted, "cancelled") }
        return try limits.withCancellation(cancellation, body)
    }

    /// Runs `body` so that cancelling the task that runs it stops its Lua code (``withCancellation(_:_:)``):
    /// for a host on Swift concurrency, where `Task.cancel()` would otherwise wait for a runaway script.
    ///
    /// ```swift
    /// actor Flows {
    ///     let lua: LuaState
    ///     init() throws { lua = try LuaState() }
    ///     func run(_ code: String) async throws { try await lua.cancellable { try lua.run(code) } }
    /// }
    /// let task = Task { try await flows.run("while true do end") }
    /// task.cancel()   // the task ends with LuaError "…: cancelled"
    /// ```
    public func cancellable<R>(isolation: isolated (any Actor)? = #isolation, _ body: () throws -> R) async throws -> R {
        let cancellation = LuaCancellation()
        return try await withTaskCancellationHandler {
            try withCancellation(cancellation, body)
        } onCancel: {
            cancellation.cancel()
        }
    }
}
