import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorTools
import CoordinatorLua

/// The crashes, hangs and silent failures found by attacking the runtime, each a regression test.
@Suite struct AttackRegressionTests {
    /// A runtime over a script written to a temporary folder, with the driver functions.
    func runtime(_ script: String, state: AppState = .authorization) throws -> (ScriptRuntime, TemporaryDirectory) {
        let folder = try TemporaryDirectory()
        let path = try folder.write("app.lua", script)
        let runtime = try ScriptRuntime(state: state, driverFunctions: true)
        try runtime.load(script: path)
        try runtime.start()
        return (runtime, folder)
    }

    static let tabs = """
        local flow = require "coordinator"
        flow.screen "A" {}
        local Tab = flow.coordinator "Tab"
        function Tab:start() self:push("A") end
        local Tabs = flow.coordinator "Tabs"
        function Tabs:start() tabs = self; self:setTabs { { "One", Tab }, { "Two", Tab } } end
        flow.app(Tabs)
        """

    /// Extreme integers are errors, never an arithmetic overflow trap.
    @Test func extremeTabNumbersAreErrors() throws {
        let (runtime, _) = try runtime(Self.tabs)
        for code in ["tab(math.mininteger)", "tab(math.maxinteger)", "tab(0)", "tabs:selectTab(math.mininteger)",
                     "tabs:selectTab(math.maxinteger)", "tabs:selectTab(-1)"] {
            let error = luaError { try runtime.run(code) }
            #expect(error?.message.contains("tab") == true, "\(code): \(error?.message ?? "no error")")
        }
        try runtime.run("tab(2)")
        #expect(runtime.app.window.visibleStack.count == 1)
        let repl = try REPL(runtime: runtime, mode: .run) { _ in }
        for line in [":-9223372036854775808", ":9223372036854775807", "-9223372036854775808", ":0"] {
            #expect(!repl.handle(line), "\(line)")
        }
    }

    static let chain = """
        local flow = require "coordinator"
        flow.screen "S" { inputs = { "n" } }
        local Chain = flow.coordinator "Chain"
        function Chain:start(n) self:push("S", { n = n }) end
        local Root = flow.coordinator "Root"
        function Root:start()
          root = self
          self:push("S", { n = 0 })
        end
        flow.app(Root)
        """

    /// popToRoot through thousands of nested flows finishes them all, deepest first, in linear time (it
    /// was quadratic: 1,000 levels took 17 s, 8,000 more than 290 s).
    @Test func popToRootThroughEightThousandNestedFlows() throws {
        let (runtime, _) = try runtime(Self.chain)
        try runtime.run("local c = root for i = 1, 8000 do c = c:run(require('coordinator').coordinator('Chain'), i) end")
        #expect(runtime.app.window.visibleStack.count == 8001)
        var finished: [String] = []
        runtime.app.observe { event in if case .finished(let c, _, _) = event { finished.append(c.name + "\(c.id)") } }
        try runtime.run("root:popToRoot()")
        #expect(runtime.app.window.visibleStack.count == 1)
        #expect(runtime.app.root?.children.isEmpty == true)
        #expect(finished.count == 8000)
        let ids = finished.compactMap { Int($0.dropFirst("Chain".count)) }
        #expect(ids == ids.sorted(by: >)) // deepest (newest) first
    }

    /// `:tree` over 4,000 levels is linear (it took 53 s): deeper levels say their depth instead of indenting.
    @Test func treeCommandOverFourThousandLevels() throws {
        let (runtime, _) = try runtime(Self.chain)
        try runtime.run("local c = root for i = 1, 4000 do c = c:run(require('coordinator').coordinator('Chain'), i) end")
        var text = ""
        let repl = try REPL(runtime: runtime) { text += $0 }
        #expect(repl.handle(":tree"))
        let lines = text.split(separator: "\n")
        #expect(lines.count == 4001)
        #expect(lines.last?.contains("[depth 4000] Chain#") == true)
    }
}

