import Foundation
import Synchronization

/// Cancels a task from a thread of its own, once the Lua code it runs says it started (``started`` is
/// called from inside that code): the tests that cancel a runaway `while true do end` must not wait for
/// the cooperative pool, whose few threads may all be running such loops at that moment (on 2 cores, two
/// tests' loops held both threads and the tasks that were to cancel them never ran).
public final class TaskCanceller: Sendable {
    private let signal = DispatchSemaphore(value: 0)
    private let cancelledAt = Mutex<ContinuousClock.Instant?>(nil)

    public init() {}

    /// Called by the Lua code once it runs (a Swift function the test installs).
    public func started() { signal.signal() }

    /// Starts the thread that cancels `task` once ``started()`` is called.
    public func cancel<Success, Failure>(_ task: Task<Success, Failure>) {
        let thread = Thread { [self] in
            signal.wait()
            cancelledAt.withLock { $0 = ContinuousClock.now }
            task.cancel()
        }
        thread.start()
    }

    /// How long after the cancellation `task` ended (nil if it ended without one), and its result.
    public func outcome<Success, Failure>(of task: Task<Success, Failure>) async -> (Result<Success, Failure>, Duration?) {
        let result = await task.result
        let end = ContinuousClock.now
        return (result, cancelledAt.withLock { $0 }.map { end - $0 })
    }
}
