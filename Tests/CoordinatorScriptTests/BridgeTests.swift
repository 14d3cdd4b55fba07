import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorTools
import CoordinatorLua



@Suite struct AppScriptTests {
    @Test func theSourceJourney() throws {
        let runtime = try appRuntime()
        #expect(try runtime.run("return top().name") == ["Login"])
        try runtime.run("tap('login', { name = 'Ann', password = 'wrong' })")
        #expect(try runtime.run("return stack()")[0].tableValue?.decode([String].self) == ["Login", "Alert"])
        #expect(try runtime.run("return top().message") == ["Wrong password"])
        try runtime.run("tap('OK')")
        #expect(try runtime.run("return top().name") == ["Login"])
        try runtime.run("tap('login', { name = 'Ann', password = 'secret' })")
        #expect(try runtime.run("return top().name, top().user.name, top().user.city.name") == ["UserEdit", "Ann", "Moscow"])
        #expect(runtime.app.gateway.state == .main)
        try runtime.run("tap('selectCity')")
        try runtime.run("tap('regionSelected', top().regions[1])")
        #expect(try runtime.run("return top().name, top().region") == ["Cities", "Ulyanovsk Oblast"])
        try runtime.run("tap('citySelected', { name = 'Dimitrovgrad' })")
        #expect(try runtime.run("return top().name, top().user.city.name") == ["UserEdit", "Dimitrovgrad"])
        #expect(try runtime.app.window.visibleScreen?.render() == "User: Ann\nCity: Dimitrovgrad")
        #expect(try runtime.run("local t = tree() return t.name, #t.children, t.children[1].name") == ["App", 1, "Main"])
    }

    @Test func backFromTheCityPickerLeavesNoPickerAlive() throws {
        let runtime = try appRuntime(state: .main)
        try runtime.run("tap('selectCity'); tap('regionSelected', top().regions[1])")
        try runtime.run("back()")
        #expect(try runtime.run("return top().name") == ["Regions"])
        try runtime.run("back()")
        #expect(try runtime.run("return top().name, top().user.city.name") == ["UserEdit", "Moscow"])
        #expect(runtime.app.root?.subtree.map(\.name) == ["App", "Main"])
    }

    /// A finished picker keeps no registry reference while its handle waits for the collector: journeys
    /// without a collection leave the registry's live references where they were.
    @Test func finishedFlowsHoldNoReferencesUntilCollected() throws {
        let runtime = try appRuntime(state: .main)
        try runtime.run("collectgarbage('stop')")
        let live = "local n = 0 for _, v in pairs(debug.getregistry()) do if type(v) ~= 'number' then n = n + 1 end end return n"
        func journey() throws {
            try runtime.run("tap('selectCity') tap('regionSelected', top().regions[1]) tap('citySelected', top().cities[2])")
        }
        try journey()
        let before = try runtime.lua.evaluate(live, as: Int.self)
        for _ in 0..<50 { try journey() }
        #expect(try runtime.lua.evaluate(live, as: Int.self) == before)
        try runtime.run("collectgarbage('restart')")
        runtime.lua.collectGarbage()
        #expect(runtime.app.live.coordinators == 2) // App and Main: every picker is gone once collected
    }

    @Test func logoutReturnsToLogin() throws {
        let runtime = try appRuntime(state: .main)
        try runtime.run("tap('logout')")
        #expect(try runtime.run("return top().name") == ["Login"])
        #expect(runtime.app.root?.subtree.map(\.name) == ["App", "Login"])
        #expect(runtime.app.gateway.state == .authorization)
    }

    @Test func aFailingLineLeavesTheStateExactlyAsBefore() throws {
        let runtime = try appRuntime(state: .main)
        try runtime.run("tap('selectCity')")
        let before = runtime.app.window.hierarchyDescription
        let error = luaError { try runtime.run("tap('regionSelected', top().regions[2]); error('oops')", name: "input") }
        #expect(error?.message == "input:1: oops")
        #expect(runtime.app.window.hierarchyDescription == before)
        #expect(runtime.app.root?.subtree.map(\.name) == ["App", "Main", "CityPicker"])
        let unknown = luaError { try runtime.run("tap('nope')", name: "input") }
        #expect(unknown?.message == "input:1: screen Regions has no output 'nope' (outputs: citySelected, regionSelected)")
        let badChoice = luaError { try runtime.run("tap('citySelected', { name = 'Paris' })", name: "input") }
        #expect(badChoice?.message.contains("takes one of the items of 'federal'") == true)
    }

