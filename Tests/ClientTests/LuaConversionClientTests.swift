import Testing
import CoordinatorLua

/// A client of CoordinatorLua, built without the package's own access: its types convert through values,
/// with the stack's public, checked surface.
struct City: LuaPushable, LuaReadable, Equatable {
    var name: String
    var population: Int

    func push(to stack: borrowing LuaStack) throws {
        try stack.push(["name": LuaValue.string(LuaString(name)), "population": .integer(population)])
    }

    static func read(from stack: borrowing LuaStack, at index: Int32) throws -> City {
        let fields = try stack.read([String: LuaValue].self, at: index)
        guard let name = fields["name"]?.stringValue, let population = fields["population"]?.intValue else {
            throw LuaError(.type, "a city has a name and a population")
        }
        return City(name: name, population: population)
    }
}

@Suite struct LuaConversionClientTests {
    @Test func aClientTypeRoundTripsThroughLua() throws {
        let lua = try LuaState()
        let moscow = City(name: "Moscow", population: 13_000_000)
        try lua.globals.set("city", moscow)
        #expect(try lua.evaluate("return city.name .. ' ' .. city.population", as: String.self) == "Moscow 13000000")
        #expect(try lua.evaluate("return { name = 'Tver', population = 400000 }", as: City.self) == City(name: "Tver", population: 400_000))
        #expect(throws: LuaError.self) { try lua.evaluate("return { name = 'Nowhere' }", as: City.self) }
    }

    @Test func aClientReadsOnlyIndicesTheStackHolds() throws {
        let lua = try LuaState()
        try lua.globals.set("probe", lua.function(name: "probe") { call in
            try call.push(call.count)
        })
        #expect(try lua.evaluate("return probe(1, 2, 3)", as: Int.self) == 3)
    }
}
