import Testing
import TestSupport
import CoordinatorLua

@Suite struct CallbackTests {
    let lua: LuaState
    init() throws { lua = try makeState() }

    /// A closure may push more results than the room Lua guarantees a C function (20 slots): each push
    /// makes room first.
    @Test func aClosurePushesAsManyResultsAsItLikes() throws {
        try lua.globals.set("many", lua.function(name: "many") { call in
            for i in 1...5_000 { try call.push(i) }
        })
        #expect(try lua.evaluate("return select('#', many())", as: Int.self) == 5_000)
        #expect(try lua.evaluate("return select(5000, many())", as: Int.self) == 5_000)
    }

    /// Argument numbers that name no argument (0, negative, past the count, the extremes) read as absent
    /// arguments: an error or nil, never another slot of the stack or an arithmetic trap.
    @Test func argumentNumbersOutOfRangeReadAsAbsent() throws {
        var seen: [String] = []
        try lua.globals.set("probe", lua.function(name: "probe") { call in
            for n in [0, -1, 3, Int.max, Int.min] {
                let optional = (try? call.optional(n, as: Int.self)) ?? nil
                seen.append("\(n):\(call.type(n)):\(call.value(n)):" + (optional.map(String.init) ?? "nil"))
                do { _ = try call.integer(n); seen.append("read") } catch { seen.append("error") }
            }
            try call.push("done")
        })
        #expect(try lua.evaluate("return probe(10, 20)", as: String.self) == "done")
        #expect(!seen.contains("read"), "\(seen)")
        #expect(seen.filter { $0.contains(":none:nil:nil") }.count == 5, "\(seen)")
    }

    @Test func typedClosures() throws {
        try lua.globals.set("answer", lua.function(name: "answer") { 42 })
        try lua.globals.set("double", lua.function(name: "double") { (x: Int) in x * 2 })
        try lua.globals.set("join", lua.function(name: "join") { (a: String, b: String) in a + b })
        try lua.globals.set("sum3", lua.function(name: "sum3") { (a: Double, b: Double, c: Double) in a + b + c })
        #expect(try lua.evaluate("return answer() + double(4) + #join('ab', 'cd') + sum3(0.5, 0.25, 0.25)", as: Double.self) == 55)
    }

    @Test func multipleResultsAndOptionalArguments() throws {
        try lua.globals.set("divmod", lua.function(name: "divmod") { call in
            let (a, b) = (try call.integer(1), try call.integer(2))
            guard b != 0 else { throw call.badArgument(2, "division by zero") }
            try call.push(a / b)
            try call.push(a % b)
        })
        try lua.globals.set("count", lua.function(name: "count") { call in try call.push(call.count) })
        try lua.globals.set("opt", lua.function(name: "opt") { call in try call.push(try call.optional(1, as: Int.self) ?? -1) })
        let results = try lua.run("return divmod(17, 5)")
        #expect(results == [.integer(3), .integer(2)])
        #expect(try lua.evaluate("return count(1, nil, 3)", as: Int.self) == 3)
        #expect(try lua.evaluate("return opt() + opt(nil) + opt(5)", as: Int.self) == 3)
        #expect(luaError { try lua.run("divmod(1, 0)", name: "m.lua") }?.message == "m.lua:1: bad argument #2 to 'divmod' (division by zero)")
    }

    @Test func callbacksCallBackIntoLua() throws {
        try lua.globals.set("map", lua.function(name: "map") { call in
            let f = try call.argument(1, as: LuaFunction.self)
            let items = try call.argument(2, as: [Int].self)
            try call.push(try items.map { try f.call($0, as: Int.self) })
        })
        #expect(try lua.evaluate("return map(function(x) return x * x end, {1, 2, 3})", as: [Int].self) == [1, 4, 9])
        // A Lua error inside the nested call keeps its own location.
        let error = luaError { try lua.run("map(function(x) error('bad ' .. x) end, {1})", name: "n.lua") }
        #expect(error?.message == "n.lua:1: bad 1")
    }

