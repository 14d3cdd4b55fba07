import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// Several windows of one app (an iPad's scenes): each its own root flow under one gateway, storage and
/// clock; events reach every window, a signal with `windows = "all"` every window's tree; a flow acts in
/// its own window whichever is current; snapshots keep them.
@Suite struct WindowTests {
    static let app = """
        local flow = require "coordinator"
        flow.event "lock" {}
        flow.screen "Login" { outputs = { "login" } }
        flow.screen "Home" { inputs = { "private" }, outputs = { "private", "broadcast", "local", "sheet", "broken", "signOut" } }
        flow.screen "Sheet" {}
        local Login = flow.coordinator "Login"
        function Login:start() self:push("Login").onLogin = function() flow.gateway.state = "main" self:finish() end end
        local Home = flow.coordinator "Home"
        function Home:start()
          local home = self:push("Home", { private = false })
          home.onPrivate = function() home.private = true end
          home.onBroadcast = function() self:send("clear", nil, { windows = "all" }) end
          home.onLocal = function() self:send("clear") end
          home.onSheet = function() self:present("Sheet") end
          home.onBroken = function() self:present("Sheet") error("broken") end
          home.onSignOut = function() flow.gateway.state = "authorization" self:finish() end
          self:onSignal("clear", function() home.private = false end)
          self:onEvent("lock", function() self:present("Sheet") end)
        end
        flow.app { authorization = Login, main = Home }
        """

    static func runtime(_ state: String = "main") throws -> ScriptRuntime { try startedAppFile(app, state: state, idiom: .pad) }

    func stack(_ runtime: ScriptRuntime, _ number: Int? = nil) -> [String] {
        (number.flatMap { runtime.app.windows.window(numbered: $0) } ?? runtime.app.window).visibleStack.map(\.name)
    }

    @Test func eachWindowRunsItsOwnRootFlowAndNumbersAreNeverReused() throws {
        let runtime = try Self.runtime()
        let app = runtime.app
        try runtime.run("tap('private') openWindow()", name: "=test")
        #expect(app.windows.all.map(\.number) == [1, 2] && app.window.number == 2)
        #expect(app.window.visibleScreen?["private"] == false, "a root flow of its own")
        #expect(app.roots.count == 2 && app.roots[0] !== app.roots[1])
        try runtime.run("window(1)", name: "=test")
        #expect(app.window.visibleScreen?["private"] == true)
        try runtime.run("closeWindow(2) openWindow()", name: "=test")
        #expect(app.windows.all.map(\.number) == [1, 3])
        #expect(app.steps.suffix(4) == [.openWindow, .selectWindow(1), .closeWindow(2), .openWindow])
        #expect(try runtime.lua.evaluate("return #windows(), window()", as: LuaValue.self) == .integer(2))
        let before = try runtime.snapshot()
        for (line, message) in [("window(2)", "there is no window 2 (windows: 1, 3)"), ("closeWindow(1) closeWindow(3)", "window 3 is the only one open"),
                                ("window(0)", "a window's number")] {
            let error = #expect(throws: (any Error).self) { try runtime.run(line, name: "=test") }
            #expect("\(error.map { "\($0)" } ?? "")".contains(message), "\(line): \(error.map { "\($0)" } ?? "")")
            #expect(try runtime.snapshot() == before, "\(line) left the app as it was")
        }
    }

    @Test func eventsReachEveryWindowAndAFlowActsInItsOwn() throws {
        let runtime = try Self.runtime()
        try runtime.run("openWindow() window(1)", name: "=test")
        try runtime.app.send(event: "lock")
        #expect(stack(runtime, 1) == ["Home", "Sheet"] && stack(runtime, 2) == ["Home", "Sheet"])
        #expect(runtime.app.window.number == 1)
        // A step that fails in one window leaves both as they were.
        try runtime.run("dismiss() window(2) dismiss()", name: "=test")
        let before = try runtime.snapshot()
        #expect(throws: LuaError.self) { try runtime.run("tap('broken')", name: "=test") }
        #expect(try runtime.snapshot() == before)
    }

    @Test func aSignalToEveryWindowReachesEveryTreeAndAPlainOneItsOwn() throws {
        let runtime = try Self.runtime()
        // The sender does not hear its own signal: window 2's flow sends, window 1's may hear.
        try runtime.run("tap('private') openWindow()", name: "=test")
        func privates() -> [FlowValue?] { runtime.app.windows.all.map { $0.visibleScreen?["private"] } }
        try runtime.app.tap("local")
        #expect(privates() == [true, false], "a plain signal stays in its window's tree")
        try runtime.app.tap("broadcast")
        #expect(privates() == [false, false])
        #expect(throws: LuaError.self) { try runtime.lua.run("require('coordinator').coordinator('Home').send(nil)") }
    }

    @Test func aGatewayChangeRestartsEveryWindowsRootFlow() throws {
        let runtime = try Self.runtime("authorization")
        try runtime.run("openWindow()", name: "=test")
        #expect(stack(runtime, 1) == ["Login"] && stack(runtime, 2) == ["Login"])
        try runtime.app.tap("login")
        #expect(stack(runtime, 1) == ["Home"] && stack(runtime, 2) == ["Home"], "signed in in window 2: window 1 follows")
        try runtime.run("window(1) tap('signOut')", name: "=test")
        #expect(stack(runtime, 1) == ["Login"] && stack(runtime, 2) == ["Login"])
    }

    @Test func aPhoneShowsOneWindow() throws {
        let phone = try startedAppFile(Self.app, state: "main")
        let error = #expect(throws: NavigationError.self) { try phone.app.perform(.openWindow) }
        #expect(error?.code == .badWindow && error?.message.contains("a phone shows one window") == true, "\(error?.message ?? "")")
        #expect(phone.app.windows.all.count == 1)
    }

    @Test func aSnapshotKeepsTheWindowsAndARestoreRebuildsThem() throws {
        let runtime = try Self.runtime()
        let one = try runtime.snapshot()
        #expect(try FlowValue(json: one)["windows"] == nil, "one window: no list")
        let key = try runtime.stateIdentity().key
        try runtime.run("openWindow() tap('sheet') window(1) tap('private')", name: "=test")
        let snapshot = try runtime.snapshot()
        let document = try FlowValue(json: snapshot)
        #expect(document["windows"]?.listValue?.first?["number"] == 2)
        #expect(document["windows"]?.listValue?.first?["modals"]?.listValue?.count == 1)
        #expect(document["currentWindow"] == 1)
        #expect(try runtime.stateIdentity().key != key)
        let fresh = try Self.runtime()
        try fresh.restore(snapshot)
        #expect(try fresh.snapshot() == snapshot)
        #expect(stack(fresh, 2) == ["Home", "Sheet"] && fresh.app.window.number == 1)
        // A restart of the app is one window again, numbered 1.
        try fresh.restore(one)
        #expect(fresh.app.windows.all.map(\.number) == [1])
        try fresh.run("openWindow()", name: "=test")
        #expect(fresh.app.window.number == 2)
    }
}
