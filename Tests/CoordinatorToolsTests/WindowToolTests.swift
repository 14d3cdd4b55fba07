import Foundation
import Testing
import CoordinatorCore
import CoordinatorScript
import CoordinatorTools
import TestSupport

/// What the tools make of several windows: exploration opens, chooses and closes them up to
/// `--max-windows` (a fault only two windows have is found, with its path, and its test reproduces it),
/// both ways of exploring agree, and the REPL lists them.
@Suite struct WindowToolTests {
    static let app = """
        local flow = require "coordinator"
        flow.screen "Home" { inputs = { "private" }, outputs = { "private", "broadcast" } }
        local Home = flow.coordinator "Home"
        function Home:start()
          local home = self:push("Home", { private = false })
          home.onPrivate = function() home.private = not home.private end
          home.onBroadcast = function() self:send("clear", nil, { windows = "all" }) end
          self:onSignal("clear", function()
            if home.private then error("a private window cannot be cleared from another") end
          end)
        end
        flow.app(Home)
        """

    static func explore(_ script: String, windows: Int, replay: Bool = false) throws -> ExploreReport {
        var options = Explorer.Options()
        options.maxWindows = windows
        options.replay = replay
        return try Explorer(options: options) {
            let runtime = try ScriptRuntime(imageable: true)
            runtime.app.setIdiom(.pad) // a pad's app opens windows
            try Explorer.prepare(runtime)
            try runtime.load(script: script)
            return runtime
        }.run()
    }

    @Test func exploringTwoWindowsFindsWhatOnlyTwoHave() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("app.lua", Self.app)
        let one = try Self.explore(script, windows: 1)
        #expect(one.errors.isEmpty && one.complete && one.states.count == 2, "\(one.text)")
        let two = try Self.explore(script, windows: 2)
        #expect(two.complete, "window numbers are no part of a state: closing and opening again comes back (\(two.text))")
        #expect(two.errors.count == 1, "\(two.text)")
        #expect(two.errors.first?.path.contains(.openWindow) == true, "\(two.text)")
        #expect(two.transitions.contains { if case .closeWindow = $0.action { true } else { false } })
        let replayed = try Self.explore(script, windows: 2, replay: true)
        #expect(replayed.fingerprint == two.fingerprint, "both ways of exploring find the same")
        let tests = two.testFile(app: script)
        #expect(tests.contains("openWindow()"), "\(tests)")
        let reproductions = try two.reproduce(testFile: try folder.write("found_test.lua", tests), timeLimit: 5, limits: RuntimeLimits())
        let reproduced = reproductions.allSatisfy(\.reproduced)
        #expect(reproduced, "\(reproductions.map(\.outcome))")
    }

    @Test func theREPLListsTheWindows() throws {
        let folder = try TemporaryDirectory()
        let session = try REPLTranscript(script: try folder.write("app.lua", Self.app), idiom: .pad)
        session.line("openWindow()")
        #expect(session.line(":windows") == "  window 1: Home\n* window 2: Home\n")
        session.line("closeWindow(1)")
        #expect(session.line(":windows") == "* window 2: Home\n")
        #expect(session.errors.isEmpty, "\(session.errors)")
    }
}
