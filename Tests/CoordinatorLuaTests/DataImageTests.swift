import Testing
import TestSupport
import CoordinatorLua

/// `LuaDataImage`: plain data compared with Lua values in one walk.
@Suite struct DataImageTests {
    let lua: LuaState

    init() throws {
        lua = try makeState()
    }

    /// Whether `code`'s value matches the image (through a Swift function, which sees the value on its stack).
    func matches(_ image: LuaDataImage, _ code: String, levels: Int = 64) throws -> Bool {
        var result = false
        try lua.globals.set("check", lua.function { call in result = call.stack.matches(image, at: 1, levels: levels) })
        try lua.run("check(\(code))")
        return result
    }

    /// { name = "Kazan", n = 3, tags = { "city", 1.5, true } }
    var city: LuaDataImage {
        var image = LuaDataImage()
        image.record(count: 3) { fields in
            fields.field("n") { $0.integer(3) }
            fields.field("name") { $0.string("Kazan") }
            fields.field("tags") { tags in
                tags.list(count: 3) { items in
                    items.item { $0.string("city") }
                    items.item { $0.number(1.5) }
                    items.item { $0.bool(true) }
                }
            }
        }
        return image
    }

    @Test func exactlyTheSameDataMatches() throws {
        #expect(try matches(city, "{ name = 'Kazan', n = 3, tags = { 'city', 1.5, true } }"))
        #expect(try matches(city, "{ tags = { 'city', 1.5, true }, n = 3, name = 'Kazan' }"))        // any field order
        #expect(try matches(city, "setmetatable({ name = 'Kazan', n = 3, tags = { 'city', 1.5, true } }, { __index = { x = 1 } })"))
    }

    @Test func anyDifferenceFailsToMatch() throws {
        let different = [
            "{ name = 'Kazan', n = 3, tags = { 'city', 1.5, true }, extra = 1 }",   // a field more
            "{ name = 'Kazan', tags = { 'city', 1.5, true } }",                     // a field less
            "{ name = 'Kazan', nn = 3, tags = { 'city', 1.5, true } }",             // another name
            "{ name = 'Kazan', n = 3.0, tags = { 'city', 1.5, true } }",            // float, not integer
            "{ name = 'Kazan', n = '3', tags = { 'city', 1.5, true } }",            // string, not integer
            "{ name = 'Kazam', n = 3, tags = { 'city', 1.5, true } }",              // other bytes
            "{ name = 'Kazan\\0', n = 3, tags = { 'city', 1.5, true } }",           // a byte more
            "{ name = 'Kazan', n = 3, tags = { 'city', 1.5 } }",                    // a shorter list
            "{ name = 'Kazan', n = 3, tags = { 'city', 1.5, true, 4 } }",           // a longer list
            "{ name = 'Kazan', n = 3, tags = { 'city', 1.5, false } }",
            "{ name = 'Kazan', n = 3, tags = { 1.5, 'city', true } }",              // another order
            "{ name = 'Kazan', n = 3, tags = { 'city', 1.5, true, x = 1 } }",       // a list with a key
            "{ name = 'Kazan', n = 3, tags = { [1] = 'city', [2] = 1.5, [4] = true } }",
            "{ name = 'Kazan', n = 3, [1] = 'x', tags = { 'city', 1.5, true } }",   // a number key
            "'Kazan'", "nil", "{}",
        ]
        for code in different { #expect(try !matches(city, code), "\(code)") }
    }

    @Test func nestingIsLimited() throws {
        #expect(try matches(city, "{ name = 'Kazan', n = 3, tags = { 'city', 1.5, true } }", levels: 2))
        #expect(try !matches(city, "{ name = 'Kazan', n = 3, tags = { 'city', 1.5, true } }", levels: 1))
        var scalar = LuaDataImage()
        scalar.string("x")
        #expect(try matches(scalar, "'x'", levels: 1))
        #expect(try !matches(LuaDataImage(), "nil")) // an empty image is no value
    }
}
