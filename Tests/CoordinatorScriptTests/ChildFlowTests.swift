import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// A coordinator's child flows by class (`self:children(Class)`, `self:child(Class)`): the "already open"
/// guards production coordinators write.
@Suite struct ChildFlowTests {
    static let app = """
        local flow = require "coordinator"
        flow.screen "Home" { outputs = { "settings", "help", "share" } }
        flow.screen "Settings" { outputs = { "done" } }
        flow.screen "Help" {}
        flow.screen "Share" {}
        local Settings = flow.coordinator "Settings"
        function Settings:start(n) self.n = n self:push("Settings").onDone = function() self:finish() end end
        local Help = flow.coordinator "Help"
        function Help:start() self:push("Help") end
        local Main = flow.coordinator "Main"
        function Main:start()
          local home = self:push("Home")
          opened = 0
          -- Settings opens once: a second call finds it running (a link, a signal).
          home.onSettings = function()
            if self:child(Settings) then return end
            opened = opened + 1
            self:run(Settings, opened, { modal = true })
          end
          home.onHelp = function() self:run(Help, nil, { modal = true }) end
          home.onShare = function() self:present("Share") end
          main = self
        end
        flow.app(Main)
        """

    @Test func childFlowsAreFoundByClassOrName() throws {
        let folder = try TemporaryDirectory()
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.load(script: folder.write("app.lua", Self.app))
        try runtime.start()
        func evaluate(_ code: String) throws -> LuaValue { try runtime.lua.evaluate(code, as: LuaValue.self) }
        #expect(try evaluate("return #main:children() + #main:children('Settings')") == .integer(0))
        #expect(try evaluate("return main:child('Settings')") == .nil)
        try runtime.lua.run("tap('settings')")
        #expect(try evaluate("return main:child('Settings').n") == .integer(1))
        #expect(try evaluate("local s = main:children(require('coordinator').coordinator 'Settings') return #s, s[1].n") == .integer(1))
        try runtime.lua.run("tap('done') tap('settings') tap('done') tap('help')")
        #expect(try evaluate("return main:child('Settings')") == .nil, "finished flows are not children")
        #expect(try evaluate("return #main:children(), #main:children('Help'), main:child('Help') == main:children()[1]") == .integer(1))
        #expect(try evaluate("return opened") == .integer(2))
        #expect(throws: LuaError.self) { try runtime.lua.run("main:child()") }
        #expect(throws: LuaError.self) { try runtime.lua.run("main:child(42)") }
        #expect(throws: LuaError.self) { try runtime.lua.run("main:children({})") }
    }
}
