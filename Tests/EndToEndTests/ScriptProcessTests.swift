import Foundation
import Testing
import TestSupport
import CoordinatorTools

/// `coordrun SCRIPT` as a process: what it says and how it exits when the script misbehaves.
@Suite struct ScriptProcessTests {
    /// A main script that is a binary chunk (`luac`'s output) runs as under lua; the sandbox refuses it,
    /// naming it.
    @Test func coordrunRunsABinaryScriptExceptInTheSandbox() throws {
        let folder = try TemporaryDirectory()
        let lua = try LuaState()
        let dumped = try lua.evaluate("return string.dump(load('print(\\'from bytecode\\', ...)'))", as: LuaString.self)
        let path = try folder.write("bytecode.lua", bytes: Array(dumped.bytes))
        let ran = try Programs.run([path, "a"], input: "")
        #expect(ran.status == 0, "\(ran.err)")
        #expect(ran.out == "from bytecode\ta\n")
        let refused = try Programs.run(["--sandbox", path], input: "")
        #expect(refused.status == 1)
        #expect(refused.err.contains("\(path): attempt to load a binary chunk"))
    }

    @Test func coordrunExitsCleanlyWhenAFinalizerDrivesTheApp() throws {
        let outcome = try Programs.run(["scripts/app.lua"], input: "G = setmetatable({}, {__gc = function() top() tap('x') back() end})\n")
        #expect(outcome.status == 0)
        #expect(!outcome.err.contains("Fatal error"))
    }
}
