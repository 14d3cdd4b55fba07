import Foundation
import Testing
import TestSupport
import CoordinatorTools

/// The web preview's session: each action a page sends is a REPL line (so it is in the history and a
/// recorded test), the state says what a person sees, and a request that is no action changes nothing.
@Suite struct PreviewSessionTests {
    func session(_ script: String = repositoryRoot + "/scripts/app.lua") throws -> PreviewSession {
        let runtime = try ScriptRuntime()
        try runtime.load(script: script)
        try runtime.start()
        final class Sink { var session: PreviewSession? }
        let sink = Sink()
        let repl = try REPL(runtime: runtime, output: REPL.Output(write: { sink.session?.capture(text: $0) }, error: { sink.session?.capture(error: $0) }))
        let session = PreviewSession(repl: repl)
        sink.session = session
        return session
    }

    func state(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    /// Beside a split's columns, the page gets every column's top screen and actions, each with its column;
    /// pages give their titles and the one shown, and a page action is a swipe.
    @Test func splitColumnsAndPagesAreInTheState() throws {
        let split = try session(repositoryRoot + "/examples/split.lua")
        let actions = try #require(try state(split.state)["actions"] as? [[String: Any]])
        #expect(actions.map { $0["column"] as? String } == ["primary", "primary"])
        let opened = try state(try split.perform(json: #"{"action": "choose", "number": 2}"#))
        #expect((opened["actions"] as? [[String: Any]])?.map { "\($0["column"] ?? "-") \($0["label"] ?? "-")" } == ["primary Wi-Fi  (open)", "primary Bluetooth  (open)", "secondary toggle"])
        // Each column's top screen, primary first, as the page draws them side by side.
        #expect((opened["columns"] as? [[String: Any]])?.map { "\($0["column"] ?? "-") \($0["title"] ?? "-") \($0["text"] ?? "-")" }
                == ["primary Settings ", "secondary Setting Bluetooth: off"])
        // In a compact window the split is one stack: no columns.
        _ = try split.perform(json: #"{"action": "lua", "code": "sizeClass('compact')"}"#)
        #expect(try state(split.state)["columns"] == nil)
        let pages = try session(repositoryRoot + "/examples/pages.lua")
        #expect((try state(pages.state)["pages"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Users", "News"])
        let swiped = try state(try pages.perform(json: #"{"action": "page", "number": 2}"#))
        #expect((swiped["pages"] as? [[String: Any]])?.last?["selected"] as? Bool == true)
        #expect((swiped["history"] as? [[String: Any]])?.last?["text"] as? String == "swipeTo(2)")
    }

    /// An alert's cancel and destructive actions carry their role (and run mode's label says it); a screen of
    /// the app's own whose inputs happen to be named `cancel` and `destructive` has no roles.
    @Test func anAlertsActionsCarryTheirRolesAndNoOtherScreensDo() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("app.lua", """
            local flow = require "coordinator"
            flow.screen "Form" { inputs = { "cancel", "destructive" }, outputs = { "go", "ask" } }
            local App = flow.coordinator "App"
            function App:start()
              self:push("Form", { cancel = "go", destructive = { "ask" } }).onAsk = function()
                self:alert { title = "Sure?", actions = { { "Delete", style = "destructive" }, "Keep", { "Cancel", style = "cancel" } } }
              end
            end
            flow.app(App)
            """)
        let preview = try session(script)
        let form = try #require(try state(preview.state)["actions"] as? [[String: Any]])
        #expect(form.map { "\($0["label"] ?? "-") \($0["role"] ?? "-")" } == ["go -", "ask -"])
        let alert = try #require(try state(try preview.perform(json: #"{"action": "choose", "number": 2}"#))["actions"] as? [[String: Any]])
        #expect(alert.map { "\($0["label"] ?? "-") \($0["role"] ?? "-")" } == ["Delete (destructive) destructive", "Keep -", "Cancel (cancel) cancel"])
    }

    @Test func actionsAreREPLLinesAndTheStateIsWhatAPersonSees() throws {
        let preview = try session()
        var state = try state(preview.state)
        let screen = try #require(state["screen"] as? [String: Any])
        #expect(screen["title"] as? String == "Sign in" && screen["text"] as? String == "Enter your name and password.")
        let actions = try #require(state["actions"] as? [[String: Any]])
        #expect(actions.first?["kind"] as? String == "value" && (actions.first?["examples"] as? [String])?.count == 2)
        #expect(actions.first?["secret"] as? Bool == true) // the page types it into a field that does not show it
        state = try self.state(try preview.perform(json: #"{"action": "tap", "output": "login", "payload": "{ name = 'Ann', password = 'hunter2' }"}"#))
        #expect((state["screen"] as? [String: Any])?["alert"] as? Bool == true)
        #expect((state["screen"] as? [String: Any])?["title"] as? String == "Login failed")
        state = try self.state(try preview.perform(json: #"{"action": "choose", "number": 1}"#))
        #expect(state["stack"] as? [String] == ["Login"])
        let history = try #require(state["history"] as? [[String: Any]])
        // The typed password is never in the state pages get: the line shows the step it took, masked.
        #expect(history.map { $0["text"] as? String } == [#"tap("login", {name = "Ann", password = "•••"})"#, #"tap("OK")"#])
        #expect(!preview.state.contains("hunter2"))
        // A failing line is reported as the REPL reports it; the app is as before.
        state = try self.state(try preview.perform(json: #"{"action": "back"}"#))
        #expect((state["error"] as? String)?.contains("there is nothing to go back to") == true, "\(state)")
        #expect(state["stack"] as? [String] == ["Login"])
    }

    /// A page's Lua line takes REPL commands: `:record` there writes only test files inside the project's
    /// folder, never over a file the session did not write, and nothing in the sandbox (a recorded line
    /// would run unsandboxed in the next `coordrun test`).
    @Test func recordingFromAPageWritesOnlyTestsItMadeInTheProjectsFolder() throws {
        let folder = try TemporaryDirectory()
        let project = folder.path + "/project"
        try FileManager.default.createDirectory(atPath: project + "/tests", withIntermediateDirectories: true)
        let app = project + "/app.lua"
        try FileManager.default.copyItem(atPath: repositoryRoot + "/scripts/app.lua", toPath: app)
        try FileManager.default.copyItem(atPath: repositoryRoot + "/scripts/cities.lua", toPath: project + "/cities.lua")
        _ = try folder.write("project/mine_test.lua", "-- mine\n")
        try FileManager.default.createSymbolicLink(atPath: project + "/link_test.lua", withDestinationPath: folder.path + "/outside_test.lua")
        func session(sandbox: Bool) throws -> PreviewSession {
            let runtime = try ScriptRuntime(sandbox: sandbox)
            try runtime.load(script: app)
            try runtime.start()
            final class Sink { var session: PreviewSession? }
            let sink = Sink()
            let repl = try REPL(runtime: runtime, output: REPL.Output(write: { sink.session?.capture(text: $0) }, error: { sink.session?.capture(error: $0) }))
            repl.fileWrites = .testsInside(folder: project)
            let session = PreviewSession(repl: repl)
            sink.session = session
            return session
        }
        func record(_ preview: PreviewSession, _ argument: String) throws -> String? {
            let json = FlowValue.record(["action": "lua", "code": .string(":record " + argument)]).json
            return try state(try preview.perform(json: json))["error"] as? String
        }
        let preview = try session(sandbox: false)
        for (target, reason) in [("../evil_test.lua", "only inside the project's folder"), (folder.path + "/evil_test.lua", "only inside the project's folder"),
                                 ("app.lua", "only test files"), ("evil.lua", "only test files"), ("mine_test.lua", "was not recorded by the running session"),
                                 ("link_test.lua", "symbolic link"), ("missing/x_test.lua", "does not exist")] {
            let error = try record(preview, target)
            #expect(error?.contains(reason) == true, "\(target): \(error ?? "recorded")")
        }
        #expect(readFile(app) == readFile(repositoryRoot + "/scripts/app.lua"))
        #expect(readFile(project + "/mine_test.lua") == "-- mine\n")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/evil_test.lua") && !FileManager.default.fileExists(atPath: folder.path + "/outside_test.lua"))
        // Inside, a test file it makes, and again over the one it made.
        for _ in 1...2 {
            #expect(try record(preview, "tests/login_test.lua") == nil)
            #expect(try record(preview, "stop") == nil)
        }
        #expect(readFile(project + "/tests/login_test.lua")?.contains("test(\"recorded session\"") == true)
        // In the sandbox: nothing.
        let sandboxed = try session(sandbox: true)
        #expect(try record(sandboxed, "sandboxed_test.lua")?.contains("writes no file in the sandbox") == true)
        #expect(!FileManager.default.fileExists(atPath: project + "/sandboxed_test.lua"))
    }

    /// However long the session, a state holds the newest 500 lines of the history and their total, and a
    /// page that has the last state is sent what changed: the new line and the one no longer current, not
    /// the whole history (4,800 actions once made 437 KB messages, each action slower than the last).
    @Test func aStateAndItsPatchCostTheSameOnTheThousandthAction() throws {
        let preview = try session()
        _ = try preview.perform(json: #"{"action": "tap", "output": "login", "payload": "{ name = 'Ann', password = 'secret' }"}"#)
        for _ in 0..<300 {
            _ = try preview.perform(json: #"{"action": "choose", "number": 1}"#) // selectCity
            _ = try preview.perform(json: #"{"action": "back"}"#)
        }
        let before = preview.document
        _ = try preview.perform(json: #"{"action": "choose", "number": 1}"#)
        let after = preview.document
        let history = try #require(after["history"]?.listValue)
        #expect(history.count == PreviewSession.historyShown && after["historyTotal"] == .int(602))
        #expect(history.last?["text"] == .string(#"tap("selectCity")"#) && history.last?["current"] == .bool(true))
        let patch = try #require(try FlowValue(json: PreviewSession.patch(from: before, to: after))["patch"])
        #expect(patch["base"] == before["revision"] && patch["revision"] == after["revision"])
        let entries = try #require(patch["history"]?["entries"]?.listValue)
        #expect(entries.count == 2, "\(entries)") // the new line, and the one that was current
        #expect(patch["history"]?["lines"]?.listValue?.count == PreviewSession.historyShown)
        #expect(patch["set"]?["stack"] != nil && patch["set"]?["history"] == nil && patch["set"]?["historyTotal"] == .int(602))
        #expect(PreviewSession.patch(from: before, to: after).utf8.count < 16 << 10)
    }

    @Test func aRequestThatIsNoActionIsRefusedAndChangesNothing() throws {
        let preview = try session()
        let before = preview.state
        for (json, message) in [("{", "the action is not JSON"), ("[1]", "an action is a JSON object"),
                                (#"{"action": "fly"}"#, "unknown action 'fly'"), (#"{"action": "tab"}"#, "needs a number \"number\" from 1"),
                                (#"{"action": "lua", "code": "x = 1\nos.exit()"}"#, "a Lua line is one line"),
                                (#"{"action": "open"}"#, "needs a string \"url\"")] {
            let error = #expect(throws: PreviewSession.BadAction.self) { try preview.perform(json: json) }
            #expect(error?.message.contains(message) == true, "\(json): \(error?.message ?? "")")
        }
        let huge = #"{"action": "lua", "code": ""# + String(repeating: "x", count: PreviewSession.maximumActionBytes) + #""}"#
        #expect(throws: PreviewSession.BadAction.self) { try preview.perform(json: huge) }
        #expect(preview.state == before)
    }
}
