import Testing
import TestSupport
import CoordinatorLua

@Suite struct ValueTests {
    let lua: LuaState
    init() throws { lua = try makeState() }

    /// Pushes a value into Lua, has Lua hand it back through a global, and reads it again.
    func roundTrip<T: LuaPushable & LuaReadable>(_ value: T) throws -> T {
        try lua.globals.set("v", value)
        return try lua.evaluate("return v")
    }

    @Test func scalars() throws {
        #expect(try roundTrip(true) == true)
        #expect(try roundTrip(false) == false)
        #expect(try roundTrip(0) == 0)
        #expect(try roundTrip(-42) == -42)
        #expect(try roundTrip(1.5) == 1.5)
        #expect(try roundTrip(Optional<Int>.none) == nil)
        #expect(try roundTrip(Optional(7)) == 7)
        #expect(try lua.evaluate("return v == nil", as: Bool.self) == false)
    }

    @Test func integersBeyondDoublePrecisionStayIntegers() throws {
        for value in [Int.max, Int.min, (1 << 53) + 1, -(1 << 53) - 1, 9_007_199_254_740_993] {
            #expect(try roundTrip(value) == value)
            #expect(try lua.evaluate("return math.type(v)", as: String.self) == "integer")
        }
        #expect(try lua.evaluate("return (1 << 53) + 1", as: Int.self) == 9_007_199_254_740_993)
        let values = try lua.run("return 9007199254740993, 2.5, 3.0")
        #expect(values[0] == .integer(9_007_199_254_740_993))
        #expect(values[1] == .number(2.5))
        #expect(values[2] == .number(3.0))
        #expect(values[2].intValue == 3)
        #expect(try lua.evaluate("return 3.0", as: Int.self) == 3)
        #expect(luaError { _ = try lua.evaluate("return 3.5", as: Int.self) }?.kind == .type)
    }

    @Test func floatsKeepSpecialValues() throws {
        #expect(try roundTrip(Double.infinity) == .infinity)
        #expect(try roundTrip(-Double.infinity) == -.infinity)
        #expect(try roundTrip(Double.nan).isNaN)
        #expect(try roundTrip(-0.0).sign == .minus)
        #expect(try lua.evaluate("return math.type(v)", as: String.self) == "float")
    }

    @Test func stringsKeepEveryByte() throws {
        let text = "a\0b\0\0c"
        #expect(try roundTrip(text) == text)
        #expect(try lua.evaluate("return #v", as: Int.self) == 6)
        let bytes: [UInt8] = [0, 255, 254, 0x41, 0, 0xC3]
        let binary = try roundTrip(LuaString(bytes: bytes))
        #expect(binary.bytes == bytes)
        #expect(binary.validUTF8 == nil)
        #expect(try lua.evaluate("return #v", as: Int.self) == 6)
        #expect(try lua.evaluate("return v:byte(2)", as: Int.self) == 255)
        #expect(try roundTrip("héllo ✓") == "héllo ✓")
        #expect(try roundTrip("") == "")
        let fromLua = try lua.evaluate("return 'x\\0y\\255'", as: LuaString.self)
        #expect(fromLua.bytes == [0x78, 0, 0x79, 255])
    }

    @Test func numbersReadAsStringsLikeLua() throws {
        #expect(try lua.evaluate("return 10", as: String.self) == "10")
        #expect(try lua.evaluate("return 2.5", as: String.self) == "2.5")
        #expect(luaError { _ = try lua.evaluate("return {}", as: String.self) }?.message == "string expected, got table")
    }

    @Test func arraysAndDictionariesNest() throws {
        #expect(try roundTrip([1, 2, 3]) == [1, 2, 3])
        #expect(try roundTrip([String]()) == [])
        #expect(try roundTrip(["a": 1, "b": 2]) == ["a": 1, "b": 2])
        let nested: [String: [[Int]]] = ["rows": [[1, 2], [3]], "empty": []]
        #expect(try roundTrip(nested) == nested)
        let deep: [[String: [String: Double]]] = [["x": ["y": 1.5]], ["z": [:]]]
        #expect(try roundTrip(deep) == deep)
        #expect(try lua.evaluate("return v[1].x.y", as: Double.self) == 1.5)
        let fromLua = try lua.evaluate("return { name = 'Ulyanovsk', cities = {'Ulyanovsk', 'Dimitrovgrad'} }", as: [String: LuaValue].self)
        #expect(fromLua["name"]?.stringValue == "Ulyanovsk")
        #expect(try fromLua["cities"]?.tableValue?.decode([String].self) == ["Ulyanovsk", "Dimitrovgrad"])
        let intKeys = try lua.evaluate("return { [10] = 'ten', [20] = 'twenty' }", as: [Int: String].self)
        #expect(intKeys == [10: "ten", 20: "twenty"])
    }

    @Test func mistypedTableItemsSayWhere() throws {
        let error = luaError { _ = try lua.evaluate("return {1, 2, 'x'}", as: [Int].self) }
        #expect(error?.kind == .type)
        #expect(error?.message == "item 3: number expected, got string")
    }

    @Test func integersAreTakenAsLuasOwnFunctionsTakeThem() throws {
        // An integer, an integral float or a numeric string (as luaL_checkinteger); nothing else.
        #expect(try lua.evaluate("return {1, 2.0, '3', ' 4 '}", as: [Int].self) == [1, 2, 3, 4])
        #expect(luaError { _ = try lua.evaluate("return {2.5}", as: [Int].self) }?.message == "item 1: number has no integer representation")
        #expect(luaError { _ = try lua.evaluate("return {'2.5'}", as: [Int].self) }?.message == "item 1: number expected, got string")
        #expect(luaError { _ = try lua.evaluate("return {true}", as: [Int].self) }?.message == "item 1: number expected, got boolean")
    }

