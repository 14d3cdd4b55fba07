import Testing
import TestSupport
import CoordinatorLua

@Suite struct ResourceTests {
    let lua: LuaState
    init() throws { lua = try makeState() }

    @Test func memoryLimitTurnsAnAllocationBombIntoAnError() throws {
        lua.memoryLimit = lua.memoryUsed + 4 << 20
        let bomb = """
            local parts = {}
            local s = 'x'
            while true do
              s = s .. string.rep('y', 4096)
              parts[#parts + 1] = s
            end
            """
        let error = try #require(luaError { try lua.run(bomb, name: "bomb.lua") })
        #expect(error.kind == .memory)
        #expect(error.message == "not enough memory")
        #expect(lua.peakMemoryUsed <= lua.memoryLimit! + 64 << 10)
        lua.collectGarbage()
        #expect(lua.memoryUsed < 1 << 20)
        // The state stays usable, limit still in place.
        #expect(try lua.evaluate("return #string.rep('a', 1000)", as: Int.self) == 1000)
        #expect(luaError { try lua.run("local s = string.rep('z', 64 << 20)") }?.kind == .memory)
        lua.memoryLimit = nil
        #expect(try lua.evaluate("return #string.rep('z', 8 << 20)", as: Int.self) == 8 << 20)
    }

    /// The parser's arrays grow, then shrink to fit: a shrunk small block moves to its new size's class,
    /// so compiling chunk after chunk (a REPL's lines) reuses the pool's blocks instead of taking pages.
    @Test func compilingChunkAfterChunkTakesNoMorePages() throws {
        func compile(_ range: Range<Int>) throws {
            for i in range { _ = try lua.load("local a, b, c = \(i), 'x\(i)', { \(i), \(i) } return a + #b + #c", name: "line\(i)") }
            lua.collectGarbage()
        }
        try compile(0..<2_000)
        let pooled = lua.pooledBytes
        try compile(2_000..<22_000)
        #expect(lua.pooledBytes <= pooled + 4 * 4096, "the pool grew from \(pooled) to \(lua.pooledBytes) bytes")
    }

    @Test func oneCollectionFreesWhatFinalizersRelease() throws {
        // A userdata's Swift object holds a Lua table; collecting the userdata releases the object, and
        // only then is the table garbage. One collectGarbage() must get the heap back all the same.
        final class Holder { var table: LuaTable?; init() {} }
        try lua.register(Holder.self, name: "Holder")
        func round() throws {
            let holder = Holder()
            holder.table = try lua.evaluate("local t = {} for i = 1, 200 do t[i] = i end return t", as: LuaTable.self)
            try lua.globals.set("h", lua.userdata(holder))
            try lua.run("h = nil")
        }
        for _ in 0..<50 { try round() } // the registry, the global `h` and the caches get their size
        lua.collectGarbage()
        let before = lua.memoryUsed
        for _ in 0..<50 { try round() }
        lua.collectGarbage()
        #expect(lua.memoryUsed == before)
    }

    @Test func memoryErrorInsidePcallIsCatchableByLua() throws {
        lua.memoryLimit = lua.memoryUsed + 1 << 20
        let code = """
            local ok, err = pcall(string.rep, 'x', 16 << 20)
            return ok, err
            """
        let results = try lua.run(code)
        #expect(results == [false, "not enough memory"])
    }

    @Test func budgetStopsAnInfiniteLoop() throws {
        lua.instructionBudget = 100_000
        let error = try #require(luaError { try lua.run("while true do end", name: "spin.lua") })
        #expect(error.kind == .budgetExhausted)
        #expect(error.message == "spin.lua:1: instruction budget of 100000 instructions exhausted")
        #expect(try lua.evaluate("local s = 0 for i = 1, 1000 do s = s + i end return s", as: Int.self) == 500_500)
    }

    /// A coroutine made before the budget was set is counted too, however it is resumed.
    @Test func budgetReachesCoroutines() throws {
        let lua = try makeState()
        try lua.run("co = coroutine.create(function() while true do end end); w = coroutine.wrap(function() while true do end end)")
        lua.instructionBudget = 100_000
        #expect(luaError { try lua.run("coroutine.resume(co)") }?.kind == .budgetExhausted)
        #expect(luaError { try lua.run("w()") }?.kind == .budgetExhausted)
        lua.instructionBudget = nil
        #expect(try lua.run("return coroutine.wrap(function(a) coroutine.yield(a + 1) end)(1)") == [2])
    }

