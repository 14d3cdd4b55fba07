import Testing
import Foundation
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// The app's storage (`flow.storage`): flow data kept across launches, undone with a failed line, saved to
/// its store after each step that changed it; a relaunch keeps it (and the clock) and nothing else; a
/// snapshot holds the storage its steps began with, never its secret keys.
@Suite struct StorageTests {
    /// Onboarding seen once, a sign-in kept, a global the script counts its runs in.
    static let app = """
        local flow = require "coordinator"
        flow.storageSecrets { "token" }
        flow.screen "Welcome" { outputs = { "next" } }
        flow.screen "Login" { outputs = { login = "value" } }
        flow.screen "Home" { inputs = { "user" }, outputs = { "signOut", "wait" } }
        runs = (runs or 0) + 1
        loadedWith = flow.storage.user
        local Login = flow.coordinator "Login"
        function Login:start()
          if not flow.storage.onboarded then
            self:push("Welcome").onNext = function() flow.storage.onboarded = true; self:push("Login").onLogin = function(name) self:signIn(name) end end
          else
            self:push("Login").onLogin = function(name) self:signIn(name) end
          end
        end
        function Login:signIn(name)
          flow.storage.user = name
          flow.storage.token = "t-" .. name
          flow.gateway.state = "main"
          self:finish()
        end
        local Main = flow.coordinator "Main"
        function Main:start()
          local home = self:push("Home", { user = flow.storage.user })
          home.onSignOut = function()
            flow.storage.user, flow.storage.token = nil, nil
            flow.gateway.state = "authorization"
            self:finish()
          end
          home.onWait = function() self:after(60, function() end) end
        end
        if flow.storage.token then flow.gateway.state = "main" end
        flow.app { authorization = Login, main = Main }
        """

    let folder: TemporaryDirectory
    let script: String

    init() throws {
        folder = try TemporaryDirectory()
        script = try folder.write("app.lua", Self.app)
    }

