import Testing
import TestSupport
import CoordinatorLua
import CCoordinatorLua

/// The snippets of docs/CoordinatorLua.md and README.md, run as written (with their claims checked).
@Suite struct DocExampleTests {
    @Test func readmeQuickExample() throws {
        let lua = try LuaState()
        try lua.globals.set("greeting", "hello")
        try lua.globals.set("shout", lua.function(name: "shout") { (s: String) in s.uppercased() })
        let result: String = try lua.evaluate("return shout(greeting) .. '!'")
        #expect(result == "HELLO!")
    }

    @Test func aState() throws {
        let folder = try TemporaryDirectory()
        let app = try folder.write("scripts/app.lua", "return require('flows').ok")
        try folder.write("scripts/flows.lua", "return { ok = true }")
        let lua = try LuaState()
        let sandbox = try LuaState(libraries: .safe)
        try lua.run("x = 40 + 2", name: "setup.lua")
        let x: Int = try lua.evaluate("return x")
        #expect(x == 42)
        #expect(try lua.runMainScript(app) == [true])
        #expect(try sandbox.evaluate("return io", as: LuaValue.self) == .nil)
        lua.close()
    }

    @Test func callingLuaFromSwift() throws {
        let lua = try LuaState()
        let add = try lua.evaluate("return function(a, b) return a + b end", as: LuaFunction.self)
        #expect(try add.call(2, 3, as: Int.self) == 5)
        #expect(try add.callValues(2, 3) == [5])
        let handler = try lua.evaluate("return function(p, why) seen = p.k .. ':' .. why end", as: LuaFunction.self)
        try handler.call(["k": "v"], "selected")
        #expect(try lua.evaluate("return seen", as: String.self) == "v:selected")
        let f = try lua.evaluate("return function(p) return p .. '!', 42 end", as: LuaFunction.self)
        let (changed, answer) = try f.call("hi") { results in
            (results.isNil(1) ? nil : try results.read(1, as: String.self), results[2])
        }
        #expect(changed == "hi!" && answer == 42)
        // Missing results read as nil; the stack is as before afterwards.
        let none = try lua.evaluate("return function() end", as: LuaFunction.self)
        #expect(try none.call { results in (results.count, results.isNil(1), try results.read(3, as: Int?.self)) } == (0, true, nil))
        #expect(try lua.withUnsafeState { L in lua_gettop(L) } == 0)
    }

    /// A converter of one's own goes through the stack's checked calls.
    @Test func aConverterOfYourOwn() throws {
        struct City: LuaPushable, LuaReadable, Equatable {
            var name: String
            func push(to stack: borrowing LuaStack) throws { try stack.push(["name": name]) }
            static func read(from stack: borrowing LuaStack, at index: Int32) throws -> City {
                City(name: try stack.read([String: String].self, at: index)["name"] ?? "")
            }
        }
        let lua = try LuaState()
        try lua.globals.set("city", City(name: "Tver"))
        #expect(try lua.evaluate("return city.name", as: String.self) == "Tver")
        #expect(try lua.evaluate("return { name = 'Kazan' }", as: City.self) == City(name: "Kazan"))
        #expect(try lua.withUnsafeState { L in lua_gettop(L) } == 0)
    }

    @Test func values() throws {
        let lua = try LuaState()
        try lua.globals.set("regions", ["Ulyanovsk Oblast": ["Ulyanovsk", "Dimitrovgrad"]])
        let count: Int = try lua.evaluate("return #regions['Ulyanovsk Oblast']")
        let big: Int = try lua.evaluate("return (1 << 53) + 1")
        let user = try lua.evaluate("return { name = 'Ann', city = { name = 'Moscow' } }", as: LuaTable.self)
        let city: [String: String] = try user.get("city")
        #expect(count == 2)
        #expect(big == 9_007_199_254_740_993)
        #expect(city == ["name": "Moscow"])
    }

    @Test func swiftFunctions() throws {
        let lua = try LuaState()
        try lua.globals.set("double", lua.function(name: "double") { (x: Int) in x * 2 })
        try lua.globals.set("divmod", lua.function(name: "divmod") { call in
            let a = try call.integer(1), b = try call.integer(2)
            guard b != 0 else { throw call.badArgument(2, "division by zero") }
            try call.push(a / b)
            try call.push(a % b)
        })
        #expect(try lua.run("return double(4), divmod(7, 2)") == [8, 3, 1])
        let error = luaError { try lua.run("\n\n\n\n\n\ndouble('x')", name: "app.lua") }
        #expect(error?.message == "app.lua:7: bad argument #1 to 'double' (number expected, got string)")
    }

    @Test func swiftClasses() throws {
        final class Counter { var value = 0 }
        let lua = try LuaState()
        try lua.register(Counter.self, name: "Counter") { c in
            c.method("increment") { (counter: Counter, by: Int) in
                counter.value += by
                return counter.value
            }
            c.property("value", get: { $0.value }, set: { $0.value = $1 })
            c.toString { "Counter(\($0.value))" }
        }
        let counter = Counter()
        try lua.globals.set("counter", lua.userdata(counter))
        try lua.run("counter:increment(2); counter.value = counter.value * 10")
        #expect(counter.value == 20)
        #expect(try lua.evaluate("return tostring(counter)", as: String.self) == "Counter(20)")
        #expect(luaError { try lua.run("counter.increment(5)") }?.reason
            == "bad self for 'Counter.increment' (expected Counter, got number); call it with ':'")
    }

    @Test func errors() throws {
        let lua = try LuaState()
        let error = try #require(luaError { try lua.run("local user = nil\nreturn user.name", name: "profile.lua") })
        #expect(error.kind == .runtime)
        #expect(error.location == "profile.lua:2")
        #expect(error.reason == "attempt to index a nil value (local 'user')")
        #expect(error.traceback == "stack traceback:\n\tprofile.lua:2: in main chunk")
    }

    @Test func actorHost() async throws {
        actor FlowHost {
            let lua: LuaState
            init() throws { lua = try LuaState() }
            func run(_ code: String) throws -> Int { try lua.evaluate(code) }
        }
        let host = try FlowHost()
        #expect(try await host.run("return 6 * 7") == 42)
    }
}
