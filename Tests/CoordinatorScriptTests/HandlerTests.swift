import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// Lua handlers live in the screen's own Lua table (its output receiver): these check that they follow
/// operations, Swift handlers and finishing flows exactly as handlers set from Swift do.
@Suite struct HandlerTests {
    let runtime: ScriptRuntime
    init() throws {
        runtime = try ScriptRuntime(state: AppState("home"), driverFunctions: true)
        runtime.lua.tracebacks = false
        try runtime.run("""
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "go", "other", "fail", "open" } }
            flow.screen "Page" { outputs = { "next" } }
            heard = {}
            local function note(what) heard[#heard + 1] = what end
            local Child = flow.coordinator "Child"
            function Child:start()
              local page = self:push("Page")
              page.onNext = function() note('next') self:finish('done') end
            end
            local Home = flow.coordinator "Home"
            function Home:start()
              local screen = self:push("Home")
              home, homeSelf = screen, self
              screen.onGo = function() note('go') end
              screen.onFail = function()
                screen.onGo = function() note('replaced') end
                screen.onOther = function() note('other') end
                error('boom')
              end
              screen.onOpen = function()
                local child = self:run(Child)
                child.onFinish = function(result) note('finished ' .. tostring(result)) if failFinish then error('no') end end
              end
            end
            flow.app { home = Home }
            """, name: "handlers.lua")
        try runtime.start()
    }

