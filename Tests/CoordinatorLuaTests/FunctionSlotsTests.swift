import Testing
import TestSupport
import CoordinatorLua

@Suite struct FunctionSlotsTests {
    let lua: LuaState
    init() throws {
        lua = try makeState()
        try lua.run("seen = {} function note(tag) return function(x) seen[#seen + 1] = tag .. ':' .. tostring(x) end end")
    }

    func function(_ tag: String) throws -> LuaFunction { try lua.evaluate("return note('\(tag)')", as: LuaFunction.self) }
    var seen: String { get throws { try lua.evaluate("return table.concat(seen, ' ')", as: String.self) } }

    @Test func slotsHoldFunctionsAndCallThemByNumber() throws {
        let slots = LuaFunctionSlots(lua, capacity: 2)
        #expect(try slots.call(1, argument: 0) == false)   // empty: nothing is called
        try slots.set(1, to: function("a"))
        try slots.set(-3, to: function("b"))               // any integer is a slot
        #expect(slots.count == 2 && slots.contains(1) && slots.contains(-3) && !slots.contains(2))
        #expect(try slots.call(1, argument: 7))
        #expect(try slots.call(-3, argument: Int?.none))   // an optional's nil is the argument
        try slots.set(1, to: nil)
        #expect(try slots.call(1, argument: 8) == false)
        #expect(slots.count == 1)
        #expect(try seen == "a:7 b:nil")
    }

    @Test func setTakesOnlyFunctionsOrNilFromTheStack() throws {
        let slots = LuaFunctionSlots(lua)
        try lua.globals.set("put", lua.function(name: "put") { call in
            try slots.set(call.integer(1), toValueAt: call.index(2), in: call.stack)
        })
        try lua.run("put(1, note('x'))")
        #expect(luaError { try lua.run("put(2, 'text')", name: "s.lua") }?.message.contains("function or nil") == true)
        #expect(slots.count == 1)
        try lua.run("put(1, nil)")
        #expect(slots.count == 0)
    }

    @Test func savedAndRemoveAllSavedPutTheFunctionsBack() throws {
        let slots = LuaFunctionSlots(lua)
        let restoreEmpty = try slots.saved()
        try slots.set(1, to: function("a"))
        restoreEmpty()
        #expect(slots.count == 0 && !slots.contains(1))

        try slots.set(1, to: function("a"))
        try slots.set(2, to: function("b"))
        let restore = try slots.saved()
        try slots.set(1, to: function("c"))
        try slots.set(2, to: nil)
        try slots.set(3, to: function("d"))
        restore()
        #expect(slots.count == 2 && !slots.contains(3))
        try slots.call(1, argument: 1)
        try slots.call(2, argument: 2)

        let undo = slots.removeAllSaved()
        #expect(slots.count == 0 && !slots.contains(1))
        try slots.set(5, to: function("e"))   // a new table; undo drops it
        undo()
        #expect(slots.count == 2 && !slots.contains(5))
        try slots.call(1, argument: 3)
        #expect(try seen == "a:1 b:2 a:3")
    }

    @Test func errorsComeBackAsLuaErrors() throws {
        let slots = LuaFunctionSlots(lua)
        try slots.set(1, to: lua.evaluate("return function(x) error('bad ' .. x) end", name: "f.lua", as: LuaFunction.self))
        #expect(luaError { try slots.call(1, argument: 2) }?.message == "f.lua:1: bad 2")
        #expect(luaError { try slots.call(1, argument: 4) }?.message == "f.lua:1: bad 4") // still there
        #expect(try lua.evaluate("return select('#', 1, 2)", as: Int.self) == 2)          // the stack is usable
    }

    @Test func functionsAreReleasedWithTheSlots() throws {
        let tracker = Tracker()
        try lua.register(Tracked.self, name: "Tracked")
        try lua.globals.set("held", lua.userdata(Tracked(tracker)))
        var slots: LuaFunctionSlots? = LuaFunctionSlots(lua)
        try slots?.set(1, to: lua.evaluate("local h = held return function() return h end", as: LuaFunction.self))
        try lua.run("held = nil")
        lua.collectGarbage()
        #expect(tracker.live == 1)
        #expect(lua.liveFunctionSlots.count == 1)
        slots = nil
        #expect(lua.liveFunctionSlots.isEmpty)
        lua.collectGarbage()
        lua.collectGarbage()
        #expect(tracker.live == 0)
    }

    @Test func functionsListsWhatIsHeldAndTakesNewCode() throws {
        let slots = LuaFunctionSlots(lua)
        try slots.set(1, to: function("a"))
        try slots.set(4, to: function("b"))
        #expect(try slots.functions.map(\.slot).sorted() == [1, 4])
        for (slot, _) in try slots.functions { try slots.set(slot, to: function("new\(slot)")) }
        try slots.call(4, argument: 0)
        #expect(try seen == "new4:0")
    }
}

@Suite struct StringReadTests {
    @Test func shortStringsReadBackTheSameWhateverTheirNumberOrOrder() throws {
        let lua = try makeState()
        // More distinct short strings than the cache holds, read twice in different orders, plus long ones.
        try lua.run("""
            words = {}
            for i = 1, 600 do words[i] = 'w' .. i .. string.rep('x', i % 45) end
            """)
        let words = try lua.globals.get("words", as: [String].self)
        #expect(words.count == 600)
        for (i, word) in words.enumerated() { #expect(word == "w\(i + 1)" + String(repeating: "x", count: (i + 1) % 45)) }
        let again = try lua.evaluate("local r = {} for i = 600, 1, -1 do r[#r + 1] = words[i] end return r", as: [String].self)
        #expect(again == words.reversed())
        // Strings made again after the originals were collected read as their new content.
        try lua.run("words = nil collectgarbage() words2 = {} for i = 1, 600 do words2[i] = 'v' .. i end")
        lua.collectGarbage()
        let fresh = try lua.globals.get("words2", as: [String].self)
        #expect(fresh == (1...600).map { "v\($0)" })
    }
}
