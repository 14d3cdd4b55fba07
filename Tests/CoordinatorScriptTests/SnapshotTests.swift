import Foundation
import Testing
import CoordinatorCore
import CoordinatorScript
import CoordinatorTools
import CoordinatorLua
import TestSupport

/// Whole-app snapshots: taken as JSON, restored by replaying the steps, reconciling the data and
/// checking the result; refused whole when they cannot be restored.
@Suite struct SnapshotTests {
    static func state(_ json: String) throws -> FlowValue { try snapshotState(json) }

    @Test func dataKeptInSelfIsRestoredWithItsCyclesSharingAndFrozenTables() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("notes.lua", """
            local flow = require "coordinator"
            flow.screen "Notes" { inputs = { "count" }, outputs = { "add" } }
            local Notes = flow.coordinator "Notes"
            function Notes:start()
              notes = self                               -- a global, for the test to reach it
              self.list = {}
              self.list.self = self.list                 -- a cycle
              self.shared = { n = 0 }
              self.alias = self.shared                   -- the same table twice
              self.config = flow.freeze { limit = 3, tags = { "a", "b" } }
              self.odd = { [1] = "one", [3] = "three", [true] = "yes", ["$id"] = "kept" }
              self.skip = function() end
              local s = self:push("Notes", { count = 0 })
              s.onAdd = function() self.shared.n = self.shared.n + 1; s.count = self.shared.n end
            end
            flow.app(Notes)
            """)
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: script)
        try runtime.start()
        try runtime.app.tap("add")
        // Changed behind the steps' back, as a REPL line or a host would: the restore puts it back.
        try runtime.run("notes.shared.n = 100 notes.list.extra = 'x' notes.odd[3] = nil")
        // A script that takes globals away does not break the snapshot.
        try runtime.run("savedTable, savedNext = table, next; table, next = nil, nil")
        let json = try runtime.snapshot()
        try runtime.run("table, next = savedTable, savedNext")
        let data = try FlowValue(json: json)["coordinators"]?[0]?["data"]
        #expect(try FlowValue(json: json)["coordinators"]?[0]?["skipped"] == ["skip"])
        #expect(data?["alias"] == ["$id": 1, "$value": ["n": 100]] && data?["shared"] == ["$ref": 1])
        #expect(data?["config"]?["$frozen"]?["tags"] == ["$frozen": ["a", "b"]]) // frozen all the way down
        #expect(data?["odd"]?["$entries"] != nil)

        let restored = try ScriptRuntime(driverFunctions: true)
        try restored.load(script: script)
        try restored.restore(json)
        #expect(try Self.state(restored.snapshot()) == Self.state(json))
        let checks = try restored.run("""
            return notes.alias == notes.shared, notes.list.self == notes.list, notes.shared.n, notes.list.extra,
                   notes.odd[1], notes.odd[3], notes.odd[true], notes.odd["$id"], notes.config.tags[2], (pcall(function() notes.config.limit = 4 end))
            """)
        #expect(checks == [.boolean(true), .boolean(true), .integer(100), "x", "one", .nil, "yes", "kept", "b", .boolean(false)])
        // The handler the replay wired works on the restored data.
        try restored.app.tap("add")
        #expect(restored.app.window.visibleScreen?["count"] == 101)
    }

    @Test func aSnapshotThatCannotBeRestoredIsRefusedAndTheAppIsUnchanged() throws {
        let runtime = try LinkTests.shopRuntime()
        try runtime.open("shop://catalog/shoes/42")
        let json = try runtime.snapshot()
        try runtime.app.tap("buy")
        let before = runtime.app.stateDescription
        func refused(_ text: String, _ message: String) {
            let error = #expect(throws: NavigationError.self) { try runtime.restore(text) }
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
            #expect(runtime.app.stateDescription == before)
        }
        refused(json.replacingOccurrences(of: "\"format\": 1", with: "\"format\": 2"), "snapshot format 2 is not one this runtime reads")
        refused(json.replacingOccurrences(of: "\"digest\": \"fnv1a64:", with: "\"digest\": \"fnv1a64:f"), "the snapshot was taken of other scripts")
        refused("[1, 2", "snapshot: JSON 1:6: the array is not closed")
        refused(String(repeating: "[", count: 300), "nested deeper than 200 levels")
        refused("{}", "it has no format")
        // Steps that now build another app (the screens differ), and a step that fails now.
        refused(json.replacingOccurrences(of: "\"type\": \"Product\"", with: "\"type\": \"Cart\""), "the snapshot's steps build another app now")
        refused(json.replacingOccurrences(of: "shop://catalog/shoes/42", with: "shop://catalog/shoes/77"), "step 1, open(\"shop://catalog/shoes/77\"), fails now")
        // The original snapshot still restores.
        try runtime.restore(json)
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Categories", "Products", "Product"])
    }

    @Test func forgedInputsAreCheckedAsBuildingAndShowingTheScreenChecksThem() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("compose.lua", """
            local flow = require "coordinator"
            flow.screen "Write" { outputs = { submit = "value" } }
            flow.screen "Confirm" { required = { "text" }, outputs = { "edit" },
                                    render = function(s) return ("You wrote: %q"):format(s.text) end }
            local Compose = flow.coordinator "Compose"
            function Compose:start()
              self:push("Write").onSubmit = function(text)
                self:push("Confirm", { text = text }).onEdit = function() self:pop() end
              end
            end
            flow.app(Compose)
            """)
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: script)
        try runtime.start()
        try runtime.app.tap("submit", payload: "hi")
        let json = try runtime.snapshot()
        let before = runtime.app.stateDescription
        let written = "\"inputs\": {\n            \"text\": \"hi\"\n          }"
        #expect(json.contains(written))
        func refused(_ inputs: String, _ message: String) {
            let error = #expect(throws: NavigationError.self) { try runtime.restore(json.replacingOccurrences(of: written, with: inputs)) }
            #expect(error?.message == message)
            #expect(runtime.app.stateDescription == before)
        }
        refused(#""inputs": {}"#, "restoring: window.root.stack[2].inputs: screen Confirm needs input 'text'")
        refused(#""inputs": { "text": "hi", "extra": 1 }"#, "restoring: window.root.stack[2].inputs: screen Confirm has no input 'extra' (inputs: text)")
        refused(#""inputs": { "text": { "a": 1 } }"#, "restoring: window.root.stack[2].inputs: rendering Confirm failed: \(script):4: bad argument #1 to 'format' (value has no literal form)")
        // Inputs that check and render are set.
        try runtime.restore(json.replacingOccurrences(of: written, with: #""inputs": { "text": "bye" }"#))
        #expect(try runtime.app.window.visibleScreen?.render() == "You wrote: \"bye\"")
        try runtime.app.tap("edit")
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Write"])
    }
}