    var heard: String { get throws { try runtime.lua.evaluate("return table.concat(heard, ' ')", as: String.self) } }
    var home: Screen { get throws { try #require(runtime.app.window.visibleScreen) } }

    @Test func handlersSetInAFailedOperationAreUndone() throws {
        #expect(luaError { try runtime.app.tap("fail") }?.message == "handlers.lua:19: boom")
        let screen = try home
        #expect(!screen.hasHandler(for: "other"))
        try runtime.app.tap("go")
        try runtime.app.tap("other")          // no handler: nothing runs
        #expect(try heard == "go")
    }

    /// A handler reads back as the function set, so a helper can wrap it; none reads as nil.
    @Test func aHandlerReadsBackAsTheFunctionSet() throws {
        #expect(try runtime.lua.evaluate("return home.onOther == nil and type(home.onGo) == 'function'", as: Bool.self))
        try runtime.run("""
            local previous = home.onGo
            home.onGo = function(...) heard[#heard + 1] = 'before' return previous(...) end
            """)
        try runtime.app.tap("go")
        #expect(try heard == "before go")
        try runtime.run("home.onGo = nil")
        #expect(try runtime.lua.evaluate("return home.onGo == nil", as: Bool.self))
    }

    /// Handlers set on the screen an alert returns run when their action is chosen (after the alert has
    /// gone, as its own actions' functions do); one that fails brings the alert back.
    @Test func handlersSetOnAnAlertRunWhenTheirActionIsChosen() throws {
        try runtime.run("""
            alert = homeSelf:alert { title = 'Sure?', actions = { 'OK', 'Other', 'Fail' } }
            alert.onOther = function() heard[#heard + 1] = 'other' end
            alert.onFail = function() error('no') end
            """)
        #expect(luaError { try runtime.app.tap("Fail") } != nil)
        #expect(runtime.app.window.visibleScreen?.name == "Alert")
        try runtime.app.tap("Other")
        #expect(try heard == "other")
        #expect(runtime.app.window.visibleScreen?.name == "Home")
    }

    @Test func theLastHandlerSetWinsBetweenSwiftAndLua() throws {
        let screen = try home
        var swift = 0
        try screen.on("go") { _ in swift += 1 }       // replaces the Lua handler
        try runtime.app.tap("go")
        screen.removeHandler(for: "go")                  // and the Lua one does not come back
        #expect(!screen.hasHandler(for: "go"))
        try runtime.app.tap("go")
        try runtime.run("home.onGo = function() heard[#heard + 1] = 'lua again' end") // Lua's turn: replaces Swift's
        try screen.on("other") { _ in swift += 10 }
        try runtime.run("home.onOther = function() heard[#heard + 1] = 'lua other' end")
        try runtime.app.tap("go")
        try runtime.app.tap("other")
        #expect(swift == 1)
        #expect(try heard == "lua again lua other")
        #expect(luaError { try runtime.run("home.onGo = 42", name: "input") }?.message == "input:1: screen Home: onGo must be a function (or nil)")
        try runtime.run("home:on('go', nil)")
        #expect(!screen.hasHandler(for: "go"))
        #expect(luaError { try runtime.run("home:on('nope', print)", name: "input") }?.message
                == "input:1: screen Home has no output 'nope' (outputs: go, other, fail, open)")
    }

    @Test func aFinishedFlowDropsItsHandlersUnlessTheFinishFails() throws {
        try runtime.app.tap("open")
        let page = try home
        #expect(page.name == "Page" && page.hasHandler(for: "next"))
        try runtime.run("failFinish = true")
        #expect(luaError { try runtime.app.tap("next") }?.message.hasSuffix(": no") == true)
        #expect(try home === page && page.hasHandler(for: "next"))  // the failed finish kept everything
        try runtime.run("failFinish = false")
        try runtime.app.tap("next")
        #expect(!page.hasHandler(for: "next"))                    // finished: its handlers are gone
        #expect(try home.name == "Home")
        #expect(try heard == "next finished done next finished done")
    }

    @Test func theRouterIsTheHandleAndOnFinishMustBeAFunction() throws {
        try runtime.run("""
            local flow = require "coordinator"
            local Routed = flow.coordinator "Routed"
            function Routed:start()
              local page = self.router:push("Page")   -- the router has the coordinator's methods
              page.onNext = function() self:finish() end
            end
            home.onOther = function() local c = home_owner:run(Routed) c.onFinish = 42 end
            """, name: "routed.lua")
        try runtime.run("home_owner = nil")
        let owner = try #require(runtime.app.root?.subtree.first { $0.name == "Home" })
        try runtime.lua.globals.set("home_owner", LuaObject(owner))
        try runtime.app.tap("other")
        let page = try home
        #expect(page.name == "Page")
        let error = luaError { try runtime.app.tap("next") }
        #expect(error?.message.hasSuffix("Routed.onFinish is a number, not a function") == true, "\(error?.message ?? "none")")
        #expect(try home === page && page.hasHandler(for: "next"))  // undone: still there, still listening
    }

    @Test func aRedefinedTypesHandlerNamesAreResolvedAgain() throws {
        let owner = try #require(runtime.app.root?.subtree.first { $0.name == "Home" })
        try runtime.lua.globals.set("home_owner", LuaObject(owner))
        try runtime.run("""
            local flow = require "coordinator"
            flow.screen "Once" { outputs = { "a" } }
            local first = home_owner:push("Once")
            first.onA = function() end          -- resolved, and remembered
            first.onA = function() end          -- found again
            flow.screen "Once" { outputs = { "c" } }
            second = home_owner:push("Once")
            """, name: "once.lua")
        let error = luaError { try runtime.run("second.onA = function() end", name: "input") }
        #expect(error?.message.hasPrefix("input:1: screen Once has no input or output 'onA'") == true, "\(error?.message ?? "none")")
        try runtime.run("second.onC = function() heard[#heard + 1] = 'c' end", name: "input")
        try runtime.app.tap("c")
        #expect(try heard == "c")
    }

    @Test func aScreenAndACoordinatorKeepOneUserdataEach() throws {
        let owner = try #require(runtime.app.root?.subtree.first { $0.name == "Home" })
        try runtime.lua.globals.set("handle", LuaObject(owner))
        #expect(try runtime.lua.evaluate("return rawequal(home, top()) and rawequal(handle, homeSelf.__handle)", as: Bool.self))
    }
}