    /// `coroutine.resume` calls the library's resume with the coroutine noted as the running thread and puts
    /// the record back when resume returns: so resume must have no other way out. At the memory limit,
    /// where any allocation fails, a dead coroutine's resume still answers with its message (the messages
    /// are kept made) instead of raising past the wrapper; a wrapped coroutine raises only after resume
    /// returned.
    @Test func aResumeAtTheMemoryLimitAnswersAndRaisesNothing() throws {
        let lua = try makeState()
        try lua.globals.set("tighten", lua.function(name: "tighten") { [unowned lua] _ in lua.memoryLimit = lua.memoryUsed })
        let results = try lua.run("""
            local dead = coroutine.create(function() end)
            coroutine.resume(dead)
            local wrapped = coroutine.wrap(function() end)
            wrapped()
            collectgarbage() collectgarbage()
            -- Call frames and stack for what follows, made before the limit (a collection frees spare ones).
            local function deep(n) if n > 0 then return deep(n - 1) + 0 end return 0 end
            deep(50)
            tighten()
            local ok, resumed, message = pcall(coroutine.resume, dead)
            local wrappedOk = pcall(wrapped)
            return ok, resumed, message, wrappedOk
            """)
        lua.memoryLimit = nil
        #expect(results == [true, false, "cannot resume dead coroutine", false])
    }

    @Test func budgetCannotBeSwallowedByPcall() throws {
        lua.instructionBudget = 50_000
        let code = """
            local caught = 0
            while true do
              local ok = pcall(function() while true do end end)
              caught = caught + 1
            end
            """
        #expect(luaError { try lua.run(code) }?.kind == .budgetExhausted)
        lua.instructionBudget = nil
        #expect(try lua.evaluate("local n = 0 for i = 1, 1000000 do n = n + 1 end return n", as: Int.self) == 1_000_000)
    }

    /// A message handler that loops is stopped by the budget and by a time limit: Lua calls the handler of
    /// an error a limit raised from inside the hook, with hooks off; the guarded `xpcall` does not call a
    /// Lua handler once a limit stops the code. Handlers still run (and see their stack) otherwise.
    @Test func aLoopingMessageHandlerIsStoppedByEveryLimit() throws {
        let code = "return xpcall(error, function() while true do end end)"
        lua.instructionBudget = 1_000_000
        #expect(luaError { try lua.run(code) }?.kind == .budgetExhausted)
        lua.instructionBudget = nil
        // The handler is skipped and xpcall returns, but the limit still ends the call it stopped.
        let timed = luaError { _ = try lua.withTimeLimit(0.05) { try lua.run(code) } }
        #expect(timed?.kind == .interrupted && timed?.message == "timed out", "\(String(describing: timed))")
        // The next call has no deadline of the last one.
        #expect(try lua.evaluate("local n = 0 for i = 1, 100000 do n = n + 1 end return n", as: Int.self) == 100_000)
        let traced = try lua.run("return xpcall(function() error('x') end, function(m) return debug.traceback(m, 2) end)", name: "=t")
        #expect(traced.last?.stringValue?.hasPrefix("t:1: x\nstack traceback:\n\t[C]: in function 'error'\n\tt:1: in function <t:1>\n\t[C]: in function 'xpcall'") == true, "\(traced)")
        #expect(try lua.run("return xpcall(error, function(m) return 'handled ' .. m end, 'e')") .last?.stringValue == "handled e")
    }

    /// Reporting an error calls its object's `__tostring`: one that loops is stopped (by the running limit,
    /// or a budget of its own when none runs), the report says so, and nothing of it reaches the next call.
    @Test func aLoopingTostringNeitherHangsTheReportNorLeaksIntoTheNextCall() throws {
        let code = "error(setmetatable({}, { __tostring = function() while true do end end }))"
        let plain = luaError { try lua.run(code, name: "=t") }
        #expect(plain?.message.hasPrefix("(table: __tostring failed: t:1: instruction budget of 10000000 instructions exhausted)") == true, "\(plain?.message ?? "")")
        let timed = luaError { _ = try lua.withTimeLimit(0.05) { try lua.run(code, name: "=t") } }
        #expect(timed?.message.hasPrefix("(table: __tostring failed: t:1: ") == true, "\(timed?.message ?? "")")
        #expect(try lua.withTimeLimit(5) { try lua.evaluate("local n = 0 for i = 1, 100000 do n = n + 1 end return n", as: Int.self) } == 100_000)
        lua.instructionBudget = 1_000_000
        let budgeted = luaError { try lua.run(code, name: "=t") }
        #expect(budgeted?.message.contains("__tostring failed") == true, "\(budgeted?.message ?? "")")
        lua.instructionBudget = nil
        #expect(try lua.evaluate("return 1 + 1", as: Int.self) == 2)
    }

