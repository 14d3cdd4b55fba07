import Testing
import TestSupport
import LuaKit
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

    @Test func ctrlCStopsRunningLuaCodeAndIsCountedOtherwise() throws {
        InterruptSignal.install()
        defer { InterruptSignal.uninstall() }
        _ = InterruptSignal.takePending()
        // Test threads block signals; unblock SIGINT here so that raise() runs the handler on this thread
        // before it returns, as Ctrl-C does on a command-line tool's main thread.
        var set = sigset_t(), saved = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        // The Swift function delivers SIGINT to this process while the Lua loop runs.
        try lua.globals.set("pressCtrlC", lua.function(name: "pressCtrlC") { _ in _ = raise(SIGINT) })
        let error = luaError {
            _ = try lua.interruptible { try lua.run("pressCtrlC() while true do end", name: "=loop") }
        }
        #expect(error?.kind == .interrupted)
        #expect(error?.message == "loop:1: interrupted")
        #expect(InterruptSignal.takePending())
        // Outside `interruptible` the signal only counts, and the next call runs normally.
        _ = raise(SIGINT)
        #expect(InterruptSignal.takePending())
        #expect(!InterruptSignal.takePending())
        #expect(try lua.evaluate("return 1 + 1", as: Int.self) == 2)
    }
}
