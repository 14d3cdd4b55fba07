import Foundation
import Testing
import CoordinatorCore
import CoordinatorScript
import CoordinatorTools
import TestSupport

/// Time travel in the REPL: `:undo`, `:redo`, `:history`, `:goto N`.
@Suite struct TimeTravelTests {
    /// The app's whole state (a snapshot without its steps), to compare two points of a session.
    static func state(_ repl: REPL) throws -> FlowValue { try snapshotState(repl.runtime.snapshot()) }

    @Test func undoAfterATapThatStartedAChildFlowRestoresTheTreeAndTheStacks() throws {
        let session = try REPLTranscript(script: repositoryRoot + "/examples/shop.lua")
        session.line("open('shop://catalog/shoes/42')")
        session.line("tap('add')")
        let before = try Self.state(session.repl)
        let tree = session.line(":tree"), hierarchy = session.line(":hierarchy")
        session.line("tap('buy')") // starts the Checkout flow, modally
        #expect(session.repl.runtime.app.root?.children.map(\.name) == ["Catalog", "Cart", "Profile", "Checkout"])
        let shown = session.line(":undo")
        #expect(session.errors.isEmpty, "\(session.errors)")
        #expect(shown.contains("== Product ==") && shown.contains("tabs: [Catalog] | Cart (1) | Profile"))
        #expect(try Self.state(session.repl) == before)
        #expect(session.line(":tree") == tree && session.line(":hierarchy") == hierarchy) // ids included
        // The app after undo is live: its outputs work.
        session.line("tap('buy')")
        #expect(session.repl.runtime.app.window.visibleStack.map(\.name) == ["Categories", "Products", "Product", "Checkout"])
    }

    /// Travel takes the storage back too, and its store keeps what the app now has: the lines run again from
    /// the storage the session began with, whatever the store holds by then; a relaunch is a line like any.
    @Test func undoTakesTheStorageBackAndItsStoreFollows() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path + "/storage.json"
        try folder.write("storage.json", #"{ "launches": 1 }"#)
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.useStorage(FileStorage(path: path))
        try runtime.load(script: repositoryRoot + "/examples/bank.lua")
        try runtime.start()
        var errors: [String] = []
        let repl = try REPL(runtime: runtime, mode: .repl, output: REPL.Output(write: { _ in }, error: { errors.append($0) }))
        func stored() throws -> FlowValue { try FlowValue(json: String(contentsOfFile: path, encoding: .utf8)) }
        repl.handle("tap('next')")
        repl.handle("tap('login', { name = 'Ann', password = 'secret' }) answer('signIn', 'ok')")
        repl.handle("relaunch()")
        #expect(errors.isEmpty, "\(errors)")
        #expect(try stored() == ["launches": 1, "onboarded": true, "token": "t-7f3a", "user": "Ann"])
        repl.handle(":undo") // the relaunch
        repl.handle(":undo") // the sign-in
        #expect(errors.isEmpty, "\(errors)")
        #expect(repl.runtime.app.storage.values == ["launches": 1, "onboarded": true])
        #expect(try stored() == ["launches": 1, "onboarded": true])
        #expect(repl.runtime.app.window.visibleStack.map(\.name) == ["Login"])
        repl.handle(":redo")
        #expect(try stored() == ["launches": 1, "onboarded": true, "token": "t-7f3a", "user": "Ann"])
        // The runtime travel made is the store's now: a step it takes is saved.
        repl.handle("tap('signOut')")
        #expect(try stored() == ["launches": 1, "onboarded": true])
    }

    @Test func theTimeLimitHoldsForATravelAsAWholeNotForEachLineItReplays() throws {
        let session = try REPLTranscript(script: repositoryRoot + "/examples/shop.lua")
        session.repl.timeLimit = 3
        // Ten lines that each wait 0.35 s for a command: each well within the limit (2.65 s to spare on a busy
        // machine), the ten together never (at least 3.5 s, whatever the machine).
        for _ in 1...10 {
            session.line("os.execute('sleep 0.35') n = (n or 0) + 1")
            #expect(session.errors.isEmpty, "\(session.errors)")
        }
        session.line("tap('open', top().categories[1])")
        session.line(":goto 10")
        #expect(session.errors.count == 1)
        #expect(session.errors.first?.contains("timed out replaying line ") == true, "\(session.errors)")
        #expect(session.errors.first?.contains("the time limit holds for the whole travel, so the app stays as it is") == true)
        #expect(session.repl.runtime.app.window.visibleStack.map(\.name) == ["Categories", "Products"])
        #expect(session.line("=n") == "10\n")
        // Without a limit the same travel arrives.
        session.repl.timeLimit = nil
        session.line(":goto 10")
        #expect(session.errors.isEmpty, "\(session.errors)")
        #expect(session.repl.runtime.app.window.visibleStack.map(\.name) == ["Categories"])
    }