@Suite struct CompletionLimitTests {
    /// Completion runs `__index` metamethods under an instruction budget: one that loops costs a moment.
    @Test func aLoopingIndexDoesNotHangCompletion() throws {
        let runtime = try appRuntime()
        let repl = try REPL(runtime: runtime) { _ in }
        try runtime.run("evil = setmetatable({}, { __index = function() while true do end end })")
        #expect(repl.completions(for: "evil.x.y", lineBefore: "").isEmpty)
        #expect(runtime.lua.instructionBudget == nil) // put back
        #expect(repl.completions(for: "ta", lineBefore: "").contains("tap"))
    }
}

@Suite struct BinaryChunkTests {
    /// A crafted binary chunk crashes Lua's VM: where the debug library is not open (a sandbox, `.safe`, any
    /// set without it), scripts can never load one, however they ask.
    @Test func scriptsWithoutTheDebugLibraryCannotLoadBinaryChunks() throws {
        let folder = try TemporaryDirectory()
        let lua = try LuaState()
        let dumped = try lua.evaluate("return string.dump(function() return 42 end)", as: LuaString.self)
        _ = try folder.write("m.lua", "return 'text'")
        try folder.write("mb.lua", bytes: Array(dumped.bytes))
        let runtime = try ScriptRuntime(libraries: LuaLibraries.all.subtracting(.debug))
        try runtime.lua.globals.set("dir", folder.path)
        let refused = "attempt to load a binary chunk (mode is '"
        for code in [
            "return load(string.dump(function() end))",
            "return load(string.dump(function() end), 'x', 'b')",
            "return load(string.dump(function() end), 'x', 'bt', {})",
            "return loadfile(dir .. '/mb.lua', 'b')",
            "return pcall(dofile, dir .. '/mb.lua')",
            "package.path = dir .. '/?.lua;' .. package.path return pcall(require, 'mb')",
            "string.gsub = function() return 'b' end return load(string.dump(function() end), 'x', 'b')",
            "return pcall(load, string.dump(function() end), 'x', setmetatable({}, { __index = function() return 'b' end }))",
        ] {
            let results = try runtime.run(code)
            let text = results.compactMap(\.stringValue).joined(separator: " ")
            #expect(text.contains(refused) || text.contains("bad argument"), "\(code): \(results)")
        }
        #expect(try runtime.run("package.path = dir .. '/?.lua;' .. package.path return require 'm'").first == "text")
        #expect(throws: LuaError.self) { try runtime.lua.runFile(folder.path + "/mb.lua") }
        // The same for the safe library set and a sandbox.
        let safe = try LuaState(libraries: .safe)
        try safe.globals.set("chunk", dumped)
        #expect(try safe.run("string.gsub = function() return 'b' end return load(chunk, 'x', 'b')").last?.stringValue?.hasPrefix(refused) == true)
        #expect(try safe.run("return dofile, loadfile") == [.nil, .nil])
        let sandbox = try ScriptRuntime(sandbox: true)
        try sandbox.lua.globals.set("chunk", dumped)
        #expect(try sandbox.run("return load(chunk)").last?.stringValue?.hasPrefix(refused) == true)
    }

    /// With every library open, as in lua.c, binary chunks load however they are asked for (the debug
    /// library can break any rule already): `luac`'s output runs.
    @Test func scriptsWithEveryLibraryLoadBinaryChunksAsLuaDoes() throws {
        let folder = try TemporaryDirectory()
        let maker = try LuaState()
        let dumped = try maker.evaluate("return string.dump(function(...) return 42, select('#', ...) end)", as: LuaString.self)
        try folder.write("mb.lua", bytes: Array(dumped.bytes))
        let runtime = try ScriptRuntime()
        try runtime.lua.globals.set("dir", folder.path)
        for code in [
            "return load(string.dump(function() return 42 end))()",
            "return load(string.dump(function() return 42 end), 'x', 'b')()",
            "return loadfile(dir .. '/mb.lua')()",
            "return dofile(dir .. '/mb.lua')",
            "package.path = dir .. '/?.lua;' .. package.path return require 'mb'",
        ] {
            #expect(try runtime.run(code).first == .integer(42), "\(code)")
        }
        #expect(try runtime.lua.runFile(folder.path + "/mb.lua") == [.integer(42), .integer(0)])
        // A text chunk asked for as binary only is still refused, as by lua.
        #expect(try runtime.run("return select(2, load('return 1', 'x', 'b'))").first?.stringValue?.contains("attempt to load a text chunk (mode is 'b')") == true)
    }
}

