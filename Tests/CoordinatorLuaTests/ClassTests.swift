import Testing
import TestSupport
import CoordinatorLua
import CCoordinatorLua

@Suite struct ClassTests {
    let lua: LuaState
    let tracker = Tracker()
    let tag: LuaClassTag<Tracked>

    init() throws {
        lua = try makeState()
        tag = try lua.registerClass(Tracked.self, name: "Tracked") { c in
            c.method("add") { (object: Tracked, n: Int) in
                object.value += n
                return object.value
            }
            c.method("fail") { _, _ in throw Boom(code: 5) }
            c.property("value", get: { $0.value }, set: { $0.value = $1 })
            c.readOnly("live") { $0.tracker.live }
            c.toString { "Tracked(\($0.value))" }
            c.equals { $0.value == $1.value }
            c.metamethod("__len") { object, call in try call.push(object.value) }
            c.standIn(field: "__object")
        }
        try lua.globals.set("Tracked", lua.methods(of: Tracked.self))
    }

    @Test func methodsPropertiesAndMetamethods() throws {
        let object = Tracked(tracker, value: 1)
        try lua.globals.set("obj", lua.userdata(object))
        #expect(try lua.evaluate("return obj:add(2)", as: Int.self) == 3)
        try lua.run("obj.value = obj.value * 10")
        #expect(object.value == 30)
        #expect(try lua.evaluate("return tostring(obj)", as: String.self) == "Tracked(30)")
        #expect(try lua.evaluate("return #obj", as: Int.self) == 30)
        #expect(try lua.evaluate("return obj.live", as: Int.self) == 1)
        #expect(try lua.evaluate("return obj.missing == nil", as: Bool.self))
    }

    @Test func wrongUseIsALuaError() throws {
        try lua.globals.set("obj", lua.userdata(Tracked(tracker)))
        #expect(luaError { try lua.run("obj.live = 3", name: "c.lua") }?.message == "c.lua:1: Tracked has no writable field 'live'")
        #expect(luaError { try lua.run("obj.typo = 3", name: "c.lua") }?.message == "c.lua:1: Tracked has no writable field 'typo'")
        #expect(luaError { try lua.run("obj.value = 'x'", name: "c.lua") }?.message == "c.lua:1: bad value for 'Tracked.value' (number expected, got string)")
        #expect(luaError { try lua.run("obj.add(5)", name: "c.lua") }?.message == "c.lua:1: bad self for 'Tracked.add' (expected Tracked, got number); call it with ':'")
        #expect(luaError { try lua.run("obj:add('x')", name: "c.lua") }?.message == "c.lua:1: bad argument #1 to 'add' (number expected, got string)")
        #expect(luaError { try lua.run("local add = obj.add; add(io.stdout, 1)", name: "c.lua") }?.message.contains("bad self") == true)
        let failed = luaError { try lua.run("obj:fail()", name: "c.lua") }
        #expect(failed?.message == "c.lua:1: boom 5")
        #expect(failed?.underlying as? Boom == Boom(code: 5))
        #expect(try lua.evaluate("return getmetatable(obj)", as: String.self) == "Tracked")
    }

    @Test func identityAndEquality() throws {
        let object = Tracked(tracker, value: 1)
        try lua.globals.set("a", lua.userdata(object))
        try lua.globals.set("b", lua.userdata(object))
        try lua.globals.set("c", lua.userdata(Tracked(tracker, value: 1)))
        try lua.globals.set("d", lua.userdata(Tracked(tracker, value: 2)))
        #expect(try lua.evaluate("return rawequal(a, b)", as: Bool.self))
        #expect(try lua.evaluate("local t = {[a] = 'x'}; return t[b]", as: String.self) == "x")
        #expect(try lua.evaluate("return a == c and a ~= d", as: Bool.self))
        let back = try lua.evaluate("return a", as: LuaUserdata.self)
        #expect(back.object(as: Tracked.self) === object)
    }

