import Testing
import TestSupport
import LuaKit
import CLua

/// Tables standing for objects (`standIn(field:)`, `methods(of:)`) and methods called from Swift (`callMethod`).
@Suite struct StandInTests {
    let lua: LuaState
    let tracker = Tracker()

    init() throws {
        lua = try makeState()
        try lua.register(Tracked.self, name: "Tracked") { c in
            c.method("add") { (object: Tracked, n: Int) in
                object.value += n
                return object.value
            }
            c.standIn(field: "__object")
        }
        try lua.globals.set("Tracked", lua.methods(of: Tracked.self))
    }

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
}
