import Foundation
import Testing
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua
import TestSupport

/// Steps kept free of loops (``ScriptRuntime/dropsStepLoops``): a snapshot that finds the app in a state
/// it was in after fewer steps drops the steps since, and a restored session goes on dropping them.
@Suite struct StepLoopTests {
    /// Home opens Detail (Back closes it); `bump` counts in the coordinator's `self`, so Home after a bump is
    /// another state than Home before it.
    static let app = """
        local flow = require "coordinator"
        flow.screen "Home" { outputs = { "open", "bump" } }
        flow.screen "Detail" { outputs = { "done" } }
        local Main = flow.coordinator "Main"
        function Main:start()
          self.bumps = 0
          local home = self:push("Home")
          home.onOpen = function() self:push("Detail") end
          home.onBump = function() self.bumps = self.bumps + 1 end
        end
        flow.app { authorization = Main }
        """

    static func runtime(in folder: TemporaryDirectory, dropping: Bool = true) throws -> ScriptRuntime {
        let runtime = try ScriptRuntime()
        runtime.dropsStepLoops = dropping
        try runtime.load(script: folder.write("app.lua", app))
        return runtime
    }

    static func steps(_ json: String) throws -> [FlowValue] { try FlowValue(json: json)["steps"]?.listValue ?? [] }

    @Test func aConversationThatGoesBackAndForthKeepsOnlyThePathToWhereItIs() throws {
        let folder = try TemporaryDirectory()
        let runtime = try Self.runtime(in: folder)
        try runtime.start()
        for _ in 0..<100 {
            try runtime.app.tap("open")
            #expect(try Self.steps(runtime.snapshot()).count == 1)
            try runtime.app.perform(.back)
            #expect(try Self.steps(runtime.snapshot()).isEmpty)
        }
        #expect(runtime.app.steps.isEmpty)
        // A bump makes Home another state: its step stays, and a loop after it goes back to it, not to the start.
        try runtime.app.tap("bump")
        _ = try runtime.snapshot()
        try runtime.app.tap("open")
        _ = try runtime.snapshot()
        try runtime.app.perform(.back)
        let json = try runtime.snapshot()
        #expect(runtime.app.steps == [.tap("bump", payload: nil)])
        // What it keeps restores to the same app.
        let fresh = try Self.runtime(in: folder)
        try fresh.restore(json)
        #expect(try fresh.stateIdentity(views: false, randomState: false) == runtime.stateIdentity(views: false, randomState: false))
        #expect(fresh.app.window.visibleScreen?.name == "Home")
    }

    /// A restored session goes on dropping loops back to states noted before the restore (the start's too).
    @Test func aRestoredSessionDropsLoopsBackToStatesBeforeItsRestore() throws {
        let folder = try TemporaryDirectory()
        let first = try Self.runtime(in: folder)
        try first.start()
        try first.app.tap("open")
        let opened = try first.snapshot()
        let second = try Self.runtime(in: folder)
        try second.restore(opened)
        #expect(second.app.steps == [.tap("open", payload: nil)])
        try second.app.perform(.back)
        #expect(try Self.steps(second.snapshot()).isEmpty)
    }

    /// Off (the default, the REPL's and the flow tests'), every step stays.
    @Test func withoutItEveryStepStays() throws {
        let folder = try TemporaryDirectory()
        let runtime = try Self.runtime(in: folder, dropping: false)
        try runtime.start()
        try runtime.app.tap("open")
        _ = try runtime.snapshot()
        try runtime.app.perform(.back)
        let json = try runtime.snapshot()
        #expect(try Self.steps(json).count == 2)
        #expect(try FlowValue(json: json)["stateKeys"] == nil)
    }

    /// Hosts drop loops: a session's conversation back and forth snapshots as its path.
    @Test func aSessionDropsLoops() async throws {
        let folder = try TemporaryDirectory()
        let session = try ScriptSession()
        try await session.load(script: URL(filePath: folder.write("app.lua", Self.app)))
        try await session.start()
        for _ in 0..<3 {
            try await session.tap("open")
            _ = try await session.snapshot()
            try await session.back()
        }
        #expect(try Self.steps(await session.snapshot()).isEmpty)
    }

    /// Notes that a snapshot carries but that do not fit its steps (more steps than it has, not well formed)
    /// are left out: the restore works, and no loop is dropped on their word.
    @Test func notesThatDoNotFitTheStepsAreLeftOut() throws {
        let folder = try TemporaryDirectory()
        let first = try Self.runtime(in: folder)
        try first.start()
        try first.app.tap("bump")
        let bumped = try first.snapshot()
        try first.app.tap("open")
        let opened = try first.stateIdentity(views: false, randomState: false).key
        guard case .record(var document) = try FlowValue(json: bumped) else { Issue.record("not a record"); return }
        #expect(document["steps"]?.listValue?.count == 1)
        // The state Detail will be in, noted under more steps than the snapshot has, and entries of no shape.
        document["stateKeys"] = .list([.record(["steps": .int(2), "state": .string(opened)]), .string("x"),
                                       .record(["steps": .int(-1), "state": .string(opened)])])
        let second = try Self.runtime(in: folder)
        try second.restore(FlowValue.record(document).prettyJSON)
        try second.app.tap("open")
        #expect(try Self.steps(second.snapshot()).count == 2)
    }
}