    @Test func objectsComeBackAsTheirSwiftType() throws {
        let object = TrackedChild(tracker, value: 4)
        try lua.globals.set("child", lua.userdata(object as Tracked))
        try lua.globals.set("take", lua.function(name: "take") { call in
            try call.push(try call.object(1, as: Tracked.self).value)
        })
        #expect(try lua.evaluate("return child:add(1)", as: Int.self) == 5) // subclass uses the base's methods
        #expect(try lua.evaluate("return take(child)", as: Int.self) == 5)
        #expect(luaError { try lua.run("take(io.stdout)", name: "t.lua") }?.message == "t.lua:1: bad argument #1 to 'take' (Tracked expected, got FILE*)")
        #expect(luaError { try lua.run("take({})", name: "t.lua") }?.message == "t.lua:1: bad argument #1 to 'take' (Tracked expected, got table)")
    }

    @Test func unregisteredClassesAreRefused() throws {
        final class Stranger {}
        let error = luaError { _ = try lua.userdata(Stranger()) }
        #expect(error?.kind == .misuse)
    }

    @Test func objectsAreReleasedWhenLuaCollectsThem() throws {
        do {
            try lua.globals.set("obj", lua.userdata(Tracked(tracker)))
            try lua.run("others = {} for i = 1, 100 do others[i] = obj end")
        }
        lua.collectGarbage()
        #expect(tracker.live == 1)
        try lua.run("obj = nil; others = nil")
        lua.collectGarbage()
        #expect(tracker.live == 0)
    }

    @Test func objectsAreReleasedOnClose() throws {
        for i in 0..<50 { try lua.globals.set("o\(i)", lua.userdata(Tracked(tracker))) }
        let kept = try lua.evaluate("return o1", as: LuaUserdata.self)
        #expect(tracker.live == 50)
        lua.close()
        #expect(tracker.live == 0)
        #expect(kept.object(as: Tracked.self) == nil)
        #expect(luaError { try lua.run("return 1") }?.kind == .misuse)
    }