    @Test func theHistoryKeepsItsLimitAndTravelStartsWhereTheAppWasSaved() throws {
        let folder = try TemporaryDirectory()
        let session = try REPLTranscript(script: repositoryRoot + "/examples/shop.lua")
        session.repl.historyLimit = 8
        session.line("tap('open', top().categories[1])")                    // line 1
        for i in 2...20 { session.line("x\(i) = \(i)") }                     // lines 2-20: Lua only
        session.line("tap('open', top().products[1])")                      // line 21
        for i in 22...30 { session.line("y\(i) = \(i)") }
        #expect(session.errors.isEmpty, "\(session.errors)")
        let history = session.line(":history")
        let start = try #require(history.firstMatch(of: /time travel starts after line (\d+): the REPL keeps the last 8 lines/))
        let base = try #require(Int(start.1))
        #expect(base > 1 && base < 30)
        // Before the lines kept: refused, the app as it is.
        session.line(":goto 1")
        #expect(session.errors.first?.contains("line 1 is before the lines kept: time travel starts after line \(base)") == true, "\(session.errors)")
        #expect(session.repl.runtime.app.window.visibleStack.map(\.name) == ["Categories", "Products", "Product"])
        // Back to where the lines kept begin: the app as it was then, from its snapshot.
        session.line(":goto \(base)")
        #expect(session.errors.isEmpty, "\(session.errors)")
        #expect(session.repl.runtime.app.window.visibleStack.map(\.name) == (base < 21 ? ["Categories", "Products"] : ["Categories", "Products", "Product"]))
        session.line(":goto 30")
        #expect(session.repl.runtime.app.window.visibleStack.map(\.name) == ["Categories", "Products", "Product"])
        #expect(session.line("=y30") == "30\n")
        // A recording made now starts from the saved app, and replays.
        let test = folder.path + "/recorded_test.lua"
        session.line(":record \(test)")
        session.line("back()")
        session.line(":record stop")
        #expect(session.errors.isEmpty, "\(session.errors)")
        let written = try #require(readFile(test))
        #expect(written.contains("restore("))
        let results = try FlowTests.run(test)
        #expect(results.allSatisfy { $0.outcome == .passed }, "\(results)")
    }

    @Test func redoHistoryAndGotoMoveAlongTheLinesThatChangedTheApp() throws {
        let session = try REPLTranscript(script: repositoryRoot + "/examples/shop.lua")
        session.line("tap('open', top().categories[1])")   // line 1
        session.line("x = 41")                              // line 2: Lua only
        session.line("tap('open', top().products[1])")     // line 3
        session.line("=stack()")                            // line 4: reads only
        session.line("tap('add')")                          // line 5
        #expect(session.line(":history") == "  1    tap('open', top().categories[1])\n  3    tap('open', top().products[1])\n* 5    tap('add')\n")
        session.line(":undo")
        session.line(":undo")
        #expect(session.repl.runtime.app.window.visibleStack.map(\.name) == ["Categories", "Products"])
        #expect(session.line("=x + 1") == "42\n") // Lua state the kept lines made is there
        #expect(session.line(":history").contains("  3    tap('open', top().products[1])  (undone)\n"))
        session.line(":redo")
        #expect(session.repl.runtime.app.window.visibleStack.map(\.name) == ["Categories", "Products", "Product"])
        #expect(session.repl.runtime.app.window.visibleScreen?["inCart"] == false)
        session.line(":goto 5")
        #expect(session.repl.runtime.app.window.visibleScreen?["inCart"] == true)
        session.line(":goto 0")
        #expect(session.repl.runtime.app.window.visibleStack.map(\.name) == ["Categories"])
        session.line(":goto 7")
        #expect(session.errors.last?.contains("line 7 is not a line that ran (lines that changed the app: 1, 3, 5)") == true)
        // A new line that changes the app ends the redo.
        session.line("tap('open', top().categories[2])")
        session.line(":redo")
        #expect(session.errors.last?.contains("nothing to redo") == true)
        #expect(session.repl.runtime.app.window.visibleStack.map(\.name) == ["Categories", "Products"])
        #expect(session.repl.runtime.app.window.visibleScreen?["category"] == "Shirts")
    }

