import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// Time: timers of a coordinator on the app's virtual clock, moved on only by the user's side
/// (`advance`), firing in due order; cancelled with the coordinator; undone with a failed line; part of
/// the state by the time they have left.
@Suite struct TimerTests {
    static let app = """
        local flow = require "coordinator"
        flow.screen "Home" { outputs = { "signIn", "leave" } }
        flow.screen "Main" {}
        fired = {}
        local Session = flow.coordinator "Session"
        function Session:start()
          self:push("Main")
          -- A session times out after 300 s; a heartbeat every 60 s.
          self:after(300, function() table.insert(fired, "timeout " .. flow.now()) self:finish("expired") end)
          beat = self:every(60, function() table.insert(fired, "beat " .. flow.now()) end)
          self:after(60, function()
            table.insert(fired, "once " .. flow.now())
            self:after(0, function() table.insert(fired, "made while firing " .. flow.now()) end)
          end)
        end
        local Home = flow.coordinator "Home"
        function Home:start()
          local home = self:push("Home")
          home.onSignIn = function() session = self:run(Session, nil, { onFinish = function(r) result = r end }) end
        end
        flow.app(Home)
        """

    static func runtime() throws -> ScriptRuntime { try startedApp(app) }

    func fired(_ runtime: ScriptRuntime) throws -> [String] { try runtime.lua.evaluate("return fired", as: [String].self) }

    @Test func timersFireInDueOrderAsTheClockMovesOn() throws {
        let runtime = try Self.runtime()
        try runtime.app.tap("signIn")
        #expect(try runtime.lua.evaluate("return advance(59)", as: Int.self) == 0)
        // At 60 s three fire: the repeating one and the one-shot (made in that order), then the one the
        // one-shot made, due at once.
        #expect(try runtime.lua.evaluate("return advance(1)", as: Int.self) == 3)
        #expect(try fired(runtime) == ["beat 60.0", "once 60.0", "made while firing 60.0"])
        #expect(try runtime.lua.evaluate("return require('coordinator').now()", as: Double.self) == 60)
        #expect(try runtime.lua.evaluate("return beat.remaining", as: Double.self) == 60)
        try runtime.run("advance(240)", name: "=test")
        // At 300 s the timeout (made first) fires first; its flow finishes, and the beat due then never fires.
        #expect(try fired(runtime).suffix(4) == ["beat 120.0", "beat 180.0", "beat 240.0", "timeout 300.0"])
        // The session timed out: the user is back home, and its heartbeat went with it.
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Home"])
        #expect(try runtime.lua.evaluate("return result", as: String.self) == "expired")
        #expect(try runtime.lua.evaluate("return beat.pending", as: Bool.self) == false)
        #expect(runtime.app.clock.timers.isEmpty)
        #expect(runtime.app.steps.last == .advance(240))
    }

    @Test func aBadTimeIsAnErrorAndTheAppIsAsItWas() throws {
        let runtime = try Self.runtime()
        try runtime.app.tap("signIn")
        let before = runtime.app.stateDescription, timers = runtime.app.clock.timers.count
        for (line, message) in [
            ("advance(-1)", "the clock moves on by a finite number of seconds, 0 or more, not -1"),
            ("advance(0/0)", "the clock moves on by a finite number of seconds, 0 or more, not nan"),
            ("session:after(-5, print)", "a timer's time is a finite number of seconds from now, not -5"),
            ("session:every(0, print)", "a repeating timer's period is a finite number of seconds above 0, not 0"),
            ("session:every(math.huge, print)", "a repeating timer's period is a finite number of seconds above 0, not inf"),
        ] {
            let error = luaError { try runtime.run(line, name: "=test") }
            #expect(error?.message == "test:1: " + message, "\(line): \(error?.message ?? "no error")")
            #expect(runtime.app.stateDescription == before && runtime.app.clock.timers.count == timers)
        }
        try runtime.run("session:finish()", name: "=test")
        let finished = luaError { try runtime.run("session:after(1, print)", name: "=test") }
        #expect(finished?.message.contains("has finished") == true, "\(finished?.message ?? "")")
    }

