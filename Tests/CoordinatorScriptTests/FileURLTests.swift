import Foundation
import Testing
import TestSupport
import CoordinatorScript
import CoordinatorTools
import CoordinatorLua

/// Scripts, snapshots and test files by `URL`, as Swift hosts name files.
@Suite struct FileURLTests {
    @Test func scriptsSnapshotsAndTestFilesByURL() throws {
        let app = URL(fileURLWithPath: repositoryRoot + "/scripts/app.lua")
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: app)
        try runtime.start()
        try runtime.run("tap('login', { name = 'Ann', password = 'secret' }) tap('selectCity')")
        let folder = try TemporaryDirectory()
        let saved = URL(fileURLWithPath: folder.path + "/with space/state.json")
        try FileManager.default.createDirectory(at: saved.deletingLastPathComponent(), withIntermediateDirectories: true)
        try runtime.writeSnapshot(to: saved)

        let other = try ScriptRuntime(driverFunctions: true)
        try other.load(script: app)
        try other.start()
        // The login's password is secret: the snapshot holds it not, and its restore asks for it.
        try other.restore(contentsOf: saved) { _ in "secret" }
        #expect(other.app.window.visibleStack.map(\.name) == ["UserEdit", "Regions"])

        let before = other.app.window.visibleStack.map(\.id)
        let refused = #expect(throws: LuaError.self) { try other.restore(contentsOf: URL(string: "https://example.com/state.json")!) }
        #expect(refused?.message == "https://example.com/state.json is not a file URL: scripts and snapshots are files")
        #expect(other.app.window.visibleStack.map(\.id) == before)

        let tests = try FlowTests.list(URL(fileURLWithPath: repositoryRoot + "/scripts/app_test.lua"))
        #expect(tests.count >= 8)
        let results = try FlowTests.run(URL(fileURLWithPath: repositoryRoot + "/scripts/app_test.lua")) { $0.line == tests[0].line }
        #expect(results.count == 1 && results[0].outcome == .passed)
    }

    /// The one writer of whole files replaces a file at once, keeping its permissions; follows a link to
    /// the file it names (the link stays); writes a device in place; and says why when it cannot, leaving
    /// no half-written file behind.
    @Test func aFileIsReplacedAtOnceAndAFailureSaysWhy() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("report.json", "old")
        #expect(chmod(file, 0o640) == 0)
        try writeTextFile("new", to: file)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "new")
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o640)
        let link = folder.path + "/latest.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        try writeTextFile("newer", to: link)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "newer")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == file)
        try writeTextFile("gone", to: "/dev/null")
        let missing = #expect(throws: FileWriteError.self) { try writeTextFile("x", to: folder.path + "/no/such/folder/a.json") }
        #expect(missing?.description == "cannot write \(folder.path)/no/such/folder/a.json: No such file or directory")
        let full = #expect(throws: FileWriteError.self) { try writeTextFile(String(repeating: "x", count: 1 << 16), to: "/dev/full") }
        #expect(full?.description == "cannot write /dev/full: No space left on device")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["latest.json", "report.json"])
    }
}
