import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// Events the world outside the flows sends (a push notification, the app going to the background):
/// declared, heard by every running flow that listens from the root down, sent by the user's side as a
/// step (recorded, replayed, routed), refused when undeclared.
@Suite struct EventTests {
    static let app = """
        local flow = require "coordinator"
        flow.event "pushReceived" { payload = "value", examples = { { thread = 7 } } }
        flow.event "refresh" {}
        flow.screen "Home" { outputs = { "open" } }
        flow.screen "Thread" { inputs = { "threadId" } }
        heard = {}
        local Child = flow.coordinator "Child"
        function Child:start()
          self:push("Home")
          self:onEvent("pushReceived", function(payload, name) table.insert(heard, "Child " .. name .. " " .. payload.thread) end)
        end
        local Main = flow.coordinator "Main"
        function Main:start()
          self:push("Home").onOpen = function() child = self:run(Child) end
          self:onEvent("pushReceived", function(payload)
            table.insert(heard, "Main " .. payload.thread)
            self:push("Thread", { threadId = payload.thread })
          end)
          self:onEvent("background", function() table.insert(heard, "background") end)
        end
        flow.app(Main)
        flow.route("e://thread/:id", { { event = "pushReceived", payload = { thread = ":id" } } })
        """

    static func runtime(_ script: String = app) throws -> ScriptRuntime { try startedApp(script) }

    @Test func everyListeningFlowHearsAnEventFromTheRootDown() throws {
        let runtime = try Self.runtime()
        let app = runtime.app
        try app.tap("open")
        var events: [String] = []
        _ = app.observe { events.append($0.description.replacing(/#\d+/, with: "")) }
        #expect(try runtime.lua.evaluate("return event('pushReceived', { thread = 7 })", as: Bool.self))
        #expect(try runtime.lua.evaluate("return heard", as: [String].self) == ["Main 7", "Child pushReceived 7"])
        #expect(app.window.visibleStack.map(\.name) == ["Home", "Home", "Thread"])
        #expect(events.last == "event pushReceived reached 2", "\(events)")
        #expect(app.steps.last == .event("pushReceived", payload: ["thread": 7]))
        #expect(UserStep.event("pushReceived", payload: ["thread": 7]).luaSource == "event(\"pushReceived\", {thread = 7})")
        // Nobody listening is no error: the event was sent, and nobody heard it.
        #expect(try runtime.lua.evaluate("return event('refresh')", as: Bool.self) == false)
        #expect(try app.send(event: "background") == 1)
    }

    @Test func anEventTheAppDoesNotDeclareOrAPayloadItDoesNotTakeIsAnError() throws {
        let runtime = try Self.runtime()
        let before = runtime.app.stateDescription, steps = runtime.app.steps
        for (line, message) in [
            ("event('pushRecieved', { thread = 1 })", "no event 'pushRecieved' (events: background, foreground, pushReceived, refresh; declare one with flow.event)"),
            ("event('pushReceived')", "event 'pushReceived' carries a payload: send it with one"),
            ("event('refresh', 1)", "event 'refresh' carries no payload"),
        ] {
            let error = luaError { try runtime.run(line, name: "=test") }
            #expect(error?.message == "test:1: " + message, "\(line): \(error?.message ?? "no error")")
            #expect(runtime.app.stateDescription == before && runtime.app.steps == steps)
        }
    }

    @Test func anEventIsDeclaredAsTheOtherDeclarationsAre() throws {
        for (spec, message) in [
            ("flow.event 'x' { payload = 'any' }", "event x: payload is \"value\" or \"none\", not 'any'"),
            ("flow.event 'x' { payloads = 'value' }", "event x's fields have no 'payloads' (they take: payload, examples)"),
            ("flow.event 'x' { examples = { 1 } }", "event x: examples are payloads, and it carries none (payload = \"value\")"),
            ("flow.event 'background' {}", "event background is one of the app's own (background, foreground): it needs no declaration"),
        ] {
            let runtime = try ScriptRuntime(driverFunctions: true)
            runtime.lua.tracebacks = false
            let error = luaError { try runtime.run("local flow = require 'coordinator' " + spec, name: "=app") }
            #expect(error?.message == "app:1: " + message, "\(spec): \(error?.message ?? "no error")")
        }
    }

    /// Listening to an event the app does not declare is a mistake said where the flow listens.
    @Test func listeningToAnUndeclaredEventIsAnError() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        runtime.lua.tracebacks = false
        try runtime.run("""
            local flow = require "coordinator"
            flow.screen "Home" {}
            local Main = flow.coordinator "Main"
            function Main:start() self:push("Home") self:onEvent("pushRecieved", print) end
            flow.app(Main)
            """, name: "=app")
        let error = #expect(throws: (any Error).self) { try runtime.start() }
        #expect("\(error.map { "\($0)" } ?? "")".contains("no event 'pushRecieved' (events: background, foreground"), "\(error.map { "\($0)" } ?? "")")
    }

    /// An event is a step: a snapshot replays it, and a link may send one.
    @Test func aSnapshotReplaysEventsAndALinkSendsOne() throws {
        let runtime = try Self.runtime()
        try runtime.run("event('pushReceived', { thread = 3 })", name: "=test")
        let json = try runtime.snapshot()
        #expect(try FlowValue(json: json)["steps"]?.listValue?.last == ["event": "pushReceived", "payload": ["thread": 3]])
        let fresh = try Self.runtime()
        try fresh.restore(json)
        #expect(fresh.app.window.visibleScreen?["threadId"] == 3)
        try fresh.open("e://thread/42")
        #expect(fresh.app.window.visibleStack.map(\.name) == ["Home", "Thread"])
        #expect(fresh.app.window.visibleScreen?["threadId"] == "42")
        let bad = luaError { try ScriptRuntime(driverFunctions: true).run(Self.app + "\nflow.route('e://x', { { event = 'nope' } })", name: "=app") }
        #expect(bad == nil) // routes are checked once the scripts have loaded
        let loading = try ScriptRuntime(driverFunctions: true)
        let folder = try TemporaryDirectory()
        let checked = luaError { try loading.load(script: try folder.write("app.lua", Self.app + "\nflow.route('e://x', { { event = 'nope' } })")) }
        #expect(checked?.message.hasSuffix("route 'e://x', step 1: no event 'nope' (events: background, foreground, pushReceived, refresh)") == true, "\(checked?.message ?? "no error")")
    }

    /// A finished flow hears nothing: its handlers went with it.
    @Test func aFinishedFlowHearsNoEvent() throws {
        let runtime = try Self.runtime()
        try runtime.app.tap("open")
        try runtime.run("child:finish()", name: "=test")
        try runtime.run("heard = {} event('pushReceived', { thread = 1 })", name: "=test")
        #expect(try runtime.lua.evaluate("return heard", as: [String].self) == ["Main 1"])
    }
}