    @Test func interruptStopsRunningCode() throws {
        var polls = 0
        try lua.globals.set("poll", lua.function(name: "poll") { [lua] _ in
            polls += 1
            if polls == 3 { lua.interrupt() }
        })
        let error = luaError { try lua.run("while true do poll() end", name: "loop.lua") }
        #expect(error?.kind == .interrupted)
        #expect(error?.message == "loop.lua:1: interrupted")
        #expect(polls == 3)
        // The interrupt was for that call only.
        #expect(try lua.evaluate("local n = 0 for i = 1, 100000 do n = n + 1 end return n", as: Int.self) == 100_000)
    }

    @Test func warningsReachSwift() throws {
        var warnings: [String] = []
        lua.onWarning { warnings.append($0) }
        try lua.run("warn('first ', 'part'); warn('@off'); warn('hidden'); warn('@on'); warn('second')")
        #expect(warnings == ["first part", "second"])
        try lua.run("setmetatable({}, { __gc = function() error('gc failed') end }) ; collectgarbage()")
        lua.collectGarbage()
        #expect(warnings.count == 3)
        #expect(warnings.last?.contains("gc failed") == true)
    }
}

@Suite struct ModuleTests {
    @Test func requireFindsModulesNextToTheMainScript() throws {
        let folder = try TemporaryDirectory()
        try folder.write("flows/app.lua", "local cities = require 'cities'\nreturn cities.first .. '/' .. require('nested').name")
        try folder.write("flows/cities.lua", "return { first = 'Moscow' }")
        try folder.write("flows/nested/init.lua", "return { name = 'nested' }")
        let lua = try makeState()
        let before: String = try lua.globals.get("package", as: LuaTable.self).get("path")
        #expect(try lua.runMainScript(folder.path + "/flows/app.lua") == ["Moscow/nested"])
        // package.path stays as Lua set it (scripts print and change it, as with lua): a searcher finds them.
        #expect(try lua.globals.get("package", as: LuaTable.self).get("path", as: String.self) == before)
        #expect(try lua.moduleFile("nested") == folder.path + "/flows/nested/init.lua")
        #expect(try lua.evaluate("return #package.searchers", as: Int.self) == 5)
        _ = try lua.runMainScript(folder.path + "/flows/app.lua") // the searcher is not added twice
        #expect(try lua.evaluate("return #package.searchers", as: Int.self) == 5)
        // A module next to the script comes before one of the same name along package.path.
        try folder.write("elsewhere/cities.lua", "return { first = 'Kazan' }")
        try lua.run("package.loaded.cities = nil package.path = '\(folder.path)/elsewhere/?.lua;' .. package.path")
        #expect(try lua.evaluate("return require('cities').first", as: String.self) == "Moscow")
        try lua.addModuleDirectory(folder.path + "/flows")
        let path: String = try lua.globals.get("package", as: LuaTable.self).get("path")
        #expect(path.hasPrefix(folder.path + "/flows/?.lua;" + folder.path + "/flows/?/init.lua;"))
        try lua.addModuleDirectory(folder.path + "/flows") // not added twice
        #expect(try lua.globals.get("package", as: LuaTable.self).get("path", as: String.self) == path)
    }

    @Test func safeLibrariesCannotReachTheSystem() throws {
        let lua = try makeState(.safe)
        #expect(try lua.evaluate("return io == nil and os == nil and debug == nil and package == nil and require == nil", as: Bool.self))
        #expect(try lua.evaluate("return dofile == nil and loadfile == nil", as: Bool.self))
        #expect(try lua.evaluate("return load('return 1 + 1')()", as: Int.self) == 2)
        let results = try lua.run("local f, err = load(string.dump(function() end)); return f, err")
        #expect(results[0] == .nil)
        #expect(results[1].stringValue?.contains("attempt to load a binary chunk") == true)
        #expect(try lua.evaluate("return load('return x', 'c', 'b', { x = 1 }) == nil", as: Bool.self))
        #expect(try lua.evaluate("return load('return x', 'c', 't', { x = 7 })()", as: Int.self) == 7)
    }
}

