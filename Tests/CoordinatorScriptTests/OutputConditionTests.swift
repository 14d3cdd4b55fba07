import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// Outputs there only sometimes (`when`): offered or refused as the screen's inputs change, the
/// condition only reading.
@Suite struct OutputConditionTests {
    static let app = """
        local flow = require "coordinator"
        flow.screen "Profile" {
          inputs = { "isOwn", "nick" },
          outputs = {
            "follow",
            settings = { when = function(inputs) return inputs.isOwn end },
            rename = { payload = "value", when = function(inputs) return inputs.isOwn and inputs.nick ~= "admin" end },
          },
        }
        flow.screen "Settings" {}
        local Main = flow.coordinator "Main"
        function Main:start()
          profile = self:push("Profile", { isOwn = false, nick = "ann" })
          profile.onSettings = function() self:push("Settings") end
          profile.onRename = function(name) profile.nick = name end
          profile.onFollow = function() end
        end
        flow.app(Main)
        """

    static func runtime(_ script: String = app) throws -> ScriptRuntime { try startedApp(script) }

    @Test func anOutputIsOfferedOrRefusedAsTheInputsChange() throws {
        let runtime = try Self.runtime()
        let app = runtime.app
        let profile = try #require(app.window.visibleScreen)
        #expect(try profile.offeredOutputs().map(\.name) == ["follow"])
        let before = app.stateDescription
        let refused = luaError { try runtime.run("tap('settings')", name: "=test") }
        #expect(refused?.message == "test:1: output 'settings' of Profile is not offered now: its condition (app:6) is false", "\(refused?.message ?? "no error")")
        #expect(app.stateDescription == before)
        try runtime.run("profile.isOwn = true", name: "=line")
        #expect(try profile.offeredOutputs().map(\.name) == ["follow", "rename", "settings"])
        try runtime.run("tap('rename', 'admin')", name: "=line")
        #expect(try profile.offeredOutputs().map(\.name) == ["follow", "settings"])
        try app.tap("settings")
        #expect(app.window.visibleStack.map(\.name) == ["Profile", "Settings"])
    }

    /// A condition decides; it does not act. One that writes an input (another screen's, or its own), fails,
    /// and the app is as before.
    @Test func aConditionThatChangesTheAppIsAnError() throws {
        for (body, message) in [
            ("profile.nick = 'bob' return true", "the condition of output 'settings' of Profile (app:6) changed the app: a condition only reads the screen"),
            ("inputs.isOwn = true return true", "the condition of output 'settings' of Profile (app:6) changed the app: a condition only reads the screen"),
        ] {
            let script = Self.app.replacingOccurrences(of: "return inputs.isOwn end },\n    rename", with: "\(body) end },\n    rename")
            let runtime = try Self.runtime(script)
            let app = runtime.app
            let before = app.stateDescription
            let listing = #expect(throws: (any Error).self) { try app.window.visibleScreen?.offeredOutputs() }
            #expect("\(listing.map { "\($0)" } ?? "")".contains(message), "\(body): \(listing.map { "\($0)" } ?? "no error")")
            #expect(app.stateDescription == before)
            #expect(app.window.visibleScreen?["nick"] == "ann")
            let tapped = luaError { try runtime.run("tap('settings')", name: "=test") }
            #expect(tapped?.message.contains(message) == true, "\(body): \(tapped?.message ?? "no error")")
            #expect(app.stateDescription == before)
        }
    }

    @Test func aConditionIsDeclaredAsTheOtherOptionsAre() throws {
        for (output, message) in [
            ("x = { when = 3 }", "screen S: output 'x': when is a function of the screen's inputs (when = function(inputs) return inputs.isOwn end)"),
            ("x = { whn = function() end }", "screen S: output 'x''s fields have no 'whn' (they take: from, label, secret, payload, when)"),
            ("x = { payload = 'any' }", "screen S: output 'x': payload is \"value\" or \"none\", not 'any'"),
            ("x = { from = 'items', payload = 'value' }", "screen S: output 'x': from = 'items' says the payload (an item of the list): leave out payload"),
            ("x = { }", "screen S: output 'x' = { from = 'input' } names the list input"),
        ] {
            let runtime = try ScriptRuntime(driverFunctions: true)
            runtime.lua.tracebacks = false
            let error = luaError { try runtime.run("require('coordinator').screen 'S' { inputs = { 'items' }, outputs = { \(output) } }", name: "=app") }
            #expect(error?.message.hasPrefix("app:1: " + message) == true, "\(output): \(error?.message ?? "no error")")
        }
        // Combined with the payload kinds: an item of a list, a secret value.
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.run("""
            require('coordinator').screen 'S' { inputs = { 'items', 'on' }, outputs = {
              pick = { from = 'items', when = function(i) return i.on end },
              pin = { secret = true, when = function(i) return not i.on end } } }
            """, name: "=app")
        let type = try #require(runtime.app.catalog.types["S"])
        #expect(type.output(named: "pick")?.payload == .choice(from: "items"))
        #expect(type.output(named: "pin")?.secret == .whole)
        #expect(Set(type.conditions.keys) == ["pick", "pin"])
    }
}