    @Test func manyObjectsRoundTripWithoutLeaking() throws {
        try lua.globals.set("make", lua.function(name: "make") { [tracker] call in
            let state = call.state
            try call.push(try #require(state).userdata(Tracked(tracker, value: try call.integer(1))))
        })
        let total = try lua.evaluate("local s = 0 for i = 1, 10000 do s = s + make(i):add(0) end return s", as: Int.self)
        #expect(total == 50_005_000)
        lua.collectGarbage()
        lua.collectGarbage()
        #expect(tracker.live == 0)
    }

    /// The stack helpers a bridge builds proxies with: a metatable set from Swift, its fields read raw, and
    /// the object of a registered class found in a value (and nothing found in any other value).
    @Test func proxiesBuiltOnTheStackFindTheirObject() throws {
        let object = Tracked(tracker, value: 7)
        var found: [Tracked?] = []
        try lua.globals.set("proxy", lua.function { call in
            let stack = call.stack
            try stack.reserve(4)
            try stack.pushNewTable()                       // the proxy
            try stack.pushNewTable(record: 2)              // its metatable
            try stack.pushNewTable(array: 1)               // the fields
            try stack.push("first")
            stack.setRawIndex(1, ofTableAt: -2)
            stack.setField("__index", ofNewTableAt: -2)
            try stack.push(LuaObject(object))
            stack.setField("__object", ofNewTableAt: -2)
            stack.setMetatable(ofValueAt: -2)
            stack.pushCopy(of: -1)                     // returned twice: the same table
        })
        var tagged: [Tracked?] = []
        try lua.globals.set("inspect", lua.function { [tag] call in
            let stack = call.stack
            // The same object through the class's tag, without pushing anything.
            tagged.append(try stack.object(inMetafield: "__object", ofValueAt: call.index(1), tag: tag))
            if stack.pushMetafield("__object", ofValueAt: call.index(1)) == .nil { return found.append(nil) }
            found.append(stack.object(at: -1, as: Tracked.self))
            #expect(stack.object(at: -1, tag: tag) === found.last ?? nil)
            stack.pop()
        })
        #expect(try lua.evaluate("local p, q = proxy() return p[1] .. tostring(p == q) .. tostring(rawget(p, 1))", as: String.self) == "firsttruenil")
        try lua.run("inspect(proxy()) inspect({}) inspect(setmetatable({}, { __object = 5 })) inspect(3)")
        #expect(found.count == 4)
        #expect(found[0] === object)
        #expect(found.dropFirst().allSatisfy { $0 == nil })
        #expect(tagged.count == 4 && tagged[0] === object && tagged.dropFirst().allSatisfy { $0 == nil })
    }

    /// A one-letter metafield name is a static string without a pointer: still found, not a trap.
    @Test func oneLetterMetafieldNamesWork() throws {
        let object = Tracked(tracker, value: 3)
        try lua.globals.set("o", lua.userdata(object))
        var found: Tracked?
        try lua.globals.set("inspect", lua.function { [tag] call in
            found = try call.stack.object(inMetafield: "o", ofValueAt: call.index(1), tag: tag)
        })
        try lua.run("inspect(setmetatable({}, { o = o }))")
        #expect(found === object)
        try lua.run("inspect(setmetatable({}, { p = o }))")
        #expect(found == nil)
    }

    /// A view is found again by its key while Lua holds it, and goes when the collector takes it.
    @Test func viewsAreFoundWhileLuaHoldsThem() throws {
        let keys = UnsafeMutableRawPointer.allocate(byteCount: 2, alignment: 1)
        defer { keys.deallocate() }
        let key = { (n: Int) in UnsafeRawPointer(keys + n - 1) }
        try lua.globals.set("setView", lua.function { call in
            try call.stack.setView(for: key(call.integer(1)), toValueAt: call.index(2))
        })
        try lua.globals.set("view", lua.function { call in
            if try !call.stack.pushView(for: key(call.integer(1))) { call.stack.pushNil() }
        })
        #expect(try lua.evaluate("return view(1) == nil", as: Bool.self)) // none set yet
        try lua.run("collectgarbage('stop')") // only the collections below take views
        try lua.run("held = { name = 'held' } setView(1, held) setView(2, { name = 'dropped' })")
        #expect(try lua.evaluate("return view(1) == held and view(2).name == 'dropped'", as: Bool.self))
        lua.collectGarbage()
        #expect(try lua.evaluate("return view(1) == held and view(2) == nil", as: Bool.self))
        try lua.run("held = nil")
        lua.collectGarbage()
        #expect(try lua.evaluate("return view(1) == nil", as: Bool.self))
        try lua.run("setView(1, 'a string') setView(1, nil)")
        #expect(try lua.evaluate("return view(1) == nil", as: Bool.self))
    }

    // Tables standing for objects (`standIn(field:)`, `methods(of:)`) and methods called from Swift.

    @Test func aTableHoldingTheObjectCallsItsMethodsDirectly() throws {
        let object = Tracked(tracker, value: 1)
        try lua.globals.set("obj", lua.userdata(object))
        try lua.run("""
            Wrapper = setmetatable({}, { __index = Tracked })
            wrapped = setmetatable({ __object = obj }, { __index = Wrapper })
            """)
        #expect(try lua.evaluate("return wrapped:add(2)", as: Int.self) == 3)
        #expect(try lua.evaluate("return obj:add(1)", as: Int.self) == 4) // the userdata itself still works
        #expect(object.value == 4)
        #expect(try lua.evaluate("return Tracked.add == obj.add", as: Bool.self))
    }

    @Test func aTableWithoutTheObjectIsABadSelf() throws {
        try lua.globals.set("obj", lua.userdata(Tracked(tracker)))
        let expected = "s.lua:1: bad self for 'Tracked.add' (expected Tracked, got table); call it with ':'"
        #expect(luaError { try lua.run("Tracked.add({}, 1)", name: "s.lua") }?.message == expected)
        #expect(luaError { try lua.run("Tracked.add({ __object = 5 }, 1)", name: "s.lua") }?.message == expected)
        #expect(luaError { try lua.run("Tracked.add('x', 1)", name: "s.lua") }?.message
                == "s.lua:1: bad self for 'Tracked.add' (expected Tracked, got string); call it with ':'")
    }