    @Test func callbacksRunInsideCoroutines() throws {
        try lua.globals.set("twice", lua.function(name: "twice") { (x: Int) in x * 2 })
        let code = """
            local co = coroutine.wrap(function(a)
              local b = coroutine.yield(twice(a))
              return twice(b)
            end)
            return co(3) + co(10)
            """
        #expect(try lua.evaluate(code, as: Int.self) == 26)
    }

    @Test func yieldingAcrossASwiftCallbackIsAnErrorNotACrash() throws {
        try lua.globals.set("call", lua.function(name: "call") { call in
            try call.argument(1, as: LuaFunction.self).callValues()
        })
        let code = """
            local co = coroutine.create(function() call(function() coroutine.yield(1) end) end)
            local ok, err = coroutine.resume(co)
            return ok, err
            """
        let results = try lua.run(code)
        #expect(results[0] == false)
        #expect(results[1].stringValue?.contains("attempt to yield across a C-call boundary") == true)
    }

    @Test func capturedLuaValuesAreReleasedWithTheirFunction() throws {
        let tracker = Tracker()
        try lua.register(Tracked.self, name: "Tracked")
        do {
            let held = Tracked(tracker)
            let f = lua.function(name: "f") { _ in _ = held }
            try lua.globals.set("f", f)
        }
        #expect(tracker.live == 1)
        try lua.run("f = nil")
        lua.collectGarbage()
        lua.collectGarbage()
        #expect(tracker.live == 0)
    }

    @Test func luaCallbacksCallTheirFunctionAndTakeNewCode() throws {
        try lua.run("""
            seen = {}
            function record(...)
              local parts = {}
              for i = 1, select('#', ...) do parts[i] = tostring((select(i, ...))) end
              seen[#seen + 1] = table.concat(parts, ',')
            end
            """)
        let callback = try LuaCallback(lua.globals.get("record", as: LuaFunction.self))
        try callback.call(1)
        try callback.call(Int?.none)          // an optional's nil is an argument (count stays 1)
        try callback.call("a", 2.5, true)
        #expect(try lua.evaluate("return #seen .. ':' .. seen[1] .. '|' .. seen[3]", as: String.self) == "3:1|a,2.5,true")
        #expect(try lua.evaluate("return seen[2]", as: String.self) == "nil")

        // New code: the same object calls the new function, and reports it.
        let replacement = try lua.evaluate("return function(x) seen = { 'new ' .. x } end", as: LuaFunction.self)
        try callback.replace(with: replacement)
        try callback.call(7)
        #expect(try lua.evaluate("return seen[1]", as: String.self) == "new 7")
        #expect(try callback.function == replacement)

        // Results are read in place.
        try callback.replace(with: lua.evaluate("return function(a, b) return b, a end", as: LuaFunction.self))
        let swapped = try callback.call(1, "two") { results in try (results.read(1, as: String.self), results.read(2, as: Int.self)) }
        #expect(swapped == ("two", 1))
    }

    @Test func luaCallbackErrorsAreLuaErrorsAndLeaveTheStackAsItWas() throws {
        let callback = try LuaCallback(lua.evaluate("return function(x) if x > 1 then error('too big: ' .. x) end end", name: "cb.lua", as: LuaFunction.self))
        try lua.run("x = 'below'")
        #expect(luaError { try callback.call(5) }?.message == "cb.lua:1: too big: 5")
        try callback.call(1)
        #expect(try lua.evaluate("return x", as: String.self) == "below")
        // A function from another state is refused, and the callback keeps its code.
        let other = try makeState()
        #expect(luaError { try callback.replace(with: other.evaluate("return print", as: LuaFunction.self)) }?.kind == .misuse)
        #expect(luaError { try callback.call(2) }?.message == "cb.lua:1: too big: 2")
        lua.close()
        #expect(luaError { try callback.call(1) }?.kind == .misuse)
    }