@Suite struct DataSizeTests {
    static let dag = "local t = {1} for i = 1, 40 do t = {t, t} end"

    /// Data that shares a table at many places is refused in bounded time wherever it crosses (it was
    /// converted once per path: 2^40 values never returned).
    @Test func sharedTablesCannotExplode() throws {
        let runtime = try appRuntime()
        for code in ["tap('login', t)", "require('coordinator').copy(t)", "require('coordinator').update('user', t)",
                     "require('coordinator').freeze(t)", "top().nothing = t"] {
            let error = luaError { try runtime.run(Self.dag + " " + code) }
            #expect(error?.message.contains("data too large") == true || error?.message.contains("no input") == true, "\(code): \(error?.message ?? "no error")")
        }
        #expect(runtime.app.window.visibleScreen?.name == "Login")
        // Data built in Swift that shares storage is refused on its way into Lua.
        var value: FlowValue = [1]
        for _ in 0..<40 { value = [value, value] }
        #expect(luaError { try runtime.lua.globals.set("big", value) }?.message.contains("data too large") == true)
    }

    /// Under a memory limit, what Swift allocates to convert data counts too.
    @Test func conversionsStayUnderTheMemoryLimit() throws {
        let runtime = try appRuntime()
        runtime.lua.memoryLimit = runtime.lua.memoryUsed + 8 << 20
        let error = luaError { try runtime.run("local t = {1} for i = 1, 18 do t = {t, t} end return require('coordinator').copy(t)") }
        #expect(error?.kind == .memory || error?.message.contains("memory limit") == true, "\(String(describing: error))")
        runtime.lua.memoryLimit = nil
        #expect(try runtime.run("return #require('coordinator').copy({1, 2, 3})") == [3])
    }
}

/// Found by the libFuzzer run (Tests/Fuzz/corpus/payload-that-navigates): a run-mode line `OUTPUT PAYLOAD`
/// whose payload expression navigates, and whose tap then fails, kept the navigation.
@Suite struct FuzzFindingTests {
    @Test func aPayloadThatNavigatesIsUndoneWithTheTapThatFails() throws {
        let runtime = try appRuntime()
        let repl = try REPL(runtime: runtime, mode: .run) { _ in }
        #expect(repl.handle("login { name = 'Ann', password = 'secret' }"))
        #expect(repl.handle("selectCity"))
        #expect(runtime.app.window.visibleScreen?.name == "Regions")
        let before = runtime.app.window.visibleStack.map(\.id)
        // back() pops Regions, then Regions' output cannot be tapped on the screen below: the line fails.
        #expect(!repl.handle("citySelected back()"))
        #expect(runtime.app.window.visibleStack.map(\.id) == before)
    }
}

/// Error messages keep their site.
@Suite struct ErrorSiteTests {
    func session(_ script: String, _ lines: [String]) throws -> [String] {
        let folder = try TemporaryDirectory()
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: try folder.write("app.lua", script))
        try runtime.start()
        var errors: [String] = []
        let repl = try REPL(runtime: runtime, output: REPL.Output(write: { _ in }, error: { errors.append($0) }))
        for line in lines { _ = repl.handle(line) }
        return errors
    }

    static let app = """
        local flow = require "coordinator"
        flow.screen "S" { outputs = { "go" } }
        local App = flow.coordinator "App"
        local function deeper() error("in handler") end
        function App:start()
          local s = self:push("S")
          s.onGo = function() deeper() end
        end
        flow.app(App)
        """

    /// An error object whose __tostring fails still has its traceback (it was replaced by the traceback of
    /// the failing __tostring: "[C]: in ?").
    @Test func aFailingTostringKeepsTheTraceback() throws {
        let errors = try session(Self.app, ["x = 1", "error(setmetatable({}, { __tostring = function() return {} end }))"])
        #expect(errors.count == 1)
        #expect(errors.first?.contains("__tostring failed") == true, "\(errors)")
        #expect(errors.first?.contains("stdin:2: in main chunk") == true, "\(errors)")
    }

    /// An error raised in a handler that tap() ran lists each frame of the session once (the frames below
    /// tap were listed twice: once in the handler's traceback, once in the line's).
    @Test func framesThroughTapAreListedOnce() throws {
        let errors = try session(Self.app, ["function f() tap('go') end", "f()"])
        let text = try #require(errors.first)
        #expect(text.contains("app.lua:4: in upvalue 'deeper'"), "\(text)")
        #expect(text.components(separatedBy: "in function 'tap'").count == 2, "\(text)")
        #expect(text.components(separatedBy: "stdin:1: in function 'f'").count == 2, "\(text)")
    }
}

