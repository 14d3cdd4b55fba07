import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// Requests that answer later: started by a flow, answered by the outside as a step of its own (never in
/// the operation that started them), cancelled with their flow, undone with a failed line.
@Suite struct RequestTests {
    static let app = """
        local flow = require "coordinator"
        flow.request "load" { examples = { ok = { n = 1 }, failed = { error = "offline" } } }
        flow.screen "Home" { outputs = { "load", "boom" } }
        answers = {}
        local Main = flow.coordinator "Main"
        function Main:start()
          local home = self:push("Home")
          home.onLoad = function()
            local r = self:request("load", { page = #answers + 1 })
            r.onResult = function(outcome, value) table.insert(answers, outcome .. " " .. tostring(value.n or value.error)) end
            last = r
          end
          home.onBoom = function() self:request("load") error("after starting it") end
        end
        flow.app(Main)
        """

    static func runtime() throws -> ScriptRuntime { try startedApp(app) }

    func answers(_ runtime: ScriptRuntime) throws -> [String] { try runtime.lua.evaluate("return answers", as: [String].self) }

    @Test func theOutsideAnswersInTheOrderItChooses() throws {
        let runtime = try Self.runtime()
        try runtime.app.tap("load")
        try runtime.app.tap("load")
        #expect(runtime.app.pendingRequests.map(\.kind) == ["load", "load"])
        #expect(try answers(runtime).isEmpty) // never answered inside the step that started it
        // The second first, with a value of its own; then the oldest, with its outcome's example.
        try runtime.run("answer(pending('load')[2], 'ok', { n = 2 })", name: "=test")
        #expect(runtime.app.steps.last == .answer("load", nth: 1, outcome: "ok", value: ["n": 2]))
        #expect(UserStep.answer("load", nth: 1, outcome: "ok", value: ["n": 2]).luaSource == #"answer(pending("load")[2], "ok", {n = 2})"#)
        try runtime.run("answer('load', 'failed')", name: "=test")
        #expect(try answers(runtime) == ["ok 2", "failed offline"])
        #expect(runtime.app.pendingRequests.isEmpty)
        #expect(try runtime.lua.evaluate("return last.pending", as: Bool.self) == false)
    }

    @Test func aFailedLineTakesBackTheRequestsItStartedAndTheHandlersItSet() throws {
        let runtime = try Self.runtime()
        // A tap whose handler starts a request and then fails: the request was never started.
        #expect(luaError { try runtime.app.tap("boom") }?.message == "app:13: after starting it")
        #expect(runtime.app.pendingRequests.isEmpty)
        try runtime.app.tap("load")
        let error = luaError { try runtime.run("last.onResult = nil error('no')", name: "=test") }
        #expect(error?.message == "test:1: no")
        try runtime.run("answer('load', 'ok')", name: "=test")
        #expect(try answers(runtime) == ["ok 1"]) // the handler is the one the failed line did not remove
    }

    @Test func aRequestCancelledOrOfAFinishedFlowIsNeverAnswered() throws {
        let runtime = try Self.runtime()
        try runtime.app.tap("load")
        try runtime.run("last:cancel()", name: "=test")
        let none = luaError { try runtime.run("answer('load', 'ok')", name: "=test") }
        #expect(none?.message == "test:1: no request load is pending")
        try runtime.app.tap("load")
        try runtime.run("require('coordinator').restart('authorization')", name: "=test")
        #expect(runtime.app.pendingRequests.isEmpty)
        #expect(try answers(runtime).isEmpty)
    }

    @Test func aRequestIsDeclaredAndNamedAsTheOtherDeclarationsAre() throws {
        let runtime = try Self.runtime()
        try runtime.app.tap("load")
        let before = runtime.app.stateDescription
        for (line, message) in [
            ("answer('lod', 'ok')", "no request 'lod' (requests: load; declare one with flow.request)"),
            ("answer('load', 'maybe')", "request load has no outcome 'maybe' (outcomes: failed, ok)"),
            ("answer(pending('load')[1], 'ok') answer(last, 'ok')", "request load#"),
        ] {
            let error = luaError { try runtime.run(line, name: "=test") }
            #expect(error?.message.hasPrefix("test:1: " + message) == true, "\(line): \(error?.message ?? "no error")")
            #expect(runtime.app.stateDescription == before && runtime.app.pendingRequests.count == 1)
        }
        for (spec, message) in [
            ("flow.request 'x' {}", "request x: examples = { outcome = value, ... } names its outcomes, each with an example value"),
            ("flow.request 'x' { examples = {} }", "request x: declare at least one outcome in examples"),
            ("flow.request 'x' { outcomes = {} }", "request x's fields have no 'outcomes' (they take: examples, secret)"),
        ] {
            let fresh = try ScriptRuntime(driverFunctions: true)
            fresh.lua.tracebacks = false
            let error = luaError { try fresh.run("local flow = require 'coordinator' " + spec, name: "=app") }
            #expect(error?.message == "app:1: " + message, "\(spec): \(error?.message ?? "no error")")
        }
    }

    /// Answers are steps: a snapshot replays them, its pending requests come back pending.
    @Test func aSnapshotReplaysAnswersAndKeepsWhatIsPending() throws {
        let runtime = try Self.runtime()
        try runtime.app.tap("load")
        try runtime.app.tap("load")
        try runtime.run("answer(pending('load')[2], 'ok', { n = 9 })", name: "=test")
        let json = try runtime.snapshot()
        #expect(try FlowValue(json: json)["steps"]?.listValue?.last == ["answer": "load", "outcome": "ok", "nth": 2, "value": ["n": 9]])
        let fresh = try Self.runtime()
        try fresh.restore(json)
        #expect(try answers(fresh) == ["ok 9"])
        #expect(fresh.app.pendingRequests.count == 1)
    }
}
