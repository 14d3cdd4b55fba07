import Foundation
import Testing
import TestSupport

/// `coordrun test` on a terminal: a progress line on standard error while the tests run, written over as
/// each ends and gone once the summary prints.
@Suite struct TestProgressTests {
    @Test func aLongRunShowsItsProgressAndLeavesOnlyTheSummary() throws {
        let folder = try TemporaryDirectory()
        // The second test waits until this test lets it end (it creates GO): the line is seen mid-run.
        try folder.write("wait_test.lua", """
            app "\(repositoryRoot)/scripts/app.lua"
            test("first", function() end)
            test("waits for GO", function()
              while not io.open("GO") do end
            end)
            """)
        let session = try TerminalSession([Programs.coordrun, "test", "--timeout", "0", "wait_test.lua"],
                                          environment: ["TERM": "xterm", "NO_COLOR": "1"], folder: folder.path)
        let running = try session.waitFor("1 passed, 0 failed · 0 of 1 file · wait_test.lua")
        #expect(!running.contains("[exit"))
        try folder.write("GO", "")
        let ended = try session.waitFor("[exit 0]")
        let lines = ended.split(separator: "\n").map { $0.trimmingSuffix() }
        #expect(lines.contains("2 passed, 0 failed"), "\(ended)")
        #expect(!ended.contains("·"), "the progress line stayed: \(ended)")
    }

    /// Standard error to a file: no progress line at all, the output exactly as without a terminal.
    @Test func noProgressLineWhereStandardErrorIsNoTerminal() throws {
        let folder = try TemporaryDirectory()
        try folder.write("one_test.lua", "app \"\(repositoryRoot)/scripts/app.lua\"\ntest(\"one\", function() end)\n")
        let errors = folder.path + "/errors.txt"
        let session = try TerminalSession(["/bin/sh", "-c", "exec \(shellQuote(Programs.coordrun)) test one_test.lua 2>errors.txt"],
                                          environment: ["TERM": "xterm"], folder: folder.path)
        _ = try session.waitFor("[exit 0]")
        #expect(readFile(errors) == "")
    }
}

/// `coordrun storyboard` on a terminal: the exploration's progress on standard error while it runs, gone
/// before the command's own line.
@Suite struct StoryboardProgressTests {
    @Test func theExplorationShowsItsProgressAndLeavesOnlyTheResult() throws {
        let folder = try TemporaryDirectory()
        // A counter whose 700th step waits until this test lets it go (it creates GO): past 500 expanded
        // states the progress line is up, and it is seen mid-run.
        try folder.write("count.lua", """
            local flow = require "coordinator"
            flow.screen "Count" { inputs = { "n" }, outputs = { "inc" } }
            local App = flow.coordinator "App"
            function App:start()
              local screen = self:push("Count", { n = 0 })
              screen.onInc = function()
                if screen.n >= 700 then while not io.open("GO") do end return end
                screen.n = screen.n + 1
              end
            end
            flow.app(App)
            """)
        let session = try TerminalSession([Programs.coordrun, "storyboard", "count.lua", "-o", "board", "--timeout", "0", "--depth", "800"],
                                          environment: ["TERM": "xterm", "NO_COLOR": "1"], folder: folder.path)
        let running = try session.waitFor("transitions/s")
        #expect(running.contains("storyboard: 501 states, 500 transitions"), "\(running)")
        try folder.write("GO", "")
        let ended = try session.waitFor("[exit 0]")
        #expect(ended.contains("storyboard: board/index.html"), "\(ended)")
        #expect(!ended.contains("transitions/s") && !ended.contains("drawing the flow"), "the progress line stayed: \(ended)")
    }
}
