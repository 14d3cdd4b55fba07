import Foundation
import Testing
import TestSupport
import CoordinatorTools

/// `coordrun SCRIPT` as a process: what it says and how it exits when the script misbehaves.
@Suite struct ScriptProcessTests {
    /// coordrun names a main script that is a binary chunk.
    @Test func coordrunNamesABinaryScript() throws {
        let folder = try TemporaryDirectory()
        let lua = try LuaState()
        let dumped = try lua.evaluate("return string.dump(load('return 1'))", as: LuaString.self)
        let path = try folder.write("bytecode.lua", bytes: Array(dumped.bytes))
        let outcome = try Programs.run([path], input: "")
        #expect(outcome.status == 1)
        #expect(outcome.err.contains("\(path): attempt to load a binary chunk"))
    }

    @Test func coordrunExitsCleanlyWhenAFinalizerDrivesTheApp() throws {
        let outcome = try Programs.run(["scripts/app.lua"], input: "G = setmetatable({}, {__gc = function() top() tap('x') back() end})\n")
        #expect(outcome.status == 0)
        #expect(!outcome.err.contains("Fatal error"))
    }
}
