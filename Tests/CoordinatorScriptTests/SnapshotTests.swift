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
            let error = #expect(throws: SnapshotError.self) { try runtime.restore(text) }
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
            #expect(runtime.app.stateDescription == before)
        }
        refused(json.replacingOccurrences(of: "\"format\": 1", with: "\"format\": 2"), "snapshot format 2 is not one this runtime reads")
        refused(json.replacingOccurrences(of: "\"digest\": \"lua-fnv1a64:", with: "\"digest\": \"lua-fnv1a64:f")
                    .replacingOccurrences(of: "shop://catalog/shoes/42", with: "shop://catalog/shoes/77"), "the snapshot was taken of other scripts")
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

    /// A snapshot names its scripts by their code: comments, blank lines and indentation do not matter; a
    /// change of code whose steps still build the same app restores with a warning; one that breaks them
    /// is refused with both reasons; an older snapshot (a digest of bytes) restores into the same bytes.
    @Test func aSnapshotSurvivesEditsThatDoNotChangeWhatItDescribes() throws {
        let folder = try TemporaryDirectory()
        let text = try #require(readFile(repositoryRoot + "/examples/shop.lua"))
        let script = try folder.write("shop.lua", text)
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: script)
        try runtime.open("shop://catalog/shoes/42")
        try runtime.app.tap("add")
        let json = try runtime.snapshot()
        func restoring(_ edited: String) throws -> RestoreWarning? {
            _ = try folder.write("shop.lua", edited)
            let fresh = try ScriptRuntime(driverFunctions: true)
            try fresh.load(script: script)
            defer { #expect(fresh.app.window.visibleStack.map(\.name) == ["Categories", "Products", "Product"]) }
            return try fresh.restore(json)
        }
        // Comments, blank lines, indentation: the same scripts.
        let commented = "-- a comment on top\n\n" + text.replacingOccurrences(of: "\nfunction ", with: "\n\n--[[ a long\ncomment ]]\nfunction ")
            .replacingOccurrences(of: "\n  ", with: "\n    ")
        #expect(try restoring(commented) == nil)
        // Code that changed, but whose steps build the same app: restored, with a warning.
        let changed = text.replacingOccurrences(of: "local Shop = flow.coordinator \"Shop\"", with: "local Shop = flow.coordinator \"Shop\"\nlocal unused = 1")
        #expect(changed != text)
        let warning = try #require(try restoring(changed))
        #expect(warning.message.hasPrefix("the snapshot was taken of other scripts (shop.lua, lua-fnv1a64:"), "\(warning)")
        #expect(warning.message.hasSuffix("its steps build the same app in these, so it was restored: check that it is the app you meant"))
        // Code whose steps build another app now: refused, saying both.
        _ = try folder.write("shop.lua", text.replacingOccurrences(of: "flow.route(\"shop://catalog/:category/:product\"", with: "flow.route(\"shop://store/:category/:product\""))
        let broken = try ScriptRuntime(driverFunctions: true)
        try broken.load(script: script)
        let error = #expect(throws: SnapshotError.self) { try broken.restore(json) }
        #expect(error?.message.hasPrefix("the snapshot was taken of other scripts (shop.lua, lua-fnv1a64:") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(", and it does not restore into these: restoring: step 1, open(\"shop://catalog/shoes/42\"), fails now") == true, "\(error?.message ?? "")")
        // A snapshot written with the digest of bytes restores into the same bytes, and no others.
        let legacy = json.replacingOccurrences(of: runtime.scriptsDigest, with: Self.byteDigest(text))
        _ = try folder.write("shop.lua", text)
        let same = try ScriptRuntime(driverFunctions: true)
        try same.load(script: script)
        #expect(try same.restore(legacy) == nil)
    }

    /// FNV-1a over every byte of the text, then 0xFF: the digest snapshots wrote before it went by tokens.
    static func byteDigest(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(text.utf8) + [0xFF] { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let hex = String(hash, radix: 16)
        return "fnv1a64:" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    @Test func malformedCoordinatorDataIsRefusedAtItsJSONPath() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("odd.lua", """
            local flow = require "coordinator"
            flow.screen "A" {}
            local C = flow.coordinator "C"
            function C:start()
              self.odd = { [1] = "one", [3] = "three", [true] = "yes" }
              self.shared = { n = 1 }
              self.alias = self.shared
              self:push("A")
            end
            flow.app(C)
            """)
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: script)
        try runtime.start()
        let json = try runtime.snapshot()
        let odd = #""$entries": ["#
        #expect(json.contains(odd))
        let before = runtime.app.stateDescription
        func refused(_ text: String, _ message: String) {
            let error = #expect(throws: SnapshotError.self) { try runtime.restore(text) }
            #expect(error?.message == message)
            #expect(runtime.app.stateDescription == before)
        }
        refused(json.replacingOccurrences(of: odd, with: odd + "5, "), "snapshot: coordinators[1].data.odd.$entries[1]: expected [key, value]")
        refused(json.replacingOccurrences(of: odd, with: odd + "[{ \"a\": 1 }, 2], "), "snapshot: coordinators[1].data.odd.$entries[1][1]: a key is a string, a number (not NaN) or a boolean")
        refused(json.replacingOccurrences(of: "\"$ref\": 1", with: "\"$ref\": 9"), "snapshot: coordinators[1].data.shared: $ref 9 comes before its $id")
        refused(json.replacingOccurrences(of: "\"$ref\": 1", with: "\"$id\": 1, \"$value\": {}"), "snapshot: coordinators[1].data.shared: $id 1 is written twice")
        refused(json.replacingOccurrences(of: "\"data\": {", with: "\"data\": { \"x\": { \"$frozen\": 5 },"), "snapshot: coordinators[1].data.x.$frozen: expected an object or an array")
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
            let error = #expect(throws: SnapshotError.self) { try runtime.restore(json.replacingOccurrences(of: written, with: inputs)) }
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

/// Payloads an output declares secret: never in the steps, so never in a snapshot; asked for on restore.
@Suite struct SnapshotSecretTests {
    static let app = """
        local flow = require "coordinator"
        flow.screen "Login" { outputs = { submit = { secret = { "password" } } } }
        flow.screen "Home" { inputs = { "user" }, outputs = { unlock = { secret = true } } }
        flow.screen "Vault" {}
        local App = flow.coordinator "App"
        function App:start()
          self:push("Login").onSubmit = function(c)
            if c.password ~= "hunter2" then error("wrong password") end
            self:push("Home", { user = c.user }).onUnlock = function(pin)
              if pin ~= 1234 then error("wrong pin") end
              self:push("Vault")
            end
          end
        end
        flow.app(App)
        """

    static func runtime(in folder: TemporaryDirectory) throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: try folder.write("login.lua", app))
        try runtime.start()
        return runtime
    }

    @Test func secretPartsOfPayloadsAreNeverRecordedNorWrittenIntoSnapshots() throws {
        let folder = try TemporaryDirectory()
        let runtime = try Self.runtime(in: folder)
        try runtime.app.tap("submit", payload: ["user": "ann", "password": "hunter2"])
        try runtime.app.tap("unlock", payload: 1234)
        #expect(runtime.app.steps == [
            .tap("submit", payload: ["user": "ann", "password": ["$secret": "password"]]),
            .tap("unlock", payload: ["$secret": "unlock"]),
        ])
        let json = try runtime.snapshot()
        #expect(!json.contains("hunter2") && !json.contains("1234"))
        #expect(AppSnapshot.secretNames(in: json) == ["password", "unlock"])

        // Without its secrets the snapshot is refused, naming the first one, and the app is unchanged.
        let before = runtime.app.stateDescription
        let refused = #expect(throws: SnapshotError.self) { try runtime.restore(json) }
        #expect(refused?.message.hasPrefix("restoring: step 1 needs the secret 'password' of Login's output submit, which a snapshot never holds") == true)
        #expect(refused?.code == .needsSecret)
        #expect(runtime.app.stateDescription == before)

        // With them it restores; each is asked with its step.
        var asked: [SnapshotSecret] = []
        let fresh = try Self.runtime(in: folder)
        try fresh.restore(json) { secret in
            asked.append(secret)
            return secret.name == "password" ? "hunter2" : 1234
        }
        #expect(fresh.app.window.visibleStack.map(\.name) == ["Login", "Home", "Vault"])
        #expect(asked.map { "\($0.step) \($0)" } == ["1 the secret 'password' of Login's output submit", "2 the secret 'unlock' of Home's output unlock"])
        #expect(asked.map(\.origin) == [.output(screen: "Login", output: "submit"), .output(screen: "Home", output: "unlock")])
        #expect(try fresh.snapshot() == json)

        // A wrong secret fails the step; the message shows the step as recorded, never the secret given.
        let wrong = #expect(throws: SnapshotError.self) { try fresh.restore(json) { _ in "guess-1" } }
        #expect(wrong?.message.contains("step 1, tap(\"submit\", {password = {[\"$secret\"] = \"password\"}, user = \"ann\"}), fails now") == true, "\(wrong?.message ?? "")")
        #expect(wrong?.message.contains("guess-1") == false)
        #expect(wrong?.code == .notRebuilt)
        // What the secrets function throws ends the restore, naming the secret.
        struct NoKeychain: Error {}
        let thrown = #expect(throws: SnapshotError.self) { try fresh.restore(json) { _ in throw NoKeychain() } }
        #expect(thrown?.message.hasPrefix("restoring: step 1 needs the secret 'password' of Login's output submit: NoKeychain") == true)
        #expect(fresh.app.window.visibleStack.map(\.name) == ["Login", "Home", "Vault"])
    }

    @Test func luaRestoresTakeSecretsByNameOrFromAFunction() throws {
        let folder = try TemporaryDirectory()
        let runtime = try Self.runtime(in: folder)
        let results = try runtime.run("""
            tap("submit", { user = "ann", password = "hunter2" })
            tap("unlock", 1234)
            local json = snapshot()
            local bare = select(2, pcall(restore, json))
            local missing = select(2, pcall(restore, json, { password = "hunter2" }))
            restore(json, { password = "hunter2", unlock = 1234 })
            local byTable = stack()
            local seen = {}
            restore(json, function(name, step) seen[#seen + 1] = name .. "@" .. step; return name == "password" and "hunter2" or 1234 end)
            local misspelt = select(2, pcall(restore, json, { password = "hunter2", unlok = 1234 }))
            return bare, missing, table.concat(byTable, " "), table.concat(seen, " "), select(2, pcall(restore, json, 42)), misspelt
            """)
        #expect(results[0].stringValue?.contains("step 1 needs the secret 'password'") == true)
        #expect(results[1].stringValue?.contains("step 2 needs the secret 'unlock' of Home's output unlock: restore's secrets have no 'unlock'") == true, "\(results[1])")
        #expect(results[2] == "Login Home Vault")
        #expect(results[3] == "password@1 unlock@2")
        #expect(results[4].stringValue?.contains("bad argument #2 to 'restore'") == true)
        // A name the snapshot does not ask for is a mistake, said before anything runs.
        #expect(results[5].stringValue?.hasSuffix("restore's secrets have no 'unlok' (they take: password, unlock)") == true, "\(results[5])")
    }

    /// A sign-in whose token arrives in the request's answer, which the app keeps among the storage's
    /// secrets; the second request (`pin`) declares its whole answer secret, and `plain` nothing.
    static let answers = """
        local flow = require "coordinator"
        flow.storageSecrets { "token" }
        flow.request "signIn" { secret = { "token" }, examples = { ok = { name = "Ann", token = "t-1" }, wrong = { error = "no" } } }
        flow.request "pin" { secret = true, examples = { ok = 0 } }
        flow.request "plain" { examples = { ok = "" } }
        flow.screen "Login" { outputs = { "go", "again" } }
        flow.screen "Home" { inputs = { "user" }, outputs = { "refresh", "note" } }
        local App = flow.coordinator "App"
        function App:start()
          local login = self:push("Login")
          login.onGo = function()
            self:request("signIn").onResult = function(outcome, answer)
              if outcome ~= "ok" then return end
              flow.storage.token = answer.token
              local home = self:push("Home", { user = answer.name })
              home.onRefresh = function() self:request("pin").onResult = function(_, pin) self.unlocked = pin ~= nil end end
              home.onNote = function() self:request("plain").onResult = function() self.notes = (self.notes or 0) + 1 end end
            end
          end
        end
        flow.app(App)
        """

    /// A runtime of `script`, started.
    static func started(_ script: String) throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: script)
        try runtime.start()
        return runtime
    }

    /// A request's `secret` keeps what an answer gives out of the steps and snapshots, as an output's does:
    /// a marker in its place, asked for on restore with the request and outcome it came with; an answer that
    /// gives no value (the outcome's example) records nothing secret.
    @Test func aSecretThatArrivesInAnAnswerIsNeverRecorded() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("answers.lua", Self.answers)
        func started() throws -> ScriptRuntime { try Self.started(script) }
        let runtime = try started()
        try runtime.app.tap("go")
        try runtime.app.answer("signIn", outcome: "ok", value: ["name": "Ann", "token": "live-Zq81-token"])
        try runtime.app.tap("refresh")
        try runtime.app.answer("pin", outcome: "ok", value: 4321)
        #expect(runtime.app.storage["token"] == "live-Zq81-token")
        #expect(Array(runtime.app.steps.suffix(3)) == [
            .answer("signIn", nth: 0, outcome: "ok", value: ["name": "Ann", "token": ["$secret": "token"]]),
            .tap("refresh", payload: nil),
            .answer("pin", nth: 0, outcome: "ok", value: ["$secret": "pin"]),
        ])
        let json = try runtime.snapshot()
        #expect(!json.contains("live-Zq81-token") && !json.contains("4321"), "\(json)")
        #expect(AppSnapshot.secretNames(in: json) == ["token", "pin"])

        // Without its secrets the snapshot is refused, naming the first one with its request and outcome.
        let refused = #expect(throws: SnapshotError.self) { try started().restore(json) }
        #expect(refused?.message.hasPrefix("restoring: step 2 needs the secret 'token' of request signIn's answer ok, which a snapshot never holds") == true,
                "\(refused?.message ?? "")")
        var asked: [SnapshotSecret] = []
        let fresh = try started()
        try fresh.restore(json) { secret in
            asked.append(secret)
            return secret.name == "token" ? "live-Zq81-token" : 4321
        }
        #expect(asked.map(\.origin) == [.answer(request: "signIn", outcome: "ok"), .answer(request: "pin", outcome: "ok")])
        #expect(asked.map(\.step) == [2, 4])
        #expect(fresh.app.storage["token"] == "live-Zq81-token")
        #expect(try fresh.snapshot() == json)

        // An answer that gives no value takes the outcome's example: nothing secret is recorded or asked.
        let examples = try started()
        try examples.app.tap("go")
        try examples.app.answer("signIn", outcome: "ok")
        #expect(examples.app.steps.last == .answer("signIn", nth: 0, outcome: "ok", value: nil))
        #expect(AppSnapshot.secretNames(in: try examples.snapshot()).isEmpty)
    }

    /// The second line of defence: a string of 8 characters or more equal to a storage secret's value is
    /// recorded as the key's marker in any step that carried it, though nothing declares it secret there,
    /// and asked for under the key on restore; a shorter value is left as it is.
    @Test func aStorageSecretsValueIsHiddenInAnyStepThatCarriedIt() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("answers.lua", Self.answers.replacingOccurrences(of: "secret = { \"token\" }, ", with: ""))
        func started() throws -> ScriptRuntime { try Self.started(script) }
        let runtime = try started()
        try runtime.app.tap("go")
        try runtime.app.answer("signIn", outcome: "ok", value: ["name": "Ann", "token": "live-Zq81-token"])
        try runtime.app.tap("note")
        try runtime.app.answer("plain", outcome: "ok", value: ["copied": ["live-Zq81-token", "live-Zq81"]])
        #expect(runtime.app.steps[1] == .answer("signIn", nth: 0, outcome: "ok", value: ["name": "Ann", "token": ["$secret": "token"]]))
        #expect(runtime.app.steps[3] == .answer("plain", nth: 0, outcome: "ok", value: ["copied": [["$secret": "token"], "live-Zq81"]]))
        let json = try runtime.snapshot()
        #expect(!json.contains("live-Zq81-token"), "\(json)")
        #expect(AppSnapshot.secretNames(in: json) == ["token"])
        var asked: [SnapshotSecret] = []
        let fresh = try started()
        try fresh.restore(json) { secret in
            asked.append(secret)
            return "live-Zq81-token"
        }
        #expect(asked.map(\.description) == ["the storage's secret 'token'", "the storage's secret 'token'"])
        #expect(asked.map(\.step) == [2, 4])
        #expect(try fresh.snapshot() == json)

        // A token shorter than 8 characters is too likely to be something else: recorded as it is.
        let short = try started()
        try short.app.tap("go")
        try short.app.answer("signIn", outcome: "ok", value: ["name": "Ann", "token": "t-7f3a"])
        #expect(short.app.steps[1] == .answer("signIn", nth: 0, outcome: "ok", value: ["name": "Ann", "token": "t-7f3a"]))
    }

    @Test func aRequestsSecretIsTrueOrNames() throws {
        func refused(_ spec: String, _ message: String) throws {
            let runtime = try ScriptRuntime(driverFunctions: true)
            let error = #expect(throws: LuaError.self) { try runtime.run("require('coordinator').request 'signIn' \(spec)") }
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        }
        try refused("{ examples = { ok = 1 }, secret = 'yes' }", "request signIn: secret is true (the whole answer's value) or a list of the answer's value's field names")
        try refused("{ examples = { ok = 1 }, secret = { 1 } }", "request signIn: secret = { 'field', ... } names the answer's value's secret fields (strings)")
        try refused("{ examples = { ok = 1 }, secrets = true }", "request signIn's fields")
    }

    @Test func anOutputThatChoosesFromAnInputCannotBeSecretAndSecretIsTrueOrNames() throws {
        func refused(_ outputs: String, _ message: String) throws {
            let runtime = try ScriptRuntime(driverFunctions: true)
            let error = #expect(throws: LuaError.self) { try runtime.run("require('coordinator').screen 'S' { inputs = { 'items' }, outputs = \(outputs) }") }
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        }
        try refused("{ pick = { from = 'items', secret = true } }", "screen S: output 'pick' chooses an item of 'items', which the app has: it cannot be secret")
        try refused("{ pin = { secret = 'yes' } }", "screen S: output 'pin': secret is true (the whole payload) or a list of the payload's field names")
        try refused("{ login = { secret = { 1 } } }", "screen S: output 'login': secret = { 'field', ... } names the payload's secret fields (strings)")
        try refused("{ login = {} }", "{ secret = { 'field', ... } } or { secret = true }")
    }

    @Test func hostsRestoreWithSecretsOnTheirIsolation() async throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("login.lua", Self.app)
        let session = try ScriptSession()
        try await session.load(script: URL(filePath: script))
        try await session.withRuntime { try $0.start() }
        try await session.tap("submit", payload: ["user": "ann", "password": "hunter2"])
        let json = try await session.snapshot()
        try await session.withRuntime { try $0.reset(to: $0.app.startState, starting: true) }
        try await session.restore(json) { _ in "hunter2" }
        #expect(try await session.visibleStack() == ["Login", "Home"])
    }
}

/// A step's random draws in a snapshot: written with the step (`"random": [values]`), read back into it,
/// and anything else there refused as a malformed step.
@Suite struct SnapshotDrawTests {
    @Test func aStepsDrawsRoundTripAndMalformedOnesAreRefused() throws {
        let step = UserStep.drawn(.tap("surprise", payload: ["n": 1]), values: [2, 5])
        let value = AppSnapshot.value(of: step)
        #expect(value == ["tap": "surprise", "payload": ["n": 1], "random": [2, 5]])
        #expect(try AppSnapshot.step(from: value, number: 1) == step)
        for bad: FlowValue in [["back": true, "random": []], ["back": true, "random": ["x"]], ["back": true, "random": 3], ["random": [1]]] {
            #expect(throws: SnapshotError.self) { try AppSnapshot.step(from: bad, number: 4) }
        }
    }
}