@Suite struct ReferenceTests {
    @Test func releasedReferencesThrowInsteadOfCrashing() throws {
        let lua = try makeState()
        let table = try lua.newTable()
        try table.set("a", 1)
        table.release()
        #expect(luaError { _ = try table.get("a", as: Int.self) }?.kind == .misuse)
        table.release() // twice is fine
    }

    @Test func valuesOfAClosedStateThrow() throws {
        let lua = try makeState()
        let f = try lua.load("return 1")
        let t = lua.globals
        lua.close()
        lua.close() // exactly once underneath
        #expect(lua.isClosed)
        #expect(luaError { try f.callValues() }?.kind == .misuse)
        #expect(luaError { _ = try t.get("print", as: LuaValue.self) }?.kind == .misuse)
        #expect(luaError { _ = try lua.newTable() }?.kind == .misuse)
        #expect(lua.function { _ in }.callValuesOrError()?.kind == .misuse)
    }

    /// Values kept after their state was released (not closed explicitly): the same errors, no crash.
    @Test func valuesOutliveTheirState() throws {
        let (f, t, callback): (LuaFunction, LuaTable, LuaCallback) = try {
            let lua = try makeState()
            let f = try lua.load("return 1")
            return (f, try lua.newTable(), try LuaCallback(f))
        }()
        #expect(luaError { try f.callValues() }?.message == "the Lua state is closed")
        #expect(luaError { try t.set("a", 1) }?.message == "the Lua state is closed")
        #expect(luaError { try callback.call() }?.message == "the Lua state is closed")
        t.release() // releasing after the state is gone is fine too
    }

    @Test func valuesCannotCrossStates() throws {
        let a = try makeState()
        let b = try makeState()
        let table = try a.newTable()
        #expect(luaError { try b.globals.set("t", table) }?.kind == .misuse)
    }

    @Test func droppedReferencesAreReleased() throws {
        let lua = try makeState()
        lua.collectGarbage()
        let baseline = lua.memoryUsed
        for _ in 0..<20_000 {
            let t = try lua.newTable()
            try t.set("payload", String(repeating: "x", count: 100))
        }
        _ = try lua.run("return 1") // a safe point
        lua.collectGarbage()
        #expect(lua.memoryUsed < baseline + 64 << 10)
    }
}

extension LuaFunction {
    func callValuesOrError() -> LuaError? { luaError { try callValues() } }
}

/// A state's small blocks come from its own pool (coordlua_pool.h): blocks that grow and shrink across the
/// pool's largest size and between its classes keep their bytes, and everything is given back.
@Suite struct PoolTests {
    @Test func blocksThatGrowAndShrinkAcrossThePoolKeepTheirContents() throws {
        let lua = try makeState()
        let before = lua.memoryUsed
        // Tables grow their parts through every class and past the largest (array parts of 1 to 200 slots,
        // hash parts of 1 to 100 keys), strings of every size around 256 bytes; then they shrink (a table
        // rehashed smaller) and are checked.
        let checked = try lua.evaluate("""
            local kept = {}
            for n = 1, 200 do
              local t = {}
              for i = 1, n do t[i] = i end
              local h = {}
              for i = 1, n // 2 do h["k" .. i] = i end
              kept[n] = { t = t, h = h, s = ("x"):rep(200 + n) .. n }
            end
            for n = 1, 200 do -- shrink: empty most of each table and make it rehash
              local h = kept[n].h
              for i = 2, n // 2 do h["k" .. i] = nil end
              h.extra = true
            end
            collectgarbage()
            local ok = 0
            for n = 1, 200 do
              local e = kept[n]
              local sum = 0
              for i = 1, n do sum = sum + e.t[i] end
              if sum == n * (n + 1) // 2 and #e.s == 200 + n + #tostring(n) and (n < 2 or e.h.k1 == 1) then ok = ok + 1 end
            end
            kept = nil
            collectgarbage()
            return ok
            """, as: Int.self)
        #expect(checked == 200)
        lua.collectGarbage()
        #expect(lua.memoryUsed <= before + 4096)
    }
}