    @Test func luaCallbacksReleaseTheirFunction() throws {
        let tracker = Tracker()
        try lua.register(Tracked.self, name: "Tracked")
        try lua.globals.set("held", lua.userdata(Tracked(tracker)))
        var callback: LuaCallback? = try LuaCallback(lua.evaluate("local h = held return function() return h end", as: LuaFunction.self))
        try lua.run("held = nil")
        lua.collectGarbage()
        #expect(tracker.live == 1) // the callback's function keeps its upvalue alive
        #expect(callback != nil)
        callback = nil
        lua.collectGarbage()
        lua.collectGarbage()
        #expect(tracker.live == 0)
    }

    @Test func callsWithoutTracebacksReturnTheSameResultsAndErrors() throws {
        let swap = try lua.evaluate("return function(a, b) return b, a end", as: LuaFunction.self)
        let fail = try lua.evaluate("return function(x) error('no ' .. x) end", name: "t.lua", as: LuaFunction.self)
        let callback = try LuaCallback(swap)
        for tracebacks in [true, false] {
            lua.tracebacks = tracebacks
            #expect(try swap.callValues(1, "b") == ["b", 1])
            #expect(try swap.call(1, "b", as: String.self) == "b")
            #expect(try swap.call(1, "b") { try ($0.count, $0.read(2, as: Int.self)) } == (2, 1))
            #expect(try callback.call(1, "b") { try $0.read(1, as: String.self) } == "b")
            let error = luaError { try fail.call("way") }
            #expect(error?.message == "t.lua:1: no way")
            #expect((error?.traceback != nil) == tracebacks)
        }
    }

    @Test func theStateListsItsLiveCallbacks() throws {
        let f = try lua.evaluate("return function() end", as: LuaFunction.self)
        var held = try (0..<5).map { _ in try LuaCallback(f) }
        #expect(lua.liveCallbacks.map(ObjectIdentifier.init) == held.map(ObjectIdentifier.init))
        held.remove(at: 1)   // from the middle: the last takes its place
        held.remove(at: 0)
        held.append(try LuaCallback(f))
        #expect(Set(lua.liveCallbacks.map(ObjectIdentifier.init)) == Set(held.map(ObjectIdentifier.init)))
        #expect(lua.liveCallbacks.count == 4)
        held.removeAll()
        #expect(lua.liveCallbacks.isEmpty)
    }

    @Test func swiftClosuresSeeTheirState() throws {
        try lua.globals.set("make", lua.function(name: "make") { call in
            let state = call.state
            let table = try #require(state).newTable()
            try table.set("made", true)
            try call.push(table)
        })
        #expect(try lua.evaluate("return make().made", as: Bool.self))
    }
}

@Suite struct RecursionTests {
    @Test func unboundedSwiftLuaRecursionIsAnErrorNotACrash() throws {
        let lua = try makeState()
        try lua.globals.set("bounce", lua.function(name: "bounce") { call in
            try call.argument(1, as: LuaFunction.self).callValues(call.value(1))
        })
        let error = luaError { try lua.run("local function f(self) bounce(self) end bounce(f)", name: "r.lua") }
        #expect(error?.message.contains("stack overflow") == true)
        #expect(try lua.evaluate("return 1", as: Int.self) == 1)
    }

    @Test func deeplyNestedValuesAreRefusedNotCrashing() throws {
        let lua = try makeState()
        let error = luaError { _ = try lua.evaluate("local t = {} for i = 1, 100000 do t = { t } end return t", as: LuaTable.self).decode([[[[[[Int]]]]]].self) }
        #expect(error?.kind == .type) // the shape does not match; nothing overflows
        #expect(try lua.evaluate("local t = {} for i = 1, 100000 do t = { t } end return 1", as: Int.self) == 1)
    }
}
