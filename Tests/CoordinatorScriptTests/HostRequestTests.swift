import Foundation
import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// A server host answers requests from Swift (a real API call), drives the clock and sends events, through
/// its session.
@Suite struct HostRequestTests {
    static let app = """
        local flow = require "coordinator"
        flow.request "load" { examples = { ok = { n = 1 }, failed = { error = "offline" } } }
        flow.event "ping" {}
        flow.screen "Home" { inputs = { "n", "pings" }, outputs = { "load", "leave" } }
        local Child = flow.coordinator "Child"
        function Child:start()
          local home = self:push("Home", { n = 0, pings = 0 })
          home.onLoad = function()
            self:request("load", { page = 2 }).onResult = function(outcome, value) home.n = value.n end
          end
          home.onLeave = function() self:finish() end
          self:onEvent("ping", function() home.pings = home.pings + 1 end)
          self:every(10, function() home.pings = home.pings + 100 end)
        end
        local Main = flow.coordinator "Main"
        function Main:start() self:push("Home", { n = -1, pings = 0 }).onLoad = function() self:run(Child) end end
        flow.app(Main)
        """

    func session() async throws -> ScriptSession {
        let folder = try TemporaryDirectory()
        let script = try folder.write("app.lua", Self.app)
        let session = try ScriptSession(timeLimit: 10)
        try await session.load(script: URL(fileURLWithPath: script))
        try await session.start()
        return session
    }

    @Test func aSwiftHandlerAnswersARequestOnTheSession() async throws {
        let session = try await session()
        await session.registerRequest("load") { payload in ("ok", ["n": .int((payload?["page"]?.intValue ?? 0) * 21)]) }
        try await session.tap("load")     // the child flow
        try await session.tap("load")     // its request
        await session.answersSettled()
        let n = try await session.withRuntime { $0.app.window.visibleScreen?["n"] }
        #expect(n == 42)
        #expect(try await session.withRuntime { $0.app.pendingRequests.isEmpty })
        #expect(await session.requestErrors.isEmpty)
        // Events and the clock from the host.
        #expect(try await session.send(event: "ping") == 1)
        #expect(try await session.untilNextTimer() == 10)
        #expect(try await session.advance(by: 25) == 2)
        #expect(try await session.withRuntime { $0.app.window.visibleScreen?["pings"] } == 201)
    }

    /// An app host on the main actor answers the same way.
    @MainActor @Test func anAppHostAnswersARequestOnTheMainActor() async throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("app.lua", Self.app)
        let host = try ScriptHost(timeLimit: 10)
        try await host.load(script: URL(fileURLWithPath: script))
        try await host.start()
        host.registerRequest("load") { _ in ("failed", ["error": "offline", "n": 5]) }
        try await host.tap("load")
        try await host.tap("load")
        await host.answersSettled()
        #expect(host.runtime.app.window.visibleScreen?["n"] == 5)
        #expect(host.runtime.app.pendingRequests.isEmpty && host.requestErrors.isEmpty)
        // An outcome the kind does not declare answers nothing, and says why.
        host.registerRequest("load") { _ in ("maybe", nil) }
        try await host.tap("load")
        await host.answersSettled()
        #expect(host.requestErrors.last?.contains("request load has no outcome 'maybe'") == true, "\(host.requestErrors)")
        #expect(host.runtime.app.pendingRequests.count == 1)
    }

    /// An answer that comes after its flow finished is dropped, not delivered and not an error.
    @Test func anAnswerAfterItsFlowFinishedIsDropped() async throws {
        let session = try await session()
        let gate = Gate()
        await session.registerRequest("load") { _ in
            await gate.wait()
            return ("ok", nil)
        }
        try await session.tap("load")
        try await session.tap("load")
        try await session.tap("leave")    // the child finishes while its request is on its way
        await gate.open()
        await session.answersSettled()
        #expect(await session.requestErrors.isEmpty)
        #expect(try await session.withRuntime { $0.app.window.visibleScreen?["n"] } == -1)
        #expect(try await session.withRuntime { $0.app.steps.contains { if case .answer = $0 { true } else { false } } } == false)
    }
}

/// Holds waiters until opened.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }
    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}
