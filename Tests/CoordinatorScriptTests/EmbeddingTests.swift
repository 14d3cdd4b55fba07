import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// A host tool embeds the runtime through its public API only: Swift screens and services, Lua flows,
/// navigation observed and driven from Swift.
@Suite struct EmbeddingTests {
    final class Storage: Coordinator {
        var saved: [FlowValue] = []
        override func start(_ args: FlowValue?) throws {
            onSignal("noteCreated") { [unowned self] signal in
                self.saved.append(signal.payload ?? "")
                signal.reply("stored by Swift")
            }
        }
    }

    @Test func swiftScreensServicesAndObservers() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("notes.lua", """
            local flow = require "coordinator"
            local Notes = flow.coordinator "Notes"
            function Notes:start()
              self:run(flow.coordinator "Storage")
              local editor = self:push("Editor")          -- a screen type the host registered in Swift
              editor.onSave = function(text)
                local replies = editor:send("noteCreated", { text = text })
                self.lastReply = replies[1]
                editor.status = self.lastReply
              end
            end
            flow.app(Notes)
            """)
        let runtime = try ScriptRuntime()
        runtime.app.catalog.register(ScreenType("Editor", inputs: ["status"], outputs: [OutputSpec("save", payload: .value)]))
        let storage = Storage(name: "Storage")
        runtime.registerCoordinator("Storage") { storage }
        var events: [String] = []
        runtime.app.observe { events.append($0.description) }
        try runtime.load(script: script)
        try runtime.start()
        try runtime.app.tap("save", payload: "milk")
        #expect(storage.saved == [["text": "milk"]])
        #expect(runtime.app.window.visibleScreen?["status"] == "stored by Swift")
        #expect(events.contains { $0.hasPrefix("start Storage#") })
        #expect(events.contains { $0.hasPrefix("signal noteCreated from Editor#") })
        // Swift functions for scripts go through the same Lua state.
        try runtime.lua.globals.set("hostVersion", runtime.lua.function(name: "hostVersion") { "1.0" })
        #expect(try runtime.run("return hostVersion()") == ["1.0"])
        // An embedded app's scripts cannot act as the user unless the host asks for the driver functions.
        #expect(try runtime.run("return tap, back, top") == [.nil, .nil, .nil])
        try runtime.installDriverFunctions()
        #expect(try runtime.run("return top():title()") == ["Editor"])
    }

    @Test func aScriptWithoutAnAppSaysWhatIsMissing() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("empty.lua", "local flow = require 'coordinator'\nflow.screen 'A' {}\n")
        let runtime = try ScriptRuntime()
        try runtime.load(script: script)
        #expect(luaError { try runtime.start() }?.message == "the script declares no application: call flow.app { authorization = Login, main = Main }")
    }

    @Test func badScreenSpecsAreErrorsWithTheirLine() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        let error = luaError { try runtime.run("local flow = require 'coordinator'\nflow.screen 'A' { outputs = { go = 42 } }", name: "spec.lua") }
        #expect(error?.message == "spec.lua:2: screen A: output 'go' must be \"value\", \"none\", or a table of from, label, secret, payload, when")
        let data = luaError { try runtime.run("tap('x', { f = print })", name: "spec.lua") }
        #expect(data?.message.contains("bad argument #2 to 'tap'") == true)
    }
}
