import Testing
import TestSupport
import CoordinatorLua
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The process's SIGINT handler (Ctrl-C as `lua` handles it). Serialized: the handler is the process's, and
/// these tests install and remove it.
@Suite(.serialized) struct CtrlCTests {
    let lua: LuaState
    init() throws { lua = try makeState() }

    @Test func ctrlCStopsRunningLuaCodeAndIsCountedOtherwise() throws {
        InterruptSignal.install()
        defer { InterruptSignal.uninstall() }
        _ = InterruptSignal.takePending()
        // Test threads block signals; unblock SIGINT here so that raise() runs the handler on this thread
        // before it returns, as Ctrl-C does on a command-line tool's main thread.
        var set = sigset_t(), saved = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        // The Swift function delivers SIGINT to this process while the Lua loop runs.
        try lua.globals.set("pressCtrlC", lua.function(name: "pressCtrlC") { _ in _ = raise(SIGINT) })
        let error = luaError {
            _ = try lua.interruptible { try lua.run("pressCtrlC() while true do end", name: "=loop") }
        }
        #expect(error?.kind == .interrupted)
        #expect(error?.message == "loop:1: interrupted!") // lua.c's words
        #expect(InterruptSignal.takePending())
        // Outside `interruptible` the signal only counts, and the next call runs normally.
        _ = raise(SIGINT)
        #expect(InterruptSignal.takePending())
        #expect(!InterruptSignal.takePending())
        #expect(try lua.evaluate("return 1 + 1", as: Int.self) == 2)
    }

    /// Two runtimes on two threads, each inside `interruptible`: a Ctrl-C raised on one thread stops that
    /// thread's Lua code even though the other thread armed its runtime later, and leaves the other's alone.
    /// (With one process-wide slot the later arm took the signal: the wrong runtime stopped and the loop here
    /// ran into its safety budget.)
    @Test func ctrlCStopsTheCodeOfTheThreadItLandsOnOnly() throws {
        InterruptSignal.install()
        defer { InterruptSignal.uninstall() }
        _ = InterruptSignal.takePending()
        let go = DispatchSemaphore(value: 0), otherArmed = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let otherOutcome = Mutex("")
        let other = Thread {
            go.wait()
            do {
                let b = try LuaState()
                b.instructionBudget = 10_000_000
                try b.globals.set("armed", b.function(name: "armed") { _ in otherArmed.signal(); release.wait() })
                let sum = try b.interruptible {
                    try b.evaluate("armed() local n = 0 for i = 1, 1000 do n = n + i end return n", as: Int.self)
                }
                otherOutcome.withLock { $0 = "\(sum)" }
            } catch {
                otherOutcome.withLock { $0 = "\(error)" }
            }
            done.signal()
        }
        other.start()
        var set = sigset_t(), saved = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        lua.instructionBudget = 10_000_000 // a safety net: the loop ends even if the signal went elsewhere
        try lua.globals.set("pressCtrlC", lua.function(name: "pressCtrlC") { _ in
            go.signal()
            otherArmed.wait()
            _ = raise(SIGINT)
        })
        let error = luaError {
            _ = try lua.interruptible { try lua.run("pressCtrlC() while true do end", name: "=loop") }
        }
        release.signal()
        done.wait()
        #expect(error?.kind == .interrupted)
        #expect(error?.message == "loop:1: interrupted!") // lua.c's words
        #expect(otherOutcome.withLock { $0 } == "500500")
    }
}
