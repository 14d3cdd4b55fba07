import Testing
@testable import CoordinatorLua

/// State fingerprints (LuaState.fingerprint): equal exactly when the data is, whatever order it was
/// built in and wherever it lives; sharing, cycles, upvalue cells and coroutines count.
@Suite struct FingerprintTests {
    /// The fingerprint of what `chunk` returns, in a state of its own. Lua seeds `math.random` from the
    /// clock and an address in every state, and its generator's state is data a function reaching the
    /// globals reaches: seeded alike here, as exploration seeds every runtime.
    static func fingerprint(_ chunk: String) throws -> LuaFingerprint {
        let lua = try LuaState()
        _ = try lua.run("math.randomseed(0)")
        return try LuaFingerprint(in: lua, of: lua.run(chunk), registry: false)
    }

    @Test func theSameDataBuiltInAnotherOrderIsTheSameState() throws {
        let a = try Self.fingerprint("local t = {} t.b = 2 t.a = 1 t[3] = 'x' t[1] = true return t")
        let b = try Self.fingerprint("local t = { true, nil, 'x', a = 1 } t.zzz = 9 t.zzz = nil t.b = 2 return t")
        #expect(a == b)
        // One more key, another value, an integer for a float: other states.
        #expect(a != (try Self.fingerprint("return { true, nil, 'x', a = 1, b = 2, c = 3 }")))
        #expect(a != (try Self.fingerprint("return { true, nil, 'x', a = 1, b = 3 }")))
        #expect(a != (try Self.fingerprint("return { true, nil, 'x', a = 1.0, b = 2 }")))
    }

    @Test func sharingAndCyclesCount() throws {
        let shared = try Self.fingerprint("local c = { n = 1 } return { a = c, b = c }")
        let copies = try Self.fingerprint("return { a = { n = 1 }, b = { n = 1 } }")
        #expect(shared != copies) // writing through a shows through b in one of them only
        let cycle = try Self.fingerprint("local t = { n = 1 } t.self = t return t")
        #expect(cycle == (try Self.fingerprint("local t = {} t.self = t t.n = 1 return t")))
        #expect(cycle != (try Self.fingerprint("local t = { n = 1 } t.self = { n = 1 } return t")))
    }

    /// A file-level local two closures share is one variable; two locals of equal value are two.
    @Test func closuresCountByCodeAndUpvalueCells() throws {
        let one = try Self.fingerprint("local n = 0 local function inc() n = n + 1 end local function get() return n end return { inc, get }")
        let two = try Self.fingerprint("local n, m = 0, 0 local function inc() n = n + 1 end local function get() return m end return { inc, get }")
        #expect(one != two)
        let counted = try Self.fingerprint("local n = 5 return function() return n end")
        #expect(counted != (try Self.fingerprint("local n = 6 return function() return n end")))
        #expect(counted == (try Self.fingerprint("local n = 5 return function() return n end")))
    }

    @Test func aSuspendedCoroutineCountsByWhereItStopped() throws {
        let source = "local co = coroutine.create(function() local i = 0 while true do i = i + 1 coroutine.yield(i) end end)"
        let once = try Self.fingerprint(source + " coroutine.resume(co) return co")
        let twice = try Self.fingerprint(source + " coroutine.resume(co) coroutine.resume(co) return co")
        #expect(once != twice)
        #expect(once == (try Self.fingerprint(source + " coroutine.resume(co) return co")))
    }

    /// What a weak table holds depends on when the collector ran: it does not count.
    @Test func aWeakTablesEntriesDoNotCount() throws {
        let empty = try Self.fingerprint("return setmetatable({}, { __mode = 'k' })")
        #expect(empty == (try Self.fingerprint("local keep = {} return setmetatable({ [keep] = 1 }, { __mode = 'k' })")))
    }

    @Test func dataNestedTooDeepIsAnErrorNotACrash() throws {
        let lua = try LuaState()
        let deep = try lua.run("local t = {} for i = 1, 1000 do t = { t } end return t")
        let error = #expect(throws: LuaError.self) { _ = try LuaFingerprint(in: lua, of: deep, registry: false) }
        #expect(error?.message.contains("nested deeper than 160 levels") == true)
    }

    /// Two states of one program, their random generators seeded alike: one fingerprint (no addresses in
    /// it); seeded differently: two (the generator's state is data a later call observes).
    @Test func twoStatesWithTheSameDataHaveOneFingerprint() throws {
        let a = try LuaState(), b = try LuaState()
        _ = try a.run("math.randomseed(1)")
        _ = try b.run("math.randomseed(1)")
        #expect(try LuaFingerprint(in: a, of: [a.globals], registry: true) == LuaFingerprint(in: b, of: [b.globals], registry: true))
        _ = try b.run("math.randomseed(2)")
        #expect(try LuaFingerprint(in: a, of: [a.globals], registry: true) != LuaFingerprint(in: b, of: [b.globals], registry: true))
    }
}