    @Test func classesWithoutAStandInFieldTakeOnlyTheirUserdata() throws {
        final class Plain {}
        try lua.register(Plain.self, name: "Plain") { c in c.method("ping") { _, call in try call.push("pong") } }
        try lua.globals.set("Plain", lua.methods(of: Plain.self))
        try lua.globals.set("plain", lua.userdata(Plain()))
        #expect(try lua.evaluate("return plain:ping()", as: String.self) == "pong")
        #expect(luaError { try lua.run("Plain.ping({ __object = plain })", name: "p.lua") }?.message
                == "p.lua:1: bad self for 'Plain.ping' (expected Plain, got table); call it with ':'")
        final class Unregistered {}
        #expect(luaError { _ = try lua.methods(of: Unregistered.self) }?.kind == .misuse)
    }

    @Test func callMethodCallsOnlyFunctionsWithTheTableAsSelf() throws {
        let table = try lua.evaluate("""
            local class = { add = function(self, k) self.n = self.n + k end, broken = function() error("no") end, seven = 7 }
            return setmetatable({ n = 1 }, { __index = class })
            """, name: "m.lua", as: LuaTable.self)
        #expect(try table.callMethod("add", 5) == .function)  // found through __index
        #expect(try table.get("n", as: Int.self) == 6)
        #expect(try table.callMethod("missing") == .nil)
        #expect(try table.callMethod("seven", 1) == .number)   // not called
        #expect(try table.get("n", as: Int.self) == 6)
        #expect(luaError { try table.callMethod("broken") }?.message == "m.lua:1: no")
        let depth = try lua.withUnsafeState { L in lua_gettop(L) }
        #expect(depth == 0) // every path leaves the stack as it found it
    }

    @Test func callMethodAndCallFieldFollowEveryKindOfIndex() throws {
        // Tables all the way (looked up without a protected call), a function on the way, one that fails,
        // and a chain whose last link has no __index.
        let tables = try lua.evaluate("""
            local base = { hello = function(self, who) last = 'hello ' .. who end, shout = function(x) last = 'shout ' .. x end }
            local class = setmetatable({}, { __index = base })
            return setmetatable({}, { __index = class })
            """, as: LuaTable.self)
        #expect(try tables.callMethod("hello", "tables") == .function)
        #expect(try lua.evaluate("return last", as: String.self) == "hello tables")
        let computed = try lua.evaluate("""
            return setmetatable({}, { __index = function(_, key) if key == 'hello' then return function(self, who) last = 'computed ' .. who end end end })
            """, as: LuaTable.self)
        #expect(try computed.callMethod("hello", "x") == .function)
        #expect(try lua.evaluate("return last", as: String.self) == "computed x")
        #expect(try computed.callMethod("other") == .nil)
        let failing = try lua.evaluate("return setmetatable({}, { __index = function() error('no index', 0) end })", as: LuaTable.self)
        #expect(luaError { try failing.callMethod("hello") }?.message == "no index")
        var before = 0
        #expect(try tables.callField("shout", "field") { before += 1 } == .function) // no self
        #expect(before == 1)
        #expect(try lua.evaluate("return last", as: String.self) == "shout field")
        let plain = try lua.evaluate("return setmetatable({}, {})", as: LuaTable.self)
        #expect(try plain.callField("nothing") == .nil)
        let depth = try lua.withUnsafeState { L in lua_gettop(L) }
        #expect(depth == 0)
    }
}