    /// The clock never reaches infinity: a step that would move it past the largest time there is, or a
    /// timer that would fall due there, is an error and the clock is as before.
    @Test func theClockStopsShortOfInfinity() throws {
        let runtime = try Self.runtime()
        try runtime.run("advance(1.7e308)", name: "=test")
        let before = (runtime.app.clock.now, runtime.app.stateDescription, runtime.app.steps.count)
        let error = luaError { try runtime.run("advance(1.7e308)", name: "=test") }
        #expect(error?.message == "test:1: the clock cannot move 1.7e+308 s on from 1.7e+308 s: it would pass the largest time there is", "\(error?.message ?? "")")
        #expect(runtime.app.clock.now == before.0 && runtime.app.clock.now.isFinite)
        #expect(runtime.app.stateDescription == before.1 && runtime.app.steps.count == before.2)
        try runtime.app.tap("signIn")
        let timers = runtime.app.clock.timers.count
        let late = luaError { try runtime.run("session:after(1e308, print)", name: "=test") }
        #expect(late?.message == "test:1: a timer 1e+308 s from 1.7e+308 s would fall due past the largest time there is", "\(late?.message ?? "")")
        #expect(runtime.app.clock.timers.count == timers)
    }

    /// A line that moves the clock and then fails leaves the clock, the timers and what they did as before.
    @Test func aFailedLineTakesBackTheTimeItMoved() throws {
        let runtime = try Self.runtime()
        try runtime.app.tap("signIn")
        let error = luaError { try runtime.run("advance(1000) error('no')", name: "=test") }
        #expect(error?.message == "test:1: no")
        #expect(runtime.app.clock.now == 0 && runtime.app.clock.timers.count == 3)
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Home", "Main"])
        try runtime.run("advance(60)", name: "=test")
        #expect(runtime.app.clock.now == 60)
    }

    /// A finished flow's timers are cancelled and their functions released: nothing of the flow stays alive.
    @Test func aFinishedFlowsTimersAreReleased() throws {
        let runtime = try Self.runtime()
        try runtime.app.tap("signIn")
        try runtime.run("probe = setmetatable({}, { __mode = 'k' }) probe[session] = true session:finish()", name: "=test")
        try runtime.run("session = nil beat = nil collectgarbage() collectgarbage()", name: "=test")
        #expect(try runtime.lua.evaluate("return next(probe) == nil", as: Bool.self))
        #expect(runtime.app.clock.timers.isEmpty)
    }

    /// The state holds each timer's time left, not the clock: a snapshot restores both, and a repeating
    /// timer comes back to the same state.
    @Test func aSnapshotRestoresTheClockAndTheTimers() throws {
        let runtime = try Self.runtime()
        try runtime.app.tap("signIn")
        try runtime.run("advance(90)", name: "=test")
        let json = try runtime.snapshot()
        let document = try FlowValue(json: json)
        let session = document["coordinators"]?.listValue?.first { $0["class"] == "Session" }
        #expect(session?["timers"]?.listValue?.map { $0["in"] } == [.double(30), .double(210)], "\(session?["timers"] ?? "none")")
        let fresh = try Self.runtime()
        try fresh.restore(json)
        #expect(fresh.app.clock.now == 90 && fresh.app.clock.timers.map(\.due) == runtime.app.clock.timers.map(\.due))
        // A repeating timer a period later is the same state again: its time left is what counts.
        let ticking = try ScriptRuntime(driverFunctions: true)
        try ticking.run("""
            local flow = require "coordinator"
            flow.screen "Clock" {}
            local C = flow.coordinator "C"
            function C:start() self:push("Clock") self:every(10, function() end) end
            flow.app(C)
            """, name: "=app")
        try ticking.start()
        try ticking.app.advance(by: 3)
        let at3 = try ticking.stateIdentity().key
        try ticking.app.advance(by: 10)
        #expect(try ticking.stateIdentity().key == at3)
        try ticking.app.advance(by: 1)
        #expect(try ticking.stateIdentity().key != at3)
    }
}
