import Testing
import TestSupport
import CoordinatorLua

@Suite struct ErrorTests {
    let lua: LuaState
    init() throws { lua = try makeState() }

    @Test func syntaxErrorsNameChunkAndLine() throws {
        let error = try #require(luaError { _ = try lua.load("local a = 1\nlocal b = = 2\n", name: "app.lua") })
        #expect(error.kind == .syntax)
        #expect(error.chunk == "app.lua")
        #expect(error.line == 2)
        #expect(error.message.hasPrefix("app.lua:2: unexpected symbol near '='"))
        #expect(error.reason == "unexpected symbol near '='")
    }

    @Test func runtimeErrorsNameChunkAndLineAndCarryATraceback() throws {
        let code = """
            local function inner() local t = nil; return t.field end
            local function outer() local v = inner(); return v end
            local result = outer(); return result
            """
        let error = try #require(luaError { try lua.run(code, name: "app.lua") })
        #expect(error.kind == .runtime)
        #expect(error.location == "app.lua:1")
        #expect(error.reason == "attempt to index a nil value (local 't')")
        let traceback = try #require(error.traceback)
        #expect(traceback.hasPrefix("stack traceback:"))
        #expect(traceback.contains("app.lua:1: in "))
        #expect(traceback.contains("app.lua:2: in "))
        #expect(traceback.contains("app.lua:3: in main chunk"))
        #expect(error.fullDescription == "\(error.message)\n\(traceback)")
    }

    @Test func errorsInFilesNameTheFile() throws {
        let folder = try TemporaryDirectory()
        let path = try folder.write("app.lua", "local x = 1\n\nerror('broken flow')\n")
        let error = try #require(luaError { try lua.runFile(path) })
        #expect(error.chunk == path)
        #expect(error.line == 3)
        #expect(error.reason == "broken flow")
        let missing = try #require(luaError { try lua.runFile("/nonexistent/app.lua") })
        #expect(missing.kind == .file)
        #expect(missing.message.contains("cannot open /nonexistent/app.lua"))
    }

    @Test func nonStringErrorObjects() throws {
        let withToString = luaError {
            try lua.run("error(setmetatable({}, { __tostring = function() return 'custom failure' end }))", name: "x.lua")
        }
        #expect(withToString?.message == "custom failure")
        #expect(withToString?.location == "x.lua:1") // from the traceback's first Lua frame
        let plainTable = luaError { try lua.run("error({ code = 42 })") }
        #expect(plainTable?.message == "(error object is a table value)")
        #expect(luaError { try lua.run("error(42)") }?.message == "42")
        #expect(luaError { try lua.run("error()") }?.message == "(error object is a nil value)")
        #expect(luaError { try lua.run("error(true)") }?.message == "(error object is a boolean value)")
    }

    @Test func errorLevelsPointAtTheCaller() throws {
        let code = """
            local function check(x) if not x then error('x required', 2) end end
            check(nil)
            """
        #expect(luaError { try lua.run(code, name: "flow.lua") }?.location == "flow.lua:2")
    }

    @Test func swiftErrorsInCallbacksAreCatchableByLua() throws {
        try lua.globals.set("explode", lua.function(name: "explode") { call in throw Boom(code: try call.integer(1)) })
        let code = """
            local ok, err = pcall(function() explode(7) end)
            local ok2, err2 = pcall(explode, 8)
            return ok, err, err2
            """
        let results = try lua.run(code, name: "app.lua")
        #expect(results[0] == false)
        #expect(results[1].stringValue == "app.lua:1: boom 7")
        #expect(results[2].stringValue == "boom 8") // called by pcall itself: no Lua line, as in Lua
        // ... and the state goes on.
        #expect(try lua.evaluate("return 2 * 21", as: Int.self) == 42)
    }

    @Test func swiftErrorsInCallbacksReachSwiftWithTheirCause() throws {
        try lua.globals.set("explode", lua.function(name: "explode") { call in throw Boom(code: try call.integer(1)) })
        let error = try #require(luaError { try lua.run("local a = 1\nexplode(9)", name: "app.lua") })
        #expect(error.message == "app.lua:2: boom 9")
        #expect(error.location == "app.lua:2")
        #expect(error.underlying as? Boom == Boom(code: 9))
        #expect(error.traceback?.contains("in function 'explode'") == true)
    }

