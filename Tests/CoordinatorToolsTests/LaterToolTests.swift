import Foundation
import Testing
import CoordinatorCore
import CoordinatorScript
import CoordinatorTools
import TestSupport

/// What the tools make of `self:later`: a REPL line and a flow test's step report a later that failed (the
/// step stands in the REPL), exploration reports it as an error with its path, and a later leaves no state
/// between the step that made it and itself, where `after(0)` does.
@Suite struct LaterToolTests {
    static let app = """
        local flow = require "coordinator"
        flow.screen "Home" { outputs = { "fail" } }
        flow.screen "Next" { inputs = { "n" } }
        local Home = flow.coordinator "Home"
        function Home:start()
          self:push("Home").onFail = function()
            self:push("Next", { n = 1 })
            self:later(function() self:push("Next", { n = 2 }); error("the later broke") end)
          end
        end
        flow.app(Home)
        """

    @Test func aREPLLineReportsAFailedLaterAndKeepsItsStep() throws {
        let folder = try TemporaryDirectory()
        let session = try REPLTranscript(script: try folder.write("app.lua", Self.app))
        session.line("tap('fail')")
        #expect(session.errors.count == 1 && session.errors[0].contains("a later of Home#") && session.errors[0].contains("app.lua:8: the later broke"),
                "\(session.errors)")
        #expect(session.repl.runtime.app.window.visibleStack.map(\.name) == ["Home", "Next"])
        #expect(session.repl.runtime.app.window.visibleScreen?["n"] == 1)
    }

    @Test func aFlowTestFailsAtTheLineWhoseLaterFailed() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("app.lua", Self.app)
        let file = try folder.write("app_test.lua", """
            app "app.lua"
            test("a later that fails", function()
              tap("fail")
            end)
            """)
        let results = try FlowTests.run(file)
        let failure = results.first?.outcome.failure
        #expect(failure?.location?.hasSuffix("/app_test.lua:3") == true, "\(String(describing: failure))")
        #expect(failure?.message.contains("a later of Home#") == true && failure?.message.contains("the later broke") == true, "\(String(describing: failure))")
    }

    @Test(arguments: [true, false]) func explorationReportsAFailedLaterAsAnErrorWithItsPath(imageable: Bool) throws {
        let folder = try TemporaryDirectory()
        let report = try RandomDrawToolTests.explore(try folder.write("app.lua", Self.app), imageable: imageable)
        #expect(report.errors.count == 1, "\(report.text)")
        #expect(report.errors.first?.message.contains("a later of Home failed") == true, "\(report.text)")
        #expect(report.errors.first?.path == [.tap("fail", payload: nil)])
        #expect(report.states.contains { $0.seen.screen == "Next" }, "the step stood")
    }

    /// The browser shows its share sheet right after the menu goes: no state has the menu gone and the
    /// share sheet not yet shown, so no other sheet comes between. With `after(0)` in its place the user
    /// could open the menu again before the timer fires, and a share sheet would show over the menu.
    @Test func noStateLiesBetweenAStepAndItsLater() throws {
        let folder = try TemporaryDirectory()
        let browser = try String(contentsOfFile: repositoryRoot + "/examples/browser.lua", encoding: .utf8)
        func sheetsTogether(_ script: String) throws -> Bool {
            let report = try RandomDrawToolTests.explore(try folder.write("browser.lua", script), imageable: true, depth: 8)
            return report.states.contains { $0.seen.shownTypes.contains("Menu") && $0.seen.shownTypes.contains("Share") }
        }
        #expect(try !sheetsTogether(browser))
        let timer = browser.replacingOccurrences(of: "self:later(function()", with: "self:after(0, function()")
        #expect(timer != browser)
        #expect(try sheetsTogether(timer))
    }
}
