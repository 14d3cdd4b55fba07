import Foundation
import Testing
import CoordinatorCore
import CoordinatorScript
import CoordinatorTools
import TestSupport

/// Random draws (`flow.random`) as the tools take them: exploration takes each value as a branch, a flow
/// test gives each with `random(k)`, the REPL's time travel gives a line its own draws again.
@Suite(.serialized) struct RandomDrawToolTests {
    /// A table with a die: `roll` shows the face drawn (a six its own screen); a 3 draws again (a bonus from
    /// 1 to 2) and shows 30 + bonus. `draw` is the call that draws from 1 to 6; an invariant says 32 never
    /// shows, unless `invariant` is false.
    static func dice(draw: String = "flow.random(6)", invariant: Bool = true) -> String {
        """
        local flow = require "coordinator"
        flow.screen "Table" { outputs = { "roll" } }
        flow.screen "Six" { outputs = { "again" } }
        flow.screen "Face" { inputs = { "value" }, outputs = { "again" } }
        local Game = flow.coordinator "Game"
        function Game:start()
          self:push("Table").onRoll = function()
            local value = \(draw)
            if value == 3 then value = 30 + flow.random(2) end
            local screen = value == 6 and self:push("Six") or self:push("Face", { value = value })
            screen.onAgain = function() self:pop() end
          end
        end
        \(invariant ? "flow.invariant(\"never 32\", function(app) local top = app.top() return not (top.name == \"Face\" and top.value == 32) end)" : "")
        flow.app { authorization = Game }
        """
    }

    static func explore(_ script: String, imageable: Bool, depth: Int = 20) throws -> ExploreReport {
        var options = Explorer.Options()
        options.depth = depth
        return try Explorer(options: options) {
            let runtime = try ScriptRuntime(imageable: imageable)
            try Explorer.prepare(runtime)
            try runtime.load(script: script)
            return runtime
        }.run()
    }

    /// Each value of a draw is a transition of its own, a second draw in the same step too; both ways of
    /// exploring find the same states, and the finding's path says which values it drew.
    @Test(arguments: [true, false]) func eachValueOfADrawIsABranch(imageable: Bool) throws {
        let folder = try TemporaryDirectory()
        let report = try Self.explore(try folder.write("dice.lua", Self.dice()), imageable: imageable)
        #expect(report.reachedFixedPoint)
        // Table, Six, Face 1, 2, 4, 5, 31, 32.
        #expect(report.states.count == 8, "\(report.text)")
        let rolls = report.transitions.filter { $0.from == 0 }.map(\.action.luaSource).sorted()
        #expect(rolls == ["random(1) tap(\"roll\")", "random(2) tap(\"roll\")", "random(3) random(1) tap(\"roll\")",
                          "random(3) random(2) tap(\"roll\")", "random(4) tap(\"roll\")", "random(5) tap(\"roll\")",
                          "random(6) tap(\"roll\")"])
        #expect(report.errors.isEmpty, "\(report.text)")
        #expect(report.text.contains("random(3) random(2) tap(\"roll\")"), "\(report.text)")
    }

    /// The graph draws a drawn step once where every value leads to one place, and says which values lead
    /// where they part.
    @Test func theGraphSaysWhichValuesLeadWhereTheyPart() throws {
        let recipes = FlowGraph(try Self.explore(repositoryRoot + "/examples/recipes.lua", imageable: true))
        #expect(recipes.mermaid.contains("n1 -->|\"surprise\"| n2"), "\(recipes.mermaid)")
        #expect(!recipes.mermaid.contains("random"), "\(recipes.mermaid)")
        let folder = try TemporaryDirectory()
        let dice = FlowGraph(try Self.explore(try folder.write("dice.lua", Self.dice()), imageable: true))
        #expect(dice.mermaid.contains("roll (random 6)"), "\(dice.mermaid)")
        #expect(dice.mermaid.contains("roll (random 3, 2)"), "\(dice.mermaid)")
    }

    /// The same app drawing with math.random does not close: the generator's state is part of every state.
    @Test func mathRandomKeepsTheSearchFromClosingWhereFlowRandomCloses() throws {
        let folder = try TemporaryDirectory()
        let unported = try Self.explore(try folder.write("unported.lua", Self.dice(draw: "math.random(6)")), imageable: true, depth: 8)
        #expect(!unported.reachedFixedPoint)
        #expect(unported.states.count > 8)
    }

    /// A range of more than 64 values is an error at the line that draws, in exploration as in every mode.
    @Test func aDrawAmongMoreThan64ValuesIsAnErrorAtItsLine() throws {
        let folder = try TemporaryDirectory()
        let report = try Self.explore(try folder.write("wide.lua", Self.dice(draw: "flow.random(0, 64)")), imageable: true)
        #expect(report.errors.contains { $0.message.contains("wide.lua:8: a random draw chooses among at most 64 values, not 65") }, "\(report.text)")
    }

    /// A flow test gives each draw with random(k) before its step; a draw with none given fails the step,
    /// naming the test's line and the app's.
    @Test func aFlowTestGivesEachDraw() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("dice.lua", Self.dice())
        let file = try folder.write("dice_test.lua", """
            app "dice.lua"
            test("a three draws a bonus", function()
              random(3) random(1)
              tap("roll")
              expect.screen("Face", { value = 31 })
              tap("again")
              random(6) tap("roll")
              expect.screen("Six")
            end)
            test("a draw with none given", function()
              random(3)
              tap("roll")
            end)
            test("a value out of the range", function()
              random(7)
              tap("roll")
            end)
            """)
        let results = try FlowTests.run(file)
        #expect(results.map { $0.outcome.failure == nil } == [true, false, false], "\(results.map(\.outcome))")
        let none = results[1].outcome.failure
        #expect(none?.location?.hasSuffix("/dice_test.lua:12") == true, "\(String(describing: none))")
        #expect(none?.message.contains("dice.lua:9: a random draw from 1 to 2 with no value given") == true, "\(String(describing: none))")
        #expect(results[2].outcome.failure?.message.contains("random(7) was given for a draw from 1 to 6") == true)
    }

    /// Time travel runs a line again with the values it drew: `:undo` then `:redo` comes back to the same
    /// face every time (by chance, twenty redraws of a die agree once in 3.6 × 10^15), `:history` and the
    /// recorded test say which.
    @Test func timeTravelGivesALineItsDrawsAgain() throws {
        let folder = try TemporaryDirectory()
        let session = try REPLTranscript(script: try folder.write("dice.lua", Self.dice(draw: "flow.random(5)", invariant: false)))
        session.line("tap('roll')")
        let face = session.repl.runtime.app.window.visibleScreen?["value"]
        for round in 1...20 {
            session.line(":undo")
            session.line(":redo")
            #expect(session.errors.isEmpty, "\(session.errors)")
            #expect(session.repl.runtime.app.window.visibleScreen?["value"] == face, "round \(round)")
        }
        let last = session.repl.runtime.app.steps.last
        guard case .drawn(_, let values)? = last else { Issue.record("no draw recorded: \(String(describing: last))"); return }
        let history = session.line(":history")
        #expect(history.contains(values.map { "random(\($0)) " }.joined() + "tap('roll')"), "\(history)")
    }
}
