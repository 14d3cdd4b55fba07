import Testing
import TestSupport
import CoordinatorLua
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

@Suite struct IntrospectionTests {
    let lua: LuaState
    init() throws { lua = try makeState() }

    @Test func functionsReportWhereTheyWereDefinedAndTheirUpvalues() throws {
        let code = """
            local count = 0
            local label = "n"
            return function()
              count = count + 1
              return label .. count
            end, print
            """
        let results = try lua.run(code, name: "=counter")
        let f = try #require(results[0].functionValue)
        let info = try #require(f.info)
        #expect(info.source == "=counter")
        #expect(info.lineDefined == 3 && info.lastLineDefined == 6)
        #expect(info.isLua && info.upvalueCount == 2)
        #expect(info.path == nil)
        #expect(try f.upvalues().map(\.name) == ["count", "label"])
        #expect(results[1].functionValue?.info?.isLua == false)
    }

    @Test func joinedUpvaluesShareOneVariable() throws {
        let make = try lua.evaluate("""
            return function(start)
              local n = start
              return function() n = n + 1; return n end
            end
            """, as: LuaFunction.self)
        let a = try make.call(10, as: LuaFunction.self)
        let b = try make.call(100, as: LuaFunction.self)
        #expect(try a.upvalues()[0].id != b.upvalues()[0].id)
        try b.joinUpvalue(1, to: a, upvalue: 1)
        #expect(try a.upvalues()[0].id == b.upvalues()[0].id)
        #expect(try a.call(as: Int.self) == 11)
        #expect(try b.call(as: Int.self) == 12)
        #expect(try a.call(as: Int.self) == 13)
        #expect(luaError { try a.joinUpvalue(5, to: b, upvalue: 1) }?.kind == .misuse)
        let print = try lua.globals.get("print", as: LuaFunction.self)
        #expect(luaError { try a.joinUpvalue(1, to: print, upvalue: 1) }?.kind == .misuse)
    }

    @Test func incompleteInputIsToldApartFromWrongInput() throws {
        for open in ["function f()", "x = {", "s = 'abc", "s = [[abc", "if x then"] {
            #expect(luaError { _ = try lua.load(open) }?.isIncompleteInput == true, "\(open)")
        }
        for wrong in ["x = = 1", "end", "return return"] {
            #expect(luaError { _ = try lua.load(wrong) }?.isIncompleteInput == false, "\(wrong)")
        }
    }

    /// A time limit is the state's own: one state's short limit stops its endless loop while a state on another
    /// thread, with a long limit, finishes its work undisturbed.
    @Test func timeLimitsAreEachStatesOwn() throws {
        let started = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let otherOutcome = Mutex("")
        let other = Thread {
            do {
                let b = try LuaState()
                let sum = try b.withTimeLimit(600) {
                    try b.evaluate("local n = 0 for i = 1, 3000000 do n = n + 1 end return n", as: Int.self)
                }
                otherOutcome.withLock { $0 = "\(sum)" }
            } catch {
                otherOutcome.withLock { $0 = "\(error)" }
            }
            done.signal()
        }
        lua.instructionBudget = 2_000_000_000 // a safety net
        try lua.globals.set("startOther", lua.function(name: "startOther") { _ in other.start(); started.signal() })
        let error = luaError {
            _ = try lua.withTimeLimit(0.05) { try lua.run("startOther() while true do end", name: "=loop") }
        }
        started.wait()
        done.wait()
        #expect(error?.kind == .interrupted)
        #expect(error?.message == "loop:1: timed out")
        #expect(otherOutcome.withLock { $0 } == "3000000")
        // The limit ended with its scope: the same state runs again without one.
        #expect(try lua.evaluate("local n = 0 for i = 1, 100000 do n = n + 1 end return n", as: Int.self) == 100000)
    }
}