/// Running out of memory while Swift code makes Lua values : Lua's memory error used to
/// longjmp over some 25 Swift frames of the data conversion. Now the state's reserve carries the
/// conversion to its next check, which raises the error in Swift; nothing raises over Swift code.
@Suite struct OutOfMemoryTests {
    static let app = """
        local flow = require "coordinator"
        flow.screen "S" { inputs = { "rows" }, outputs = { "go" } }
        local App = flow.coordinator "App"
        function App:start() self:push("S", { rows = {} }) end
        flow.app(App)
        """

    @Test func conversionsIntoLuaStopAtTheReserve() throws {
        let folder = try TemporaryDirectory()
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: try folder.write("app.lua", Self.app))
        try runtime.start()
        try runtime.run("rows = {} for i = 1, 20000 do rows[i] = { name = string.rep('r', 100) .. i, n = i } end")
        func state() -> [String] { runtime.app.window.visibleStack.map { "\($0.name) \($0.inputs.count)" } }
        let before = state()
        // The system gives this state what it holds, its reserve and 64 KB more: the copy of 20,000 rows
        // (about 4 MB) runs out in Swift's conversion, over and over, at different places.
        for extra in [1 << 10, 16 << 10, 64 << 10, 300 << 10] {
            runtime.lua.systemMemory = runtime.lua.memoryUsed + (1 << 20) + extra
            let error = luaError { try runtime.run("return require('coordinator').copy(rows)") }
            #expect(error?.kind == .memory || error?.message.contains("not enough memory") == true, "\(String(describing: error))")
            let inHandler = luaError { try runtime.run("return pcall(require('coordinator').copy, rows)") }
            #expect(inHandler == nil)
            runtime.lua.systemMemory = nil
            #expect(runtime.lua.unprotectedAllocationFailures == 0, "with \(extra) bytes")
            #expect(state() == before)
        }
        #expect(try runtime.run("return #require('coordinator').copy(rows)") == [20000])
        try runtime.run("top().rows = rows")
        try runtime.run("tap('go')")
    }

    /// Strings and tables too big for the reserve are made in protected mode: a failure is an error too.
    @Test func bigStringsAndTablesAreMadeInProtectedMode() throws {
        let lua = try LuaState()
        let big = String(repeating: "x", count: 4 << 20)
        lua.systemMemory = lua.memoryUsed + (1 << 20) + (1 << 20)
        #expect(luaError { try lua.globals.set("big", big) }?.kind == .memory)
        #expect(luaError { try lua.globals.set("list", FlowValue.list(Array(repeating: .int(1), count: 200_000))) }?.kind == .memory)
        #expect(lua.unprotectedAllocationFailures == 0)
        lua.systemMemory = nil
        try lua.globals.set("big", big)
        #expect(try lua.run("return #big") == [.integer(4 << 20)])
    }

    /// What one conversion makes in Swift is bounded in bytes too (Swift stops the process when it cannot
    /// allocate): 300 MB of text is refused before it is copied.
    @Test func conversionsAreBoundedInBytes() throws {
        let runtime = try appRuntime()
        let error = luaError { try runtime.run("local s = string.rep('x', 1 << 20) local t = {} for i = 1, 300 do t[i] = s .. i end return require('coordinator').copy(t)") }
        #expect(error?.message.contains("data too large: more than 256 MiB") == true, "\(String(describing: error))")
    }
}

