import Testing
@testable import CoordinatorLua

/// The cache of the stable roots' walk (LuaFingerprint's `cached`): a fingerprint taken with it is the full
/// walk's, whatever changed since the last one. Each case writes into one stable root in a way built to slip
/// past a cheap check (a value written back, a table collected and made again where the old one lived, an
/// upvalue changed with no table touched, a weak table turned strong, a coroutine resumed), and after each the
/// cached fingerprint must be the full walk's and differ from the one before.
@Suite struct StableRootsCacheTests {
    /// A state with a module named like the coordinator's (the last stable root), with a closure and its counter.
    static func state() throws -> LuaState {
        let lua = try LuaState()
        _ = try lua.run("""
            math.randomseed(0)
            local count = 0
            package.loaded.coordinator = { tick = function() count = count + 1 return count end, classes = {} }
            """)
        return lua
    }

    static func fingerprint(_ lua: LuaState, cached: Bool) throws -> LuaFingerprint {
        try LuaFingerprint(in: lua, of: [lua.globals], registry: true, cached: cached)
    }

    /// Each write, in order, into one state.
    static let writes: [String] = [
        "string.extra = 1", "table.extra = {}", "math.pi = 3", "io.extra = true", "os.extra = 'x'",
        "coroutine.extra = 1.5", "utf8.extra = 2", "debug.extra = 3",
        "package.path = package.path .. ';x'",
        "getmetatable('').extra = 1",
        "package.loaded.extra = {}",
        "extra = 1",
        "require('coordinator').classes.Home = {}",
        // An upvalue: no table changes, the closure's counter does.
        "require('coordinator').tick()",
        // The generator's state lives in a userdata's bytes, an upvalue of math.random.
        "math.random()",
        // A C closure's upvalue set to another table.
        "debug.setupvalue(package.searchers[2], 1, {})",
        // A table collected and made again, perhaps where the old one lived.
        "string.t = { 1 }",
        "string.t = nil collectgarbage() collectgarbage() string.t = { 2 }",
        // A string collected and made again, perhaps where the old one lived.
        "string.s = ('x'):rep(64)",
        "string.s = nil collectgarbage() collectgarbage() string.s = ('y'):rep(64)",
        // A weak table with an entry, then made strong: its entries count from then on.
        "string.w = setmetatable({}, { __mode = 'k' }) string.w[string] = 1",
        "getmetatable(string.w).__mode = nil",
        // A coroutine in a stable root, then resumed.
        "string.co = coroutine.create(function() coroutine.yield() end)",
        "coroutine.resume(string.co)",
        // A module replaced where require finds it (the old table still the global).
        "package.loaded.string = { replaced = true }",
        "setmetatable(_G, { __index = function() end })",
        // The loaded modules with an __index that would count its calls: the walk reads them raw.
        "calls = 0 package.loaded.utf8 = nil setmetatable(package.loaded, { __index = function() calls = calls + 1 end })",
    ]

    @Test func everyWriteIntoAStableRootIsSeenAndTheCacheGivesTheFullWalk() throws {
        let lua = try Self.state()
        var before = try Self.fingerprint(lua, cached: true)
        #expect(before == (try Self.fingerprint(lua, cached: false)))
        // Taken again with nothing changed: from the cache, the same.
        #expect(before == (try Self.fingerprint(lua, cached: true)))
        for write in Self.writes {
            _ = try lua.run(write)
            let cached = try Self.fingerprint(lua, cached: true)
            #expect(cached == (try Self.fingerprint(lua, cached: false)), "after \(write)")
            #expect(cached != before, "\(write) was not seen")
            #expect(cached == (try Self.fingerprint(lua, cached: true)), "taken again after \(write)")
            before = cached
        }
        #expect(try lua.globals.get("calls", as: Int.self) == 0)
    }

    /// Without the random generator's state (what a snapshot restores), drawing a number changes nothing, a
    /// write does, and the cache gives the full walk's fingerprint either way, whichever way it last walked.
    @Test func withoutTheRandomStateTheCacheGivesTheFullWalk() throws {
        let lua = try Self.state()
        func fingerprint(cached: Bool, random: Bool) throws -> LuaFingerprint {
            try LuaFingerprint(in: lua, of: [lua.globals], registry: true, cached: cached, randomState: random)
        }
        let start = try fingerprint(cached: true, random: false)
        _ = try lua.run("math.random()")
        #expect(try fingerprint(cached: true, random: false) == start)
        #expect(try fingerprint(cached: false, random: false) == start)
        #expect(try fingerprint(cached: true, random: true) == fingerprint(cached: false, random: true))
        _ = try lua.run("string.extra = 1")
        let written = try fingerprint(cached: true, random: false)
        #expect(written != start)
        #expect(written == (try fingerprint(cached: false, random: false)))
    }

    /// A value written and written back is the state before: the cache says so as the full walk does.
    @Test func aWriteUndoneIsTheStateBefore() throws {
        let lua = try Self.state()
        let start = try Self.fingerprint(lua, cached: true)
        _ = try lua.run("string.upper, string.lower = string.lower, string.upper")
        let swapped = try Self.fingerprint(lua, cached: true)
        #expect(swapped != start)
        _ = try lua.run("string.upper, string.lower = string.lower, string.upper")
        #expect(try Self.fingerprint(lua, cached: true) == start)
    }

    /// Two states built alike get one fingerprint whether either took it from its cache or not.
    @Test func theCacheGivesTheSameFingerprintInEveryState() throws {
        let a = try Self.state(), b = try Self.state()
        _ = try Self.fingerprint(a, cached: true)
        _ = try a.run("string.extra = {}")
        _ = try b.run("string.extra = {}")
        #expect(try Self.fingerprint(a, cached: true) == Self.fingerprint(b, cached: false))
    }
}
