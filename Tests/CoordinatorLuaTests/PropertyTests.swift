import Testing
import PropertyBased
import TestSupport
import CoordinatorLua

/// Random values cross into Lua and back unchanged, and Lua agrees about what it received.
@Suite struct PropertyTests {
    @Test func integersRoundTripExactly() async throws {
        let lua = try makeState()
        await checkProperty(count: 500, input: Gen.int()) { n in
            try lua.globals.set("v", n)
            #expect(try lua.evaluate("return v", as: Int.self) == n)
            #expect(try lua.evaluate("return math.type(v) == 'integer' and v // 1 == v", as: Bool.self))
        }
    }

    @Test func bytesRoundTripExactly() async throws {
        let lua = try makeState()
        await checkProperty(count: 300, input: Gen<UInt8>.value(in: 0...255).array(of: 0...64)) { bytes in
            try lua.globals.set("v", LuaString(bytes: bytes))
            #expect(try lua.evaluate("return #v", as: Int.self) == bytes.count)
            #expect(try lua.evaluate("return v", as: LuaString.self).bytes == bytes)
            // Lua sees the same bytes one by one.
            #expect(try lua.evaluate("return { v:byte(1, -1) }", as: [Int].self) == bytes.map(Int.init))
        }
    }

    @Test func nestedTablesRoundTrip() async throws {
        let lua = try makeState()
        let names = Gen.letterOrNumber.string(of: 0...8)
        let lists = Gen.int(in: -1000...1000).array(of: 0...6)
        await checkProperty(count: 200, input: zip(names, lists).dictionary(ofAtMost: 0...6).array(of: 0...4)) { value in
            try lua.globals.set("v", value)
            #expect(try lua.evaluate("return v", as: [[String: [Int]]].self) == value)
            let total = value.flatMap(\.values).flatMap { $0 }.reduce(0, +)
            let luaTotal = try lua.evaluate(
                "local s = 0 for _, d in ipairs(v) do for _, l in pairs(d) do for _, n in ipairs(l) do s = s + n end end end return s",
                as: Int.self)
            #expect(luaTotal == total)
        }
    }

    @Test func floatsRoundTripBitForBit() async throws {
        let lua = try makeState()
        await checkProperty(count: 300, input: Gen.double(in: -1e300...1e300)) { d in
            try lua.globals.set("v", d)
            #expect(try lua.evaluate("return v", as: Double.self).bitPattern == d.bitPattern)
        }
    }
}