    @Test func undoAfterAReloadKeepsTheNewCodeAndTakesTheStateBack() throws {
        let folder = try TemporaryDirectory()
        let source = """
            local flow = require "coordinator"
            flow.screen "Counter" { inputs = { "n" }, outputs = { "inc" }, render = function(s) return "n = " .. s.n end }
            local App = flow.coordinator "App"
            function App:start()
              local s = self:push("Counter", { n = 0 })
              s.onInc = function() s.n = s.n + 1 end
            end
            flow.app(App)
            """
        let script = try folder.write("counter.lua", source)
        let session = try REPLTranscript(script: script)
        session.line("tap('inc')")
        session.line("tap('inc')")
        try folder.write("counter.lua", source.replacingOccurrences(of: "s.n = s.n + 1", with: "s.n = s.n + 10")
            .replacingOccurrences(of: "\"n = \" .. s.n", with: "\"count: \" .. s.n"))
        session.line(":reload")
        session.line("tap('inc')")
        #expect(session.repl.runtime.app.window.visibleScreen?["n"] == 12)
        let undone = session.line(":undo")
        // The state is back before the last tap (two taps of the old code: 2), and the code is the new one:
        // its rendering, and its handler at the next tap.
        #expect(session.errors.isEmpty, "\(session.errors)")
        #expect(session.repl.runtime.app.window.visibleScreen?["n"] == 2)
        #expect(undone.contains("count: 2"), "\(undone)")
        session.line("tap('inc')")
        #expect(session.repl.runtime.app.window.visibleScreen?["n"] == 12)
        // Before the first tap, and after the second (the reload between is made again where it was).
        session.line(":goto 0")
        #expect(session.repl.runtime.app.window.visibleScreen?["n"] == 0)
        session.line(":goto 2")
        #expect(session.repl.runtime.app.window.visibleScreen?["n"] == 2)
        session.line(":redo")
        #expect(session.repl.runtime.app.window.visibleScreen?["n"] == 12)
    }

    @Test func aLineThatFailsWhenRunAgainLeavesTheAppAsItIs() throws {
        let folder = try TemporaryDirectory()
        let input = try folder.write("input.txt", "Ann\n")
        let session = try REPLTranscript()
        session.line("name = io.open('\(input)'):read('l')")
        session.line("tap('login', { name = name, password = 'secret' })")
        session.line("tap('selectCity')")
        try FileManager.default.removeItem(atPath: input)
        let before = session.repl.runtime.app.stateDescription
        session.line(":undo")
        #expect(session.errors.last?.contains("line 1 fails now, so the app stays as it is") == true, "\(session.errors)")
        #expect(session.repl.runtime.app.stateDescription == before)
        #expect(session.repl.runtime.app.window.visibleScreen?.name == "Regions")
    }

    /// The steps a recording written after `:undo` or `:goto` holds: those of the lines the app is the result
    /// of, not the ones taken back. Replaying the file ends where the session is, which a file with the
    /// undone steps would not (it passes too, on the app it describes: so the steps are checked as written).
    @Test func aRecordingStartedAfterUndoOrGotoHoldsOnlyTheStepsThatMadeTheApp() throws {
        let folder = try TemporaryDirectory()
        let session = try REPLTranscript(script: repositoryRoot + "/examples/shop.lua")
        session.line("tap('open', top().categories[1])")   // line 1
        session.line("tap('open', top().products[1])")     // line 2
        session.line("tap('add')")                         // line 3
        session.line(":undo")
        session.line(":undo")
        #expect(session.errors.isEmpty, "\(session.errors)")
        let test = folder.path + "/after_undo_test.lua"
        #expect(session.line(":record \(test)").contains("(1 steps so far)"))
        session.line(":record stop")
        let written = try #require(readFile(test))
        #expect(written.components(separatedBy: "tap(").count == 2, "\(written)")
        #expect(!written.contains("add") && written.contains("expect.stack { \"Categories\", \"Products\" }"), "\(written)")
        #expect(try FlowTests.run(test).allSatisfy { $0.outcome == .passed })

        // :redo brings the steps back; :goto 0 takes them all.
        session.line(":redo")
        session.line(":record \(test)")
        session.line(":record stop")
        #expect(try #require(readFile(test)).components(separatedBy: "tap(").count == 3)
        session.line(":goto 0")
        session.line(":record \(test)")
        session.line(":record stop")
        #expect(try #require(readFile(test)).components(separatedBy: "tap(").count == 1)
    }

    /// Time travel while recording writes the file again: it always replays to the app as it is.
    @Test func undoWhileRecordingTakesTheUndoneStepsOutOfTheFile() throws {
        let folder = try TemporaryDirectory()
        let session = try REPLTranscript(script: repositoryRoot + "/examples/shop.lua")
        let test = folder.path + "/recording_test.lua"
        session.line(":record \(test)")
        session.line("tap('open', top().categories[1])")   // line 2
        session.line("tap('open', top().products[1])")     // line 3
        session.line(":undo")
        session.line("tap('open', top().products[2])")     // line 5: replaces line 3, which no redo brings back
        session.line(":record stop")
        #expect(session.errors.isEmpty, "\(session.errors)")
        let written = try #require(readFile(test))
        #expect(written.components(separatedBy: "tap(").count == 3, "\(written)")
        #expect(written.contains("products[2]") && !written.contains("products[1]"), "\(written)")
        #expect(written.hasSuffix("end)\n"))
        let results = try FlowTests.run(test)
        #expect(results.count == 1 && results.allSatisfy { $0.outcome == .passed }, "\(results)")
    }
}