    @Test func causeSurvivesNestedCallbacks() throws {
        try lua.globals.set("explode", lua.function(name: "explode") { _ in throw Boom(code: 1) })
        try lua.globals.set("relay", lua.function(name: "relay") { call in
            try call.argument(1, as: LuaFunction.self).callValues()
        })
        let error = luaError { try lua.run("relay(function() explode() end)", name: "n.lua") }
        #expect(error?.underlying as? Boom == Boom(code: 1))
        #expect(error?.message == "n.lua:1: boom 1")
    }

    @Test func nestedErrorsKeepTheTracebackWhereTheyHappened() throws {
        try lua.globals.set("relay", lua.function(name: "relay") { call in
            try call.argument(1, as: LuaFunction.self).callValues()
        })
        let code = """
            local function inner() error('deep') end
            local function outer() relay(inner) end
            outer()
            """
        let error = try #require(luaError { try lua.run(code, name: "n.lua") })
        let traceback = try #require(error.traceback)
        #expect(error.message == "n.lua:1: deep")
        #expect(traceback.hasPrefix("stack traceback:"))
        let inner = try #require(traceback.range(of: "n.lua:1: in "))
        let relay = try #require(traceback.range(of: "in function 'relay'"))
        let caller = try #require(traceback.range(of: "n.lua:2: in "))
        #expect(inner.lowerBound < relay.lowerBound && relay.lowerBound < caller.lowerBound)
    }

    @Test func libraryChunksAreSkippedWhenLocatingErrors() throws {
        try lua.globals.set("check", lua.function(name: "check") { (x: Int) in x })
        let library = try lua.load("return function(x) local r = check(x) return r end", name: "[lib]").call(as: LuaFunction.self)
        try lua.globals.set("wrapped", library)
        let error = luaError { try lua.run("local a = 1\nwrapped('x')", name: "user.lua") }
        #expect(error?.message == "user.lua:2: bad argument #1 to 'check' (number expected, got string)")
        #expect(error?.traceback?.contains("[lib]:1: in ") == true)
    }

    @Test func badArgumentsReadLikeLua() throws {
        try lua.globals.set("greet", lua.function(name: "greet") { (name: String) in "hi " + name })
        let error = luaError { try lua.run("greet({})", name: "app.lua") }
        #expect(error?.message == "app.lua:1: bad argument #1 to 'greet' (string expected, got table)")
        let missing = luaError { try lua.run("greet()", name: "app.lua") }
        #expect(missing?.message == "app.lua:1: bad argument #1 to 'greet' (string expected, got no value)")
    }

    @Test func tenThousandErrorsThroughSwiftLeaveNoSwiftObjectAlive() throws {
        let tracker = Tracker()
        try lua.globals.set("fail", lua.function(name: "fail") { call in
            let held = Tracked(tracker, value: try call.integer(1)) // alive across the throw
            throw Boom(code: held.value)
        })
        let caught = try lua.evaluate(
            """
            local caught = 0
            for i = 1, 10000 do
              local ok, err = pcall(fail, i)
              if not ok and err:find('boom ' .. i, 1, true) then caught = caught + 1 end
            end
            return caught
            """, as: Int.self)
        #expect(caught == 10_000)
        for i in 0..<100 { #expect(luaError { try lua.run("fail(\(i))") }?.underlying as? Boom == Boom(code: i)) }
        #expect(tracker.live == 0)
    }

    @Test func stateIsUsableAfterEveryKindOfError() throws {
        _ = luaError { _ = try lua.load("x = = 1") }
        _ = luaError { try lua.run("error('x')") }
        _ = luaError { try lua.run("local t = {} ; t = t.a.b") }
        try lua.run("y = 5")
        #expect(try lua.evaluate("return y", as: Int.self) == 5)
    }
}

/// An error object that is not a string reaches Swift as a value beside its message.
@Suite struct ErrorValueTests {
    @Test func aTableErrorKeepsItsFields() throws {
        let lua = try makeState()
        let error = luaError { try lua.run("error({ code = 42, reason = 'no cities', nested = { ok = false }, list = { 1, 2.5 } })", name: "=flows") }
        #expect(error?.message == "(error object is a table value)")
        #expect(error?.value?["code"] == .integer(42))
        #expect(error?.value?["reason"] == .string("no cities"))
        #expect(error?.value?["nested"]?["ok"] == .boolean(false))
        if case .table(let items)? = error?.value?["list"] {
            #expect(items.map(\.value) == [.integer(1), .number(2.5)])
        } else {
            Issue.record("list is not a table")
        }
        // Through a Swift callback and back into Lua and out again, the object stays the same.
        let inner = try lua.load("error({ code = 7 })", name: "=inner")
        try lua.globals.set("again", lua.function(name: "again") { (call: borrowing LuaCall) throws -> Void in
            _ = try inner.callValues()
        })
        #expect(luaError { try lua.run("again()") }?.value?["code"] == .integer(7))
    }

