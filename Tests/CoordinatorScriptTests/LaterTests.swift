import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// `self:later(fn)`: work right after the running operation, as part of the same step and before any
/// other; undone alone when it fails; cancelled with its coordinator.
@Suite struct LaterTests {
    static let app = """
        local flow = require "coordinator"
        flow.screen "Home" { outputs = { "chain", "fail", "forever", "cancel", "close", "count", "spin" } }
        flow.screen "Next" { inputs = { "n" }, outputs = { "again" } }
        flow.screen "Sheet" { outputs = { "close" } }
        ran = {}
        local Sheet = flow.coordinator "Sheet"
        function Sheet:start()
          self:push("Sheet").onClose = function()
            self:later(function() ran[#ran + 1] = "sheet's later" end)   -- its flow finishes first: never runs
            self:finish()
          end
        end
        local Home = flow.coordinator "Home"
        function Home:start()
          local home = self:push("Home")
          home.onChain = function()
            self:later(function() ran[#ran + 1] = "first"; self:later(function() ran[#ran + 1] = "made by first" end) end)
            self:later(function() ran[#ran + 1] = "second"; self:push("Next", { n = #ran }) end)
          end
          home.onFail = function()
            self:push("Next", { n = 1 })
            self:later(function() self:push("Next", { n = 2 }); error("the later broke") end)
          end
          home.onForever = function()
            local function again() self:later(again) end
            again()
          end
          home.onCancel = function()
            handle = self:later(function() ran[#ran + 1] = "cancelled" end)
            pendingBefore = handle.pending
            handle:cancel()
          end
          home.onClose = function() self:run(Sheet, nil, { modal = true }) end
          home.onSpin = function()
            self:push("Next", { n = 1 })
            self:later(function() while true do end end)
          end
        end
        flow.app(Home)
        flow.route("app://next", { from = "current", { on = "Home", tap = "chain" }, { on = "Next" } })
        """

    static func runtime() throws -> ScriptRuntime { try startedAppFile(app) }

    func ran(_ runtime: ScriptRuntime) throws -> LuaValue { try runtime.lua.evaluate("return table.concat(ran, ', ')", as: LuaValue.self) }

    @Test func latersRunInOrderInTheSameStepBeforeTheNext() throws {
        let runtime = try Self.runtime()
        var events: [String] = []
        let observation = runtime.app.observe { events.append("\($0)") }
        defer { observation.cancel() }
        try runtime.app.tap("chain")
        #expect(try ran(runtime) == .string("first, second, made by first"))
        #expect(runtime.app.window.visibleScreen?.name == "Next")
        #expect(runtime.app.window.visibleScreen?["n"] == 2)
        #expect(runtime.app.steps == [.tap("chain", payload: nil)], "one step of the user")
        #expect(events.filter { $0.hasPrefix("push") }.count == 1)
    }

    @Test func aFailingLaterIsUndoneAloneAndCounted() throws {
        let runtime = try Self.runtime()
        var failed: [String] = []
        let observation = runtime.app.observe { if case let .laterFailed(owner, reason) = $0 { failed.append(owner + ": " + reason) } }
        defer { observation.cancel() }
        let count = runtime.app.failedLaters.count
        try runtime.app.tap("fail")
        // The step stands (Next 1); the later's push of Next 2 is undone with it.
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Home", "Next"])
        #expect(runtime.app.window.visibleScreen?["n"] == 1)
        #expect(runtime.app.failedLaters.count == count + 1)
        #expect(runtime.app.failedLaters.last?.message.contains("app.lua:22: the later broke") == true, "\(String(describing: runtime.app.failedLaters.last))")
        #expect(failed.count == 1 && failed[0].hasPrefix("Home#"), "\(failed)")
    }

    @Test func aLaterThatMakesAnotherForeverFailsTheStep() throws {
        let runtime = try Self.runtime()
        let before = try runtime.snapshot()
        let error = #expect(throws: NavigationError.self) { try runtime.app.tap("forever") }
        #expect(error?.message.contains("more than 10000 laters ran in one step") == true, "\(error?.message ?? "")")
        #expect(try runtime.snapshot() == before)
    }

    /// What stops everything (an instruction budget used up, the user's Ctrl-C, a memory limit) is no
    /// later's own failure: the whole step fails, and the app is as before it.
    @Test func aLaterStoppedByALimitFailsItsWholeStep() throws {
        let runtime = try Self.runtime()
        try runtime.limit(memory: nil, instructions: 1_000_000)
        let before = try runtime.snapshot(), failed = runtime.app.failedLaters.count
        let error = #expect(throws: LuaError.self) { try runtime.app.tap("spin") }
        #expect(error?.kind == .budgetExhausted, "\(String(describing: error))")
        #expect(runtime.app.failedLaters.count == failed)
        #expect(try runtime.snapshot() == before)
    }

    @Test func aLaterIsCancelledByItsHandleOrWithItsCoordinator() throws {
        let runtime = try Self.runtime()
        try runtime.app.tap("cancel")
        #expect(try runtime.lua.evaluate("return pendingBefore, handle.pending", as: LuaValue.self) == .boolean(true))
        #expect(try runtime.lua.evaluate("return handle.pending", as: LuaValue.self) == .boolean(false))
        try runtime.app.tap("close")
        try runtime.app.tap("close")
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Home"])
        #expect(try ran(runtime) == .string(""))
    }

    @Test func insideALinkALaterRunsBeforeTheRoutesNextStep() throws {
        let runtime = try Self.runtime()
        try runtime.open("app://next")
        #expect(runtime.app.window.visibleScreen?.name == "Next")
        #expect(try ran(runtime) == .string("first, second, made by first"))
    }
}
