import Foundation
import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// The ready fronts for Swift concurrency: ScriptSession (an actor, for tool and server hosts)
/// and ScriptHost (the main actor, for app hosts).
@Suite struct HostTests {
    static let app = URL(fileURLWithPath: repositoryRoot + "/scripts/app.lua")

    /// A Swift function scripts call as `started()`: tells the canceller that the runaway loop is running.
    static func signalling(_ canceller: TaskCanceller) -> @Sendable (ScriptRuntime) throws -> Void {
        { runtime in
            try runtime.installDriverFunctions()
            try runtime.lua.globals.set("started", runtime.lua.function(name: "started") { _ in canceller.started() })
        }
    }

    /// How fast the cancel lands is coordbench's (`--only cancel`, target 100 ms); here, that it is the
    /// cancel and not the 30 s limit that stops the loop, even on a loaded machine.
    @Test func aSessionDrivesItsAppAndCancellingATaskStopsARunawayScript() async throws {
        let canceller = TaskCanceller()
        let session = try ScriptSession(timeLimit: 30, setUp: Self.signalling(canceller)) // the limit: a net, not the test
        try await session.load(script: Self.app)
        try await session.start()
        try await session.tap("login", payload: ["name": "Ann", "password": "secret"])
        try await session.tap("selectCity")
        let before = try await session.visibleStack()
        #expect(before == ["UserEdit", "Regions"])

        let task = Task { try await session.run("tap('regionSelected', top().regions[1]) started() while true do end") }
        canceller.cancel(task)
        let (result, _) = await canceller.outcome(of: task)
        guard case .failure(let error) = result else { Issue.record("the loop was not stopped: \(result)"); return }
        // "cancelled", not "timed out": the cancel stopped it, not the time limit (whatever the clock says).
        #expect((error as? LuaError)?.message.hasSuffix("cancelled") == true, "\(error)")
        // The session goes on, and the line that was stopped changed nothing.
        #expect(try await session.visibleStack() == before)
        try await session.back()
        #expect(try await session.run("return top().name") == "UserEdit")
    }

    /// The README's minimal host ("Use it from your package"), as written but for the script's path.
    @Test func theReadmesMinimalHost() async throws {
        let session = try ScriptSession(timeLimit: 1)
        try await session.load(script: URL(fileURLWithPath: repositoryRoot + "/scripts/app.lua"))
        try await session.start()
        try await session.tap("login", payload: ["name": "Ann", "password": "secret"])
        #expect(try await session.visibleStack() == ["UserEdit"])
    }

    /// A session's app navigates through the router the host makes for it, again when it starts anew.
    @Test func aSessionStartsThroughTheHostsRouter() async throws {
        final class CountingRouter: Router {
            let base: any Router
            let counts: Counts
            init(wrapping base: any Router, counts: Counts) { (self.base, self.counts) = (base, counts) }
            var stack: NavigationStack { base.stack }
            func perform(_ transition: Transition, for coordinator: Coordinator, animated: Bool) throws {
                counts.transitions += 1
                try base.perform(transition, for: coordinator, animated: animated)
            }
            func router(on stack: NavigationStack) -> any Router { CountingRouter(wrapping: base.router(on: stack), counts: counts) }
        }
        final class Counts { var transitions = 0 }
        let session = try ScriptSession()
        try await session.load(script: Self.app)
        try await session.start { app in CountingRouter(wrapping: app.headlessRouter(), counts: Counts()) }
        try await session.tap("login", payload: ["name": "Ann", "password": "secret"])
        let transitions = try await session.withRuntime { runtime in (runtime.app.root?.router as? CountingRouter)?.counts.transitions ?? -1 }
        #expect(transitions > 0)
        #expect(try await session.visibleStack() == ["UserEdit"])
    }

    @Test func aSessionsTimeLimitStopsEachCall() async throws {
        let session = try ScriptSession(timeLimit: 1) // the loop ends by it; loading and starting fit in it
        try await session.load(script: Self.app)
        try await session.start()
        let login = ["name": "Ann", "password": "secret"] as FlowValue
        let error = await #expect(throws: LuaError.self) {
            try await session.withRuntime { runtime in
                try runtime.app.atomically {
                    try runtime.app.tap("login", payload: login)
                    try runtime.lua.run("while true do end")
                }
            }
        }
        #expect(error?.message.hasSuffix("timed out") == true, "\(String(describing: error))")
        // The call that timed out changed nothing: the login it made is undone.
        #expect(try await session.visibleStack() == ["Login"])
        await session.setTimeLimit(nil)
        #expect(try await session.run("local n = 0 for i = 1, 10 do n = n + i end return n") == 55)
        let events = await session.events()
        try await session.tap("login", payload: login)
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next().map { "\($0)" }?.isEmpty == false)
    }

    /// Counts the routers the host made and the transitions they carried.
    final class CountingRouter: Router {
        let base: any Router
        let log: Log
        final class Log { var made = 0; var transitions: [String] = [] }
        init(_ base: any Router, log: Log, counted: Bool = true) { self.base = base; self.log = log; if counted { log.made += 1 } }
        var stack: NavigationStack { base.stack }
        func perform(_ transition: Transition, for coordinator: Coordinator, animated: Bool) throws {
            log.transitions.append("\(transition)")
            try base.perform(transition, for: coordinator, animated: animated)
        }
        func router(on stack: NavigationStack) -> any Router { CountingRouter(base.router(on: stack), log: log, counted: false) }
    }

    @MainActor
    @Test func anAppHostRunsOnTheMainActorWithItsOwnRouterThroughRestarts() async throws {
        let canceller = TaskCanceller()
        let host = try ScriptHost(timeLimit: 30, setUp: Self.signalling(canceller))
        let log = CountingRouter.Log()
        try await host.load(script: Self.app)
        try await host.start { app in CountingRouter(app.headlessRouter(), log: log) }
        try await host.tap("login", payload: ["name": "Ann", "password": "secret"])
        #expect(log.made == 1 && !log.transitions.isEmpty)
        let snapshot = try host.runtime.snapshot()
        try await host.tap("selectCity")
        try host.runtime.restore(snapshot) { _ in "secret" } // the password asked again; starts the app anew, through a new router of the host's
        #expect(log.made == 2)
        #expect(host.runtime.app.window.visibleStack.map(\.name) == ["UserEdit"])
        let count = log.transitions.count
        try await host.tap("selectCity")
        #expect(log.transitions.count > count)

        // A runaway script on the main actor: cancelled from another task, the main actor is free again.
        let task = Task { @MainActor in try await host.run("started() while true do end") }
        canceller.cancel(task)
        let (result, _) = await canceller.outcome(of: task)
        guard case .failure(let error) = result else { Issue.record("the loop was not stopped"); return }
        #expect((error as? LuaError)?.message.hasSuffix("cancelled") == true, "\(error)")
        #expect(host.runtime.app.window.visibleStack.map(\.name) == ["UserEdit", "Regions"])
    }
}