@Suite struct LimitTests {
    /// Each limit ends the line with a clear error, the app as before it, the session going on.
    @Test func limitsEndTheLineAndChangeNothing() throws {
        let runtime = try appRuntime()
        try runtime.limit(memory: runtime.lua.memoryUsed + 16 << 20, instructions: 5_000_000)
        var errors: [String] = []
        let repl = try REPL(runtime: runtime, output: REPL.Output(write: { _ in }, error: { errors.append($0) }))
        let before = runtime.app.window.visibleStack.map(\.id)
        let cases: [(line: String, message: String)] = [
            ("tap('login', { name = 'Ann', password = 'secret' }) while true do end", "instruction budget"),
            ("tap('login', { name = 'Ann', password = 'secret' }) local t = {} for i = 1, 1e8 do t[i] = i end", "not enough memory"),
            ("tap('login', { name = 'Ann', password = 'secret' }) coroutine.wrap(function() while true do end end)()", "instruction budget"),
            ("setmetatable({}, { __gc = function() while true do end end })", "__gc metamethods are not run here"),
        ]
        for (line, message) in cases {
            errors = []
            #expect(!repl.handle(line), "\(line)")
            #expect(errors.first?.contains(message) == true, "\(line): \(errors)")
            #expect(runtime.app.window.visibleStack.map(\.id) == before)
        }
        // The time limit, for code the other limits allow (no budget: the two never race, whatever the load).
        try runtime.limit(memory: nil, instructions: nil)
        repl.timeLimit = 1 // the loop ends by it; the line after must fit in it even on a loaded machine
        errors = []
        #expect(!repl.handle("tap('login', { name = 'Ann', password = 'secret' }) while true do end"))
        #expect(errors.first?.contains("timed out") == true, "\(errors)")
        #expect(runtime.app.window.visibleStack.map(\.id) == before)
        #expect(repl.handle("x = 1"))
    }
}

@Suite struct AlertLeakTests {
    /// 100,000 alerts answered with OK leave nothing behind (each used to keep its screen, its actions
    /// and its owner alive: 10.4 MB of Lua heap).
    @Test func answeredAlertsAreReleased() throws {
        let folder = try TemporaryDirectory()
        let path = try folder.write("alerts.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "ask" } }
            local Ask = flow.coordinator "Ask"
            function Ask:start()
              self:alert { title = "Sure?", actions = { { "OK", function() self:finish() end } } }
            end
            local App = flow.coordinator "App"
            function App:start()
              local home = self:push("Home")
              home.onAsk = function() self:run(Ask) end
            end
            flow.app(App)
            """)
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: path)
        try runtime.start()
        // 100 lines of 1,000 cycles: the heap after each quarter stays within what the first lines reached
        // (the registry's free list and the object cache settle at the size one line needs).
        for _ in 0..<4 { try runtime.run("for i = 1, 1000 do tap('ask') tap('OK') end") } // warm up
        runtime.lua.collectGarbage()
        let heap = runtime.lua.memoryUsed
        let live = (runtime.app.live.coordinators, runtime.app.live.screens)
        var heaps: [Int] = []
        for quarter in 0..<4 {
            for _ in 0..<25 { try runtime.run("for i = 1, 1000 do tap('ask') tap('OK') end") }
            runtime.lua.collectGarbage()
            heaps.append(runtime.lua.memoryUsed)
            #expect((runtime.app.live.coordinators, runtime.app.live.screens) == live, "quarter \(quarter)")
        }
        #expect(heaps.allSatisfy { $0 <= heap + 512 << 10 }, "heap \(heap) -> \(heaps)")
        #expect(runtime.app.window.visibleScreen?.name == "Home")
        // In one line too: the line's log dropped nothing of the answered alerts (their removal was kept to
        // be undone, with the alert, its actions and its coordinator: 6.8 MB for 20,000).
        try runtime.run("for i = 1, 20000 do tap('ask') tap('OK') end collectgarbage() collectgarbage() inLine = collectgarbage('count') * 1024")
        let inLine = try runtime.run("return inLine").first.flatMap { Int(exactly: $0.doubleValue ?? 0) } ?? Int.max
        #expect(inLine <= heap + 1 << 20, "heap \(heap) -> \(inLine) inside the line")
    }
}
