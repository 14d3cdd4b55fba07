import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// Every handle a host can keep (the Lua state, a function, a table, the application, a screen, a
/// coordinator, the runtime) used after its owner is gone gives a clear error, never a crash.
@Suite struct UseAfterOwnerTests {
    /// A runtime on the sources' app, signed in; `keep` takes what the test holds on to, and the runtime
    /// is gone when it returns.
    func keep<T>(_ take: (ScriptRuntime) throws -> T) throws -> T {
        let runtime = try appRuntime()
        return try take(runtime)
    }

    @Test func theLuaStateAfterItsRuntime() throws {
        let lua = try keep { $0.lua }
        #expect(!lua.isClosed) // the host holds it: still open
        for code in ["print(stack())", "top()", "tap('login')", "back()", "tree()", "reload()",
                     "require('coordinator').update('user', 1)", "return require('coordinator').gateway.state",
                     "require('coordinator').gateway.state = 'main'", "require('coordinator').screen 'X' {}"] {
            let error = luaError { try lua.run(code) }
            #expect(error?.message.contains("the coordinator runtime is gone") == true, "\(code)")
        }
    }

    @Test func aFunctionAndATableAfterTheirRuntime() throws {
        let (tap, module) = try keep { runtime in
            (try runtime.lua.globals.get("tap", as: LuaFunction.self), try #require(runtime.module))
        }
        // The runtime held the only Lua state: it closed with it.
        #expect(luaError { try tap.call("login") }?.message == "the Lua state is closed")
        #expect(luaError { _ = try module.get("screen", as: LuaValue.self) }?.message == "the Lua state is closed")
    }

    @Test func theApplicationAfterItsRuntime() throws {
        let app = try keep { $0.app }
        let before = app.window.visibleStack.map(\.id)
        // The Login handler is Lua, and Lua is gone with the runtime: an error, and the app as it was.
        #expect(throws: (any Error).self) { try app.tap("login", payload: ["name": "Ann", "password": "secret"]) }
        #expect(app.window.visibleStack.map(\.id) == before)
        // Its render function was Lua: rendering throws that error, it is not turned into text.
        let renderError = #expect(throws: (any Error).self) { try app.window.visibleScreen?.render() }
        #expect(String(describing: renderError).contains("closed"), "\(String(describing: renderError))")
        #expect(throws: NavigationError.self) { try app.back() } // what needs no Lua works: a root cannot go back
    }

    @Test func aScreenAndACoordinatorAfterTheirApplication() throws {
        let (screen, root) = try keep { runtime in
            (try #require(runtime.app.window.visibleScreen), try #require(runtime.app.root))
        }
        #expect(throws: NavigationError.self) { try screen.emit("login", payload: ["name": "Ann"]) }
        #expect(throws: NavigationError.self) { try root.finish() }
        #expect(throws: LuaError.self) { try screen.render() } // its rendering function was Lua's
        #expect(screen.name == "Login")
    }

    @Test func aScriptedCoordinatorAfterItsRuntime() throws {
        let (app, login) = try keep { runtime in (runtime.app, try #require(runtime.app.root?.children.first)) }
        #expect(login.name == "Login")
        // Finishing calls its Lua onFinish: the Lua state is gone, so the finish fails and is undone.
        #expect(throws: (any Error).self) { try login.finish() }
        #expect(login.status == .running)
        #expect(app.window.visibleScreen?.name == "Login")
    }

    @Test func aFinalizerThatDrivesTheAppWhileTheRuntimeCloses() throws {
        var reports: [String] = []
        do {
            let runtime = try appRuntime()
            try runtime.lua.globals.set("report", runtime.lua.function(name: "report") { call in reports.append(try call.string(1)) })
            try runtime.run("""
                G = setmetatable({}, { __gc = function()
                  for _, name in ipairs { "top", "tap", "back", "stack", "tree", "tab", "reload" } do
                    local ok, message = pcall(_G[name], 1)
                    report(name .. ": " .. tostring(ok) .. " " .. tostring(message))
                  end
                end })
                """)
        } // the runtime goes: closing its Lua state runs the finalizer
        #expect(reports.count == 7)
        #expect(reports.allSatisfy { $0.contains(": false") && $0.contains("the coordinator runtime is gone") }, "\(reports)")
    }

    /// Nothing a script sets up (handlers, signal handlers on screens and coordinators, a factory, child
    /// flows) keeps the runtime alive once the host lets it go.
    @Test func aRuntimeGoesWhenItsHostLetsItGo() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("held.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "go" } }
            flow.factory("Any", function() return "Home" end)
            local Child = flow.coordinator "Child"
            function Child:start() self:push("Home") end
            local App = flow.coordinator "App"
            function App:start()
              local home = self:push("Home")
              home:onSignal("ping", function() return nil, "pong" end)
              self:onSignal("ping", function() return nil, "pong" end)
              home.onGo = function() self:run(Child) end
            end
            flow.app(App)
            """)
        weak var weakRuntime: ScriptRuntime?
        weak var weakApp: Application?
        do {
            let runtime = try ScriptRuntime(driverFunctions: true)
            try runtime.load(script: script)
            try runtime.start()
            try runtime.run("tap('go')")
            #expect(runtime.app.window.visibleStack.count == 2)
            weakRuntime = runtime
            weakApp = runtime.app
        }
        #expect(weakRuntime == nil)
        #expect(weakApp == nil)
    }
}