    @Test func errorsInHandlersNameTheScriptLine() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("broken.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "go" } }
            local Home = flow.coordinator "Home"
            function Home:start()
              local screen = self:push("Home")
              screen.onGo = function()
                self:push("Home")
                local t = nil
                return t.field
              end
            end
            flow.app { authorization = Home }
            """)
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: script)
        try runtime.start()
        let error = try #require(luaError { try runtime.run("tap('go')") })
        // Lua shortens long chunk names to their last 60 characters ("...broken.lua"), as `lua` does.
        #expect(error.message.hasSuffix("broken.lua:9: attempt to index a nil value (local 't')"))
        #expect(error.line == 9)
        #expect(error.traceback?.contains("broken.lua:9: in ") == true, "\(error.traceback ?? "none")")
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Home"]) // the push was undone
    }
}

@Suite struct StartErrorTests {
    func runtime(_ body: String) throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.run("""
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "open" } }
            local Child = flow.coordinator "Child"
            \(body)
            local Home = flow.coordinator "Home"
            function Home:start()
              local screen = self:push("Home")
              screen.onOpen = function() self:run(Child, 7) end
            end
            flow.app { authorization = Home }
            """, name: "flow.lua")
        try runtime.start()
        return runtime
    }

    /// The Home coordinator, under the app's root.
    func home(_ runtime: ScriptRuntime) -> Coordinator? { runtime.app.root?.children.first }

    @Test func anErrorInStartNamesItsLineAndUndoesTheRun() throws {
        let runtime = try runtime("function Child:start(n) self:push('Home') error('cannot start with ' .. n) end")
        let error = try #require(luaError { try runtime.app.tap("open") })
        #expect(error.message == "flow.lua:4: cannot start with 7")
        #expect(home(runtime)?.children.isEmpty == true)
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Home"])
    }

    @Test func aStartThatIsNotAFunctionIsNamed() throws {
        let runtime = try runtime("Child.start = 5")
        // Named at the line that ran it (the method is looked up when the child starts).
        #expect(luaError { try runtime.app.tap("open") }?.message == "flow.lua:8: Child.start is a number, not a function")
        #expect(home(runtime)?.children.isEmpty == true)
        // No start at all is fine: the child runs and shows nothing.
        let quiet = try self.runtime("")
        try quiet.app.tap("open")
        #expect(home(quiet)?.children.map(\.name) == ["Child"])
        // A flow the runtime starts itself (the app's root, a gateway state's flow) is named at flow.app's line.
        for declaration in ["flow.app(Root)", "flow.app { authorization = Root }"] {
            let rootless = try ScriptRuntime()
            try rootless.run("""
                local flow = require "coordinator"
                local Root = flow.coordinator "Root"
                Root.start = 5
                \(declaration)
                """, name: "app.lua")
            let error = luaError { try rootless.start() }
            #expect(error?.message == "app.lua:4: Root.start is a number, not a function")
        }
    }
}

@Suite struct InstanceTests {
    @Test func instancesCarryTheirHandleClassAndOnFinishAndShareTheirClassMetatable() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.run("""
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "open" } }
            local Child = flow.coordinator "Child"
            function Child:start() children[#children + 1] = self end
            local Root = flow.coordinator "Root"
            function Root:start()
              root = self
              self:push("Home").onOpen = function()
                self:run(Child, nil, { onFinish = function() end })
                self:run(Child)
              end
            end
            children = {}
            flow.app(Root)
            """, name: "flow.lua")
        try runtime.start() // the root class: its metatable is found on its first start
        try runtime.app.tap("open") // two children of one class, made by run
        let facts = try runtime.run("""
            local a, b = children[1], children[2]
            return rawget(a, "router") == rawget(a, "__handle"), rawget(a, "__class") == flow_classes().Child,
              type(rawget(a, "onFinish")), rawget(b, "onFinish") == nil, getmetatable(a) == "coordinator",
              tostring(a) == "Child#" .. a.__handle.id, a.__handle.name, root.__handle.name
            """.replacingOccurrences(of: "flow_classes()", with: "require('coordinator').classes"))
        #expect(facts == [true, true, "function", true, true, true, "Child", "Root"])
        // One metatable per class (read raw: scripts see it locked).
        let instances = try runtime.run("return children[1], children[2], root").compactMap(\.tableValue)
        let metas = instances.map { $0.metatable.map(LuaValue.table) ?? .nil }
        #expect(metas.count == 3 && metas[0] == metas[1] && metas[0] != metas[2])
    }
}

@Suite struct SystemBackHookTests {
    @Test func luaCoordinatorsHearAboutScreensLeavingAndSystemBack() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("hooks.lua", """
            local flow = require "coordinator"
            flow.screen "A" { outputs = { "next" } }
            flow.screen "B" { outputs = { "next" } }
            log = {}
            local Child = flow.coordinator "Child"
            function Child:start()
              self:push("B").onNext = function() self:push("B") end
            end
            function Child:onScreenLeft(screen, bySystem)
              log[#log + 1] = screen.name .. (bySystem and " by system" or " by code")
            end
            local Root = flow.coordinator "Root"
            function Root:start()
              self:push("A").onNext = function()
                self:run(Child, nil, { onFinish = function(result, reason) log[#log + 1] = "finished: " .. reason end })
              end
            end
            flow.app(Root)
            """)
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: script)
        try runtime.start()
        try runtime.run("tap('next'); tap('next'); back(); back()")
        #expect(try runtime.run("return table.concat(log, '; ')") == ["B by system; B by system; finished: systemBack"])
    }
}

@Suite struct LifetimeTests {
    @Test func journeysLeaveNoCoordinatorScreenOrLuaMemoryBehind() throws {
        let runtime = try appRuntime(state: .main)
        func cycle() throws {
            try runtime.run("tap('selectCity'); tap('regionSelected', top().regions[1]); back(); back()")
            try runtime.run("tap('selectCity'); tap('regionSelected', top().regions[2]); tap('citySelected', top().cities[1])")
        }
        for _ in 0..<50 { try cycle() } // warm up: caches, string interning, table growth
        runtime.lua.collectGarbage()
        let baseline = (runtime.app.live.coordinators, runtime.app.live.screens, runtime.lua.memoryUsed)
        for _ in 0..<2_000 { try cycle() }
        runtime.lua.collectGarbage()
        runtime.lua.collectGarbage()
        #expect(runtime.app.live.coordinators == baseline.0)
        #expect(runtime.app.live.screens == baseline.1)
        #expect(runtime.lua.memoryUsed <= baseline.2 + baseline.2 / 100)
        #expect(runtime.app.root?.subtree.map(\.name) == ["App", "Main"])
    }

    /// A flow that stays running while it pushes and pops screens all day keeps only the screens it shows
    /// (it remembers the screens it gave Lua handlers, and forgets the ones that are gone as it goes).
    @Test func aLongRunningFlowDoesNotKeepThePagesItPopped() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.run("""
            local flow = require "coordinator"
            flow.screen "Page" { outputs = { "next" } }
            local Root = flow.coordinator "Root"
            function Root:start()
              local function open()
                local page = self:push("Page")
                page.onNext = function() assert(page.name == "Page") open() end -- the handler holds its own screen
              end
              open()
            end
            function Root:onScreenLeft() if refuse then error("not now") end end
            flow.app(Root)
            """)
        try runtime.start()
        for _ in 0..<1_000 { try runtime.app.tap("next"); try runtime.app.back() }
        runtime.lua.collectGarbage()
        runtime.lua.collectGarbage() // the second runs the finalizers of what the first found unreachable
        #expect(runtime.app.window.visibleStack.count == 1)
        #expect(runtime.app.live.screens == 1)
        // A back that fails puts the screen back with its handler.
        try runtime.app.tap("next")
        try runtime.run("refuse = true")
        #expect(luaError { try runtime.app.back() }?.message.hasSuffix("not now") == true)
        #expect(runtime.app.window.visibleStack.count == 2)
        try runtime.run("refuse = false")
        try runtime.app.tap("next")
        #expect(runtime.app.window.visibleStack.count == 3)
    }

    /// The application coordinator starts the next flow when one finishes; the finished flow's Lua side
    /// (instance, handlers) must go with it, or every login → logout keeps a Login flow alive.
    @Test func loginLogoutCyclesLeaveNoFlowBehind() throws {
        let runtime = try appRuntime()
        func cycle() throws {
            try runtime.run("tap('login', { name = 'Ann', password = 'secret' }) tap('logout')")
        }
        for _ in 0..<5 { try cycle() }
        runtime.lua.collectGarbage()
        let baseline = (runtime.app.live.coordinators, runtime.app.live.screens, runtime.lua.liveCallbacks.count)
        for _ in 0..<50 { try cycle() }
        runtime.lua.collectGarbage()
        #expect(runtime.app.live.coordinators == baseline.0)
        #expect(runtime.app.live.screens == baseline.1)
        #expect(runtime.lua.liveCallbacks.count == baseline.2)
        #expect(runtime.app.root?.subtree.map(\.name) == ["App", "Login"])
    }
}

/// What a failed line made goes with it: coordinators started, screens pushed and the handlers they got
/// are freed when the line is undone (they linked to each other, and their Lua closures to them, so
/// without cutting those links each failed line kept them alive).
@Suite struct FailedLineTests {
    static let app = """
        local flow = require "coordinator"
        flow.screen "Home" { outputs = { "open", "openBroken", "fail", "failA", "failB" } }
        flow.screen "Page" { inputs = { "n" }, outputs = { "back" } }
        flow.screen "Broken" { render = function(s) return s.nothing.field end }
        local Child = flow.coordinator "Child"
        function Child:start(fail)
          local page = self:push("Page", { n = 1 })
          page.onBack = function() self:finish() end
          self.kept = page
          if fail then error("child failed to start") end
        end
        local App = flow.coordinator "App"
        function App:start()
          local home = self:push("Home")
          home.onOpen = function() self:run(Child, true) end
          home.onOpenBroken = function() local c = self:run(Child) c:push("Broken") end
          home.onFail = function() self:run(Child) self:push("Page", { n = 2 }).onBack = function() end error("handler failed") end
          home.onFailA = function() self:push("Page", { n = 2 }).onBack = function() end error("handler failed") end
          home.onFailB = function() self:push("Page", { n = 2 }) error("handler failed") end
        end
        flow.app(App)
        """

    @Test(arguments: ["tap('open')", "tap('openBroken')", "tap('fail')", "tap('failA')", "tap('failB')"])
    func aFailedLineLeavesNothingAlive(_ line: String) throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.run(Self.app)
        try runtime.start()
        let repl = try REPL(runtime: runtime, mode: .repl) { _ in }
        repl.handle("tap('openBroken')") // warm up: the line fails once, caches fill
        runtime.lua.collectGarbage()
        let baseline = (runtime.app.live.coordinators, runtime.app.live.screens, runtime.lua.memoryUsed)
        for _ in 0..<20 { #expect(!repl.handle(line)) }
        runtime.lua.collectGarbage()
        #expect(runtime.app.live.coordinators == baseline.0)
        #expect(runtime.app.live.screens == baseline.1)
        #expect(runtime.lua.memoryUsed < baseline.2 + 16_384, "Lua heap \(baseline.2) -> \(runtime.lua.memoryUsed)")
        #expect(runtime.app.window.visibleStack.map(\.name) == ["Home"])
    }
}

@Suite struct DeepChainTests {
    @Test func treeOfAChainAHundredThousandDeep() throws {
        let runtime = try ScriptRuntime(state: .main, driverFunctions: true)
        try runtime.run("""
            local flow = require "coordinator"
            local Link = flow.coordinator "Link"
            function Link:start() end
            local Root = flow.coordinator "Root"
            function Root:start() local node = self for i = 1, 100000 do node = node:run(Link) end end
            flow.app { main = Root }
            """)
        try runtime.start()
        let depth = try runtime.run("""
            local t, d = tree(), 0
            while t.children[1] do t = t.children[1]; d = d + 1 end
            return d, t.name, t.status, #t.children
            """)
        #expect(depth == [100_001, "Link", "running", 0])
    }
}

@Suite struct OneLineLoopTests {
    /// The source app's journey there and back, many times inside one line, holds no more Lua memory once
    /// the line ends than once.
    @Test func aLoopInsideOneLineHoldsNothingAfterwards() throws {
        let runtime = try appRuntime(state: .main)
        let loop = "for i = 1, %d do tap('selectCity'); tap('regionSelected', top().regions[1]); back(); back() end"
        try runtime.run(String(format: loop, 1))
        runtime.lua.collectGarbage()
        let before = runtime.lua.memoryUsed
        try runtime.run(String(format: loop, 3_000))
        runtime.lua.collectGarbage()
        #expect(runtime.lua.memoryUsed <= before + 1024)
        #expect(runtime.app.live.coordinators == 2 && runtime.app.live.screens == 1)
    }
}

@Suite struct DeepDataTests {
    @Test func dataTooDeepForLuaIsAnErrorNotACrash() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        var value: FlowValue = 1
        for _ in 0..<1_000 { value = .list([value]) }
        #expect(throws: LuaError.self) { try runtime.lua.globals.set("deep", value) }
        var shallow: FlowValue = 1
        for _ in 0..<100 { shallow = .list([shallow]) }
        try runtime.lua.globals.set("shallow", shallow)
        #expect(try runtime.run("local t, d = shallow, 0 while type(t) == 'table' do t = t[1]; d = d + 1 end return d") == [100])
    }
}