    @Test func nilKeysAreRefusedNotCrashing() throws {
        let table = try lua.newTable()
        #expect(luaError { try table.rawSet(LuaValue.nil, 1) }?.message == "table index is nil")
        #expect(luaError { try table.rawSet(Double.nan, 1) }?.message == "table index is NaN")
        #expect(luaError { try lua.globals.set("t", [Double.nan: 1]) }?.message == "table index is NaN")
        #expect(try table.pairs().isEmpty)
    }

    /// `get` and `set` skip the protected call where every step is a plain table, and still honour
    /// `__index` functions, `__newindex` and Lua's refusal of nil and NaN keys.
    @Test func getAndSetTakeThePlainWayOnlyWhereNothingCanRun() throws {
        let plain = try lua.newTable()
        try plain.set("a", 1)
        #expect(try plain.get("a", as: Int.self) == 1)
        #expect(luaError { try plain.set(LuaValue.nil, 1) }?.message == "table index is nil")
        #expect(luaError { try plain.set(Double.nan, 1) }?.message == "table index is NaN")
        try plain.set(1.5, "float key")
        #expect(try plain.get(1.5, as: String.self) == "float key")
        let guarded = try lua.evaluate("""
            log = {}
            return setmetatable({}, {
              __index = setmetatable({ b = 2 }, { __index = function(_, k) return k .. '!' end }),
              __newindex = function(t, k, v) log[#log + 1] = k; rawset(t, k, v) end })
            """, as: LuaTable.self)
        #expect(try guarded.get("b", as: Int.self) == 2)        // through a plain __index table
        #expect(try guarded.get("c", as: String.self) == "c!")  // an __index function further down
        try guarded.set("d", 4)
        #expect(try lua.evaluate("return log[1]", as: String.self) == "d")
        #expect(try guarded.get("d", as: Int.self) == 4)
    }

    @Test func luaValuesOfEveryType() throws {
        let values = try lua.run(
            "return nil, true, 1, 1.5, 's', {}, print, io.stdout, coroutine.create(function() end)")
        #expect(values.map(\.typeName) == ["nil", "boolean", "number", "number", "string", "table", "function", "userdata", "thread"])
        // References push back as the same Lua object.
        try lua.globals.set("t", values[5])
        try lua.globals.set("f", values[6])
        #expect(try lua.evaluate("return f == print", as: Bool.self))
        #expect(try lua.run("return t")[0] == values[5])
        #expect(values[5] != (try lua.newTable()).asValue)
    }

    @Test func tablesThroughReferences() throws {
        let config = try #require(try lua.run("return setmetatable({ name = 'app' }, { __index = function(_, k) return k .. '!' end })")[0].tableValue)
        #expect(try config.get("name", as: String.self) == "app")
        #expect(try config.get("other", as: String.self) == "other!")
        #expect(try config.rawGet("other", as: String?.self) == nil)
        try config.set("debug", true)
        #expect(try config.get("debug", as: Bool.self))
        let list = try #require(try lua.run("return {10, 20, 30}")[0].tableValue)
        #expect(list.count == 3)
        #expect(try list.decode([Int].self) == [10, 20, 30])
    }

    @Test func metamethodErrorsAreCaughtNotJumped() throws {
        let guarded = try #require(try lua.run("return setmetatable({}, { __index = function() error('no such key') end, __newindex = function() error('read only', 2) end })")[0].tableValue)
        #expect(luaError { _ = try guarded.get("x", as: LuaValue.self) }?.reason == "no such key")
        #expect(luaError { try guarded.set("x", 1) }?.message.hasSuffix("read only") == true)
        #expect(try lua.evaluate("return 1 + 1", as: Int.self) == 2)
    }

    @Test func badToStringDoesNotEscape() throws {
        _ = try lua.run("bad = setmetatable({}, { __tostring = function() error('nope') end })")
        let error = luaError { try lua.run("error(bad)") }
        #expect(error?.message.contains("__tostring failed") == true)
    }
}

extension LuaTable {
    var asValue: LuaValue { .table(self) }
}

/// Texts that stand for files: loadFile and require compile them instead of reading the files.
@Suite struct SourceOverrideTests {
    @Test func overridesStandForFilesInLoadFileAndRequire() throws {
        let folder = try TemporaryDirectory()
        let main = try folder.write("main.lua", "return require('mod')")
        let module = try folder.write("mod.lua", "return 'from disk'")
        let lua = try makeState()
        #expect(try lua.runMainScript(main) == ["from disk", .string(LuaString(module))])
        let fresh = try makeState()
        fresh.sourceOverrides = [main: "return require('mod') .. '!'", module: "return 'from the override'"]
        let results = try fresh.runMainScript(main)
        #expect(results.first == "from the override!")
        // Messages name the file as its own text would.
        fresh.sourceOverrides[module] = "return nil + 1"
        try fresh.run("package.loaded.mod = nil")
        let error = luaError { _ = try fresh.runMainScript(main) }
        #expect(error?.message.hasPrefix(module + ":1: attempt to perform arithmetic on a nil value") == true, "\(error?.message ?? "")")
    }
}
