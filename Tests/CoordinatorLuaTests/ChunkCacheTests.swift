import Foundation
import Testing
import TestSupport
@testable import CoordinatorLua

/// The process's compiled chunks (LuaChunkCache): a second state that loads the same file takes it
/// compiled, and nothing a file or script could do changes what it runs or what its messages say.
/// Serialized: one test turns the cache off, which the others would see.
@Suite(.serialized) struct ChunkCacheTests {
    let folder: TemporaryDirectory
    init() throws { folder = try TemporaryDirectory() }

    /// A text no other test loads (the cache is the process's).
    func unique(_ body: String) -> String { "-- \(UUID().uuidString)\n" + body }

    /// How many chunks `lua` took compiled since it was made (a new state loads its own library code, such
    /// as the coroutine wrappers, through the cache too).
    func shared(_ lua: LuaState, since made: Int) -> Int { LuaChunkCache.sharedLoads(of: lua) - made }

    @Test func aSecondStateTakesTheFileCompiledWithTheSameMessages() throws {
        let path = try folder.write("app.lua", unique("""
            local function fail(t) return t.missing.field end
            return 40 + 2, function() return fail({}) end
            """))
        var messages: [String] = []
        for round in 0..<3 {
            let lua = try makeState()
            let made = LuaChunkCache.sharedLoads(of: lua)
            let results = try lua.loadFile(path).callValues()
            #expect(results.first == .integer(42))
            #expect(shared(lua, since: made) == (round == 0 ? 0 : 1))
            guard case .function(let f)? = results.last else { Issue.record("no function"); return }
            messages.append(luaError { try f.call() }?.message ?? "no error")
        }
        #expect(messages[0].hasPrefix("\(path):2: attempt to index a nil value (field 'missing')"))
        #expect(Set(messages).count == 1)
    }

    @Test func anEditedFileCompilesAgain() throws {
        let path = try folder.write("app.lua", unique("return 1"))
        _ = try makeState().runFile(path)
        try folder.write("app.lua", unique("return 2"))
        let lua = try makeState()
        let made = LuaChunkCache.sharedLoads(of: lua)
        #expect(try lua.runFile(path).first == .integer(2))
        #expect(shared(lua, since: made) == 0)
    }

    @Test func aShebangLineAndAByteOrderMarkAreSkippedAsLuaSkipsThem() throws {
        let shebang = try folder.write("script.lua", "#!/usr/bin/env coordrun \(UUID().uuidString)\nlocal x\nreturn x.y")
        let bom = try folder.write("bom.lua", "\u{FEFF}-- \(UUID().uuidString)\nlocal x\nreturn x.y")
        let onlyShebang = try folder.write("empty.lua", "#!/usr/bin/env lua \(UUID().uuidString)")
        for _ in 0..<2 {
            let lua = try makeState()
            #expect(luaError { try lua.runFile(shebang) }?.message.hasPrefix("\(shebang):3: attempt to index a nil value") == true)
            #expect(luaError { try lua.runFile(bom) }?.message.hasPrefix("\(bom):3: attempt to index a nil value") == true)
            #expect(try lua.runFile(onlyShebang).isEmpty)
        }
    }

    @Test func binaryFilesLoadOnlyWithTheDebugLibraryAndMistakesReadAsLuasOwn() throws {
        let maker = try makeState()
        let dumped = try maker.evaluate("return string.dump(function() return 1 end)", as: LuaValue.self)
        guard case .string(let bytes) = dumped else { Issue.record("no dump"); return }
        let binary = try folder.write("binary.lua", bytes: bytes.bytes)
        let broken = try folder.write("broken.lua", unique("local x = = 1"))
        for _ in 0..<2 {
            let trusted = try makeState()
            let before = LuaChunkCache.sharedLoads(of: trusted)
            #expect(try trusted.runFile(binary) == [.integer(1)])
            #expect(shared(trusted, since: before) == 0) // binary chunks are not kept in the process's store
            let lua = try makeState(LuaLibraries.all.subtracting(.debug))
            let made = LuaChunkCache.sharedLoads(of: lua)
            #expect(luaError { _ = try lua.loadFile(binary) }?.message.contains("attempt to load a binary chunk (mode is 't')") == true)
            #expect(luaError { _ = try lua.loadFile(broken) }?.message == "\(broken):2: unexpected symbol near '='")
            #expect(luaError { _ = try lua.loadFile(folder.path + "/none.lua") }?.message == "cannot open \(folder.path)/none.lua: No such file or directory")
            #expect(shared(lua, since: made) == 0)
        }
    }

    @Test func modulesAndCachedChunksAreShared() throws {
        try folder.write("helper.lua", unique("return { answer = 42 }"))
        let main = try folder.write("main.lua", unique("return require('helper').answer"))
        let library = unique("return ...")
        for round in 0..<2 {
            let lua = try makeState()
            let made = LuaChunkCache.sharedLoads(of: lua)
            #expect(try lua.runMainScript(main).first == .integer(42))
            #expect(try lua.load(library, name: "[library]", cached: true).callValues("x").first == .string("x"))
            #expect(shared(lua, since: made) == (round == 0 ? 0 : 3))
        }
        // A chunk loaded without `cached` is not kept.
        let plain = unique("return 1")
        _ = try makeState().load(plain)
        let lua = try makeState()
        let made = LuaChunkCache.sharedLoads(of: lua)
        _ = try lua.load(plain, cached: true)
        #expect(shared(lua, since: made) == 0)
    }

    @Test func aLimitOfZeroTurnsTheCacheOffAndEmptiesIt() throws {
        let path = try folder.write("app.lua", unique("return 1"))
        _ = try makeState().runFile(path)
        #expect(LuaChunkCache.statistics.chunks > 0)
        let limit = LuaChunkCache.limit
        LuaChunkCache.limit = 0
        defer { LuaChunkCache.limit = limit }
        #expect(LuaChunkCache.statistics.chunks == 0)
        #expect(LuaChunkCache.statistics.bytes == 0)
        let lua = try makeState()
        let made = LuaChunkCache.sharedLoads(of: lua)
        #expect(try lua.runFile(path).first == .integer(1))
        #expect(shared(lua, since: made) == 0)
        LuaChunkCache.limit = limit
        _ = try makeState().runFile(path)
        let again = try makeState()
        let againMade = LuaChunkCache.sharedLoads(of: again)
        _ = try again.runFile(path)
        #expect(shared(again, since: againMade) == 1)
        LuaChunkCache.removeAll()
        let afterClear = try makeState()
        let clearMade = LuaChunkCache.sharedLoads(of: afterClear)
        _ = try afterClear.runFile(path)
        #expect(shared(afterClear, since: clearMade) == 0)
    }
}
