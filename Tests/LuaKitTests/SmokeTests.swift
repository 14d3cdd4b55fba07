import Testing
import LuaKit

@Test func opens() throws {
    let lua = try LuaState()
    #expect(try lua.evaluate("return 1 + 1", as: Int.self) == 2)
}