    @Test func otherObjectsAndStringsAndCycles() throws {
        let lua = try makeState()
        #expect(luaError { try lua.run("error('plain')") }?.value == nil)
        #expect(luaError { try lua.run("error(12)") }?.value == .integer(12))
        #expect(luaError { try lua.run("error(print)") }?.value == .other("function"))
        let tostring = luaError { try lua.run("error(setmetatable({ code = 3 }, { __tostring = function() return 'custom' end }))") }
        #expect(tostring?.message == "custom" && tostring?.value?["code"] == .integer(3))
        // A cycle ends at the copy's depth, never loops.
        let cycle = luaError { try lua.run("local t = { n = 1 } t.self = t error(t)") }
        var depth = 0
        var current = cycle?.value
        while let next = current?["self"] { depth += 1; current = next }
        #expect(depth == LuaErrorValue.maximumDepth - 1 || depth == LuaErrorValue.maximumDepth)
        #expect(current == .other("table") || current?["n"] == .integer(1))
    }
}

/// Errors in parts: a refused argument's position, function, expected and got types, and a failed
/// conversion's types, the same whether Lua's library, a Swift function or a Swift read refused the value.
@Suite struct ErrorDetailTests {
    let lua: LuaState
    init() throws { lua = try makeState() }

    @Test func luasOwnLibraryRefusingAnArgumentGivesItsParts() throws {
        let error = try #require(luaError { try lua.run("table.insert(nil, 1)", name: "=app") })
        #expect(error.detail == .badArgument(.init(position: 1, function: "insert", expected: "table", got: "nil",
                                                   reason: "table expected, got nil")))
        let absent = try #require(luaError { try lua.run("string.rep()", name: "=app") })
        guard case .badArgument(let argument)? = absent.detail else { Issue.record("\(absent)"); return }
        #expect(argument.function == "rep" && argument.expected == "string" && argument.got == "no value")
    }

    @Test func aSwiftFunctionRefusingAnArgumentGivesItsParts() throws {
        try lua.globals.set("greet", lua.function(name: "greet") { call in try call.push("hi " + call.string(2)) })
        let error = try #require(luaError { try lua.run("greet('a', {})", name: "=app") })
        #expect(error.message == "app:1: bad argument #2 to 'greet' (string expected, got table)")
        guard case .badArgument(let argument)? = error.detail else { Issue.record("\(error)"); return }
        #expect(argument.position == 2 && argument.function == "greet")
        #expect(argument.expected == "string" && argument.got == "table")
        // A refusal that is not a type mismatch still has its position and reason.
        try lua.globals.set("half", lua.function(name: "half") { call in
            let n = try call.integer(1)
            guard n % 2 == 0 else { throw call.badArgument(1, "odd number") }
            try call.push(n / 2)
        })
        let odd = try #require(luaError { try lua.run("half(3)", name: "=app") })
        #expect(odd.detail == .badArgument(.init(position: 1, function: "half", expected: nil, got: nil, reason: "odd number")))
        let float = try #require(luaError { try lua.run("half(1.5)", name: "=app") })
        guard case .badArgument(let fraction)? = float.detail else { Issue.record("\(float)"); return }
        #expect(fraction.expected == "integer" && fraction.got == "number")
    }

    @Test func aConversionSwiftAskedForGivesTheTypes() throws {
        try lua.run("name = {} ratio = 0.5")
        let table = try #require(luaError { _ = try lua.globals.get("name", as: String.self) })
        #expect(table.kind == .type)
        #expect(table.detail == .conversion(expected: "string", got: "table"))
        let ratio = try #require(luaError { _ = try lua.globals.get("ratio", as: Int.self) })
        #expect(ratio.detail == .conversion(expected: "integer", got: "number"))
        // Errors that are neither have no detail: their kind, value and underlying error say the rest.
        #expect(luaError { try lua.run("error('boom')") }?.detail == nil)
        #expect(luaError { try lua.run("error({ code = 1 })") }?.detail == nil)
    }
}
