import Foundation
import Testing
import TestSupport

/// Lua 5.4's own test suite (the `testes` of the release the system's liblua5.4 is) inside coordrun: every
/// file ends as it ends under lua5.4, in portable mode. The suite is found by `scripts/lua-test-suite`
/// (`COORDINATOR_LUA_TESTS`); where it cannot be had, these tests are skipped and say so.
@Suite struct LuaTestSuiteTests {
    /// The suite's folder, when there is one.
    static let folder: String? = {
        guard let path = ProcessInfo.processInfo.environment["COORDINATOR_LUA_TESTS"], !path.isEmpty,
              FileManager.default.fileExists(atPath: path + "/all.lua") else { return nil }
        return path
    }()

    /// The suite's test files (its modules and `heavy.lua`, which needs gigabytes, left out), and `all.lua`,
    /// which runs them in one state.
    static let files = ["api", "attrib", "big", "bitwise", "calls", "closure", "code", "constructs", "coroutine", "cstack",
                        "db", "errors", "events", "files", "gc", "gengc", "goto", "literals", "locals", "main", "math",
                        "nextvar", "pm", "sort", "strings", "tpack", "utf8", "vararg", "verybig", "all"]

    @Test(.enabled(if: folder != nil, "Lua's test suite is not here (scripts/lua-test-suite fetches it; COORDINATOR_LUA_TESTS=DIR points at a copy)"),
          arguments: files)
    func endsAsUnderLua(_ file: String) throws {
        let folder = try #require(Self.folder)
        let arguments = ["-e", "_port=true _soft=true", file + ".lua"]
        let lua = try Programs.run("/usr/bin/lua5.4", arguments, input: "", folder: folder, within: 600)
        let ours = try Programs.run(Programs.coordrun, arguments, input: "", folder: folder, within: 600)
        #expect(lua.status == 0, "lua5.4 itself fails \(file).lua: \(lua.err)")
        #expect(ours.status == lua.status, "\(file).lua under coordrun: \(ours.err)")
        if file == "all" { #expect(ours.out.contains("final OK !!!")) }
    }
}