    func runtime(storage: FlowRecord = [:], store: (any ScriptStorage)? = nil) throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(driverFunctions: true)
        runtime.lua.tracebacks = false
        if let store { try runtime.useStorage(store) }
        if !storage.isEmpty { try runtime.app.atomically { runtime.app.storage.replaceAll(with: storage) } }
        try runtime.load(script: script)
        try runtime.start()
        return runtime
    }

    func stack(_ runtime: ScriptRuntime) -> [String] { runtime.app.window.visibleStack.map(\.name) }

    @Test func theScriptReadsTheStorageAsItLoadsAndAFailedLineTakesAWriteBack() throws {
        let signedIn = try runtime(storage: ["onboarded": true, "user": "Ann", "token": "t-Ann"])
        #expect(stack(signedIn) == ["Home"])
        #expect(try signedIn.lua.evaluate("return loadedWith", as: String.self) == "Ann")
        let fresh = try runtime()
        #expect(stack(fresh) == ["Welcome"])
        #expect(throws: LuaError.self) { try fresh.run("require('coordinator').storage.onboarded = true; error('after the write')", name: "=test") }
        #expect(fresh.app.storage.values.isEmpty)
        try fresh.run("require('coordinator').storage.draft = { text = 'hi', tags = { 1, 2 } }", name: "=test")
        #expect(fresh.app.storage["draft"] == ["text": "hi", "tags": [1, 2]])
    }

    @Test func onlyFlowDataIsStoredAndATableReadBackIsReadOnly() throws {
        let runtime = try runtime()
        func failure(_ line: String) -> String {
            do { try runtime.run(line, name: "=test"); return "no error" } catch { return "\(error)" }
        }
        #expect(failure("local flow = require 'coordinator'\nflow.storage.f = print").contains("test:2: flow.storage.f takes flow data (strings, numbers, booleans, lists and records of them): a function cannot be data"))
        #expect(failure("require('coordinator').storage[1] = true").contains("flow.storage's keys are strings, not numbers"))
        #expect(failure("local s = require('coordinator').storage; s.draft = { text = 'a' }; s.draft.text = 'b'").contains("frozen data is read-only (cannot set text)"))
        #expect(failure("require('coordinator').storageSecrets('token')").contains("a list of keys expected"))
        #expect(runtime.app.storage.values.isEmpty) // every failed line took its writes back
        #expect(try runtime.lua.evaluate("return tostring(require('coordinator').storage)", as: String.self) == "storage {}")
    }

    @Test func aRelaunchRunsTheScriptsAgainKeepingOnlyTheStorageAndTheClock() throws {
        let runtime = try runtime()
        try runtime.run("tap('next') tap('login', 'Ann') tap('wait') x = 1", name: "=test")
        try runtime.app.advance(by: 10)
        #expect(stack(runtime) == ["Home"] && runtime.app.clock.timers.count == 1)
        try runtime.run("relaunch()", name: "=test")
        // Started again, signed in (the script chose the main state as it loaded), its run counted once more
        // from a clean slate (the global the script set was taken back first), the timer gone, the clock kept.
        #expect(stack(runtime) == ["Home"])
        #expect(try runtime.lua.evaluate("return runs", as: Int.self) == 1)
        #expect(try runtime.lua.evaluate("return loadedWith", as: String.self) == "Ann")
        #expect(try runtime.lua.evaluate("return x", as: Int.self) == 1) // a REPL line's global is not the scripts'
        #expect(runtime.app.clock.timers.isEmpty && runtime.app.clock.now == 10)
        #expect(runtime.app.steps.isEmpty) // the steps begin again, as in a new process
        #expect(runtime.app.storage.values == ["onboarded": true, "token": "t-Ann", "user": "Ann"])
        // Shown (a REPL prints it), a secret key's value is masked; read, it is the value.
        #expect(try runtime.lua.evaluate("return tostring(require('coordinator').storage)", as: String.self)
            == #"storage {onboarded = true, token = (secret), user = "Ann"}"#)
        #expect(try runtime.lua.evaluate("return require('coordinator').storage.token", as: String.self) == "t-Ann")
        // Signed out and relaunched: the onboarding, seen once, is not shown again.
        try runtime.run("tap('signOut') relaunch()", name: "=test")
        #expect(stack(runtime) == ["Login"])
    }

    @Test func aRelaunchWhoseScriptsFailChangesNothing() throws {
        let runtime = try runtime()
        try runtime.run("tap('next')", name: "=test")
        let before = runtime.app.stateDescription
        // The scripts fail when they run again (a global they read is broken by now): nothing changes.
        try folder.write("app.lua", Self.app + "\nif broken then error('the scripts fail now') end\n")
        try runtime.run("broken = true", name: "=test")
        #expect(throws: LuaError.self) { try runtime.run("relaunch()", name: "=test") }
        #expect(runtime.app.stateDescription == before)
        #expect(try runtime.lua.evaluate("return runs", as: Int.self) == 1)
        try runtime.run("tap('login', 'Ann')", name: "=test") // the app still runs its old code
        #expect(stack(runtime) == ["Home"])
    }

    @Test func aSnapshotTakenAfterSignInRestoresAfterARelaunchAndInANewRuntime() throws {
        let snapshot: String
        do {
            let store = FileStorage(path: folder.path + "/storage.json")
            let runtime = try runtime(store: store)
            try runtime.run("tap('next') tap('login', 'Ann')", name: "=test")
            snapshot = try runtime.snapshot()
            // The token is secret: never written into the snapshot, but kept in the store.
            #expect(!snapshot.contains("t-Ann"))
            #expect(try store.load() == ["onboarded": true, "token": "t-Ann", "user": "Ann"])
            try runtime.relaunch()
            try runtime.restore(snapshot)
            #expect(stack(runtime) == ["Home"])
        } // the runtime and its store go: the storage has no owner any more
        // A new process with the storage from then: it starts signed in, and its steps began with none.
        let other = try self.runtime(store: FileStorage(path: folder.path + "/storage.json"))
        #expect(stack(other) == ["Home"])
        try other.restore(snapshot)
        #expect(stack(other) == ["Home"])
        #expect(try snapshotState(other.snapshot()) == snapshotState(snapshot))
        #expect(other.app.storage["token"] == "t-Ann") // the secret is the store's, not the snapshot's
    }

    @Test func aSnapshotRestoresIntoARuntimeWhoseStorageMovedOn() throws {
        // A runtime whose storage has moved on (onboarded) would replay "next" on a screen that is not
        // there: the snapshot's steps begin with the storage they began with, so it restores.
        let runtime = try runtime()
        try runtime.run("tap('next') tap('login', 'Ann')", name: "=test")
        let snapshot = try runtime.snapshot()
        let document = try FlowValue(json: snapshot)
        #expect(document["start"]?["storage"] == nil) // the steps began with an empty storage
        #expect(document["storage"] == ["onboarded": true, "user": "Ann"])
        let moved = try self.runtime(storage: ["onboarded": true])
        try moved.restore(snapshot)
        #expect(stack(moved) == ["Home"])
    }

    /// An app owns its storage: a second runtime that would write the same file while the first holds it is
    /// refused, naming the file and the process that holds it (nothing is silently lost); reading it (as
    /// exploration does) is never refused; once the first goes, the file is free again.
    @Test func aStorageFileHasOneWriterAtATime() throws {
        let path = folder.path + "/owned.json"
        do {
            let first = try runtime(store: FileStorage(path: path))
            try first.run("tap('next')", name: "=test")
            let refused = #expect(throws: StorageError.self) { _ = try self.runtime(store: FileStorage(path: path)) }
            #expect(refused?.message.hasPrefix("the storage \(path) is in use by process \(getpid()) (") == true, "\(refused?.message ?? "")")
            #expect(refused?.message.contains("it holds \(path).lock") == true)
            #expect(try FileStorage(path: path).load() == ["onboarded": true]) // reading is never refused
            try first.run("tap('login', 'Ann')", name: "=test")
        }
        let next = try runtime(store: FileStorage(path: path))
        #expect(stack(next) == ["Home"])
    }

    /// A write the next launch would refuse to read (over 16 MiB) fails the step that makes it, the app and
    /// the file as before.
    @Test func aStorageTooBigToReadIsRefusedWhenWritten() throws {
        let path = folder.path + "/big.json"
        let runtime = try runtime(store: FileStorage(path: path))
        try runtime.run("tap('next')", name: "=test")
        let before = (runtime.app.stateDescription, try String(contentsOfFile: path, encoding: .utf8))
        let error = #expect(throws: StorageError.self) {
            try runtime.run("flow = require 'coordinator' tap('login', 'Ann') flow.storage.draft = ('x'):rep(17 << 20)", name: "=test")
        }
        #expect(error?.message.contains("over the 16 MiB a storage file may hold") == true, "\(error?.message ?? "")")
        #expect(runtime.app.stateDescription == before.0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == before.1)
        #expect(runtime.app.storage["draft"] == nil)
    }

    @Test func aFileStorageSavesAtOnceAndSaysWhatIsWrongWithAFile() throws {
        let path = folder.path + "/kept.json"
        let runtime = try runtime(store: FileStorage(path: path))
        try runtime.run("tap('next')", name: "=test")
        #expect(try FlowValue(json: String(contentsOfFile: path, encoding: .utf8)) == ["onboarded": true])
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o077 == 0) // the owner's alone: it may hold a token
        try folder.write("bad.json", "{ not json")
        #expect(throws: StorageError.self) { try FileStorage(path: folder.path + "/bad.json").load() }
        try folder.write("list.json", "[1, 2]")
        do { _ = try FileStorage(path: folder.path + "/list.json").load() } catch let error as StorageError {
            #expect(error.message.contains("not an object of values by key"))
        }
        #expect(try FileStorage(path: folder.path + "/missing.json").load().isEmpty)
    }

    @Test func aStoreThatCannotSaveFailsTheStepAndTheAppIsAsBefore() throws {
        final class Refusing: ScriptStorage {
            var saves = 0
            func load() throws -> FlowRecord { [:] }
            func save(_ values: FlowRecord) throws {
                saves += 1
                throw StorageFull()
            }
            struct StorageFull: Error {}
        }
        let store = Refusing()
        let runtime = try runtime(store: store)
        let before = runtime.app.stateDescription
        #expect(throws: Refusing.StorageFull.self) { try runtime.app.tap("next") }
        #expect(runtime.app.stateDescription == before && runtime.app.storage.values.isEmpty)
        #expect(store.saves == 1)
        try runtime.run("x = 1", name: "=test") // a step that writes no storage saves nothing
        #expect(store.saves == 1)
    }
}
