import Testing
import TestSupport
import CoordinatorLua
import Foundation

/// Stopping Lua from outside the thread that runs it: a flag set from another thread, and a Swift task's
/// cancellation (a runaway script on an actor).
@Suite struct CancellationTests {
    @Test func aFlagSetOnAnotherThreadStopsTheLoopAndTheStateGoesOn() throws {
        let lua = try makeState()
        let started = DispatchSemaphore(value: 0)
        let stop = LuaCancellation()
        try lua.globals.set("started", lua.function(name: "started") { _ in started.signal() })
        let canceller = Thread { started.wait(); stop.cancel() }
        canceller.start()
        let error = luaError {
            _ = try lua.withCancellation(stop) { try lua.run("started() while true do pcall(function() end) end", name: "=spin") }
        }
        #expect(error?.kind == .interrupted)
        #expect(error?.message == "spin:1: cancelled")
        #expect(stop.isCancelled)
        // Set before the body: it does not start. Outside: the state runs normally.
        #expect(luaError { _ = try lua.withCancellation(stop) { try lua.run("x = 1") } }?.message == "cancelled")
        #expect(try lua.evaluate("return x", as: Int?.self) == nil)
        #expect(try lua.evaluate("local n = 0 for i = 1, 100000 do n = n + 1 end return n", as: Int.self) == 100000)
    }

    actor Flows {
        let lua: LuaState
        init() throws { lua = try LuaState() }

        func spin(started: @escaping @Sendable () -> Void) async throws {
            try lua.globals.set("started", lua.function(name: "started") { _ in started() })
            try await lua.cancellable { _ = try lua.run("started() while true do end", name: "=spin") }
        }

        func sum() throws -> Int { try lua.evaluate("local n = 0 for i = 1, 1000 do n = n + i end return n", as: Int.self) }
    }

    @Test func cancellingTheTaskStopsARunawayScriptOnAnActor() async throws {
        let flows = try Flows()
        let canceller = TaskCanceller()
        let task = Task { try await flows.spin { canceller.started() } }
        canceller.cancel(task) // once the loop runs
        let (result, _) = await canceller.outcome(of: task)
        var message: String?
        if case .failure(let error) = result { message = (error as? LuaError)?.message }
        #expect(message == "spin:1: cancelled")
        #expect(try await flows.sum() == 500500) // the actor and its state go on
    }
}
