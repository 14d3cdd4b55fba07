import Foundation
import Testing
import TestSupport
import CoordinatorTools

/// The web preview's session: each action a page sends is a REPL line (so it is in the history and a
/// recorded test), the state says what a person sees, and a request that is no action changes nothing.
@Suite struct PreviewSessionTests {
    func session() throws -> PreviewSession {
        let runtime = try ScriptRuntime()
        try runtime.load(script: repositoryRoot + "/scripts/app.lua")
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

    @Test func actionsAreREPLLinesAndTheStateIsWhatAPersonSees() throws {
        let preview = try session()
        var state = try state(preview.state)
        let screen = try #require(state["screen"] as? [String: Any])
        #expect(screen["title"] as? String == "Sign in" && screen["text"] as? String == "Enter your name and password.")
        let actions = try #require(state["actions"] as? [[String: Any]])
        #expect(actions.first?["kind"] as? String == "value" && (actions.first?["examples"] as? [String])?.count == 2)
        state = try self.state(try preview.perform(json: #"{"action": "tap", "output": "login", "payload": "{ name = 'Ann', password = 'wrong' }"}"#))
        #expect((state["screen"] as? [String: Any])?["alert"] as? Bool == true)
        #expect((state["screen"] as? [String: Any])?["title"] as? String == "Login failed")
        state = try self.state(try preview.perform(json: #"{"action": "choose", "number": 1}"#))
        #expect(state["stack"] as? [String] == ["Login"])
        let history = try #require(state["history"] as? [[String: Any]])
        #expect(history.map { $0["text"] as? String } == [#"tap("login", ({ name = 'Ann', password = 'wrong' }))"#, #"tap("OK")"#])
        // A failing line is reported as the REPL reports it; the app is as before.
        state = try self.state(try preview.perform(json: #"{"action": "back"}"#))
        #expect((state["error"] as? String)?.contains("there is nothing to go back to") == true, "\(state)")
        #expect(state["stack"] as? [String] == ["Login"])
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
