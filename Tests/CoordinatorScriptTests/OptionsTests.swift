import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// Every options table the coordinator methods take is checked by name, as screens, routes and handlers
/// are: a misspelt or unknown option is an error naming the ones there are, never ignored; and the app is
/// as it was.
@Suite struct OptionsTests {
    static func runtime() throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(driverFunctions: true)
        runtime.lua.tracebacks = false
        try runtime.run("""
            local flow = require "coordinator"
            flow.screen "A" { outputs = { "go" } }
            Child = flow.coordinator "Child"
            function Child:start() self:push("A") end
            Tab = flow.coordinator "Tab"
            function Tab:start() self:push("A") end
            local Root = flow.coordinator "Root"
            function Root:start() root = self self:push("A") end
            flow.app(Root)
            """, name: "=app")
        try runtime.start()
        return runtime
    }

    @Test func anUnknownOptionIsAnErrorNamingTheKnownOnes() throws {
        let runtime = try Self.runtime()
        let before = runtime.app.stateDescription
        for (code, message) in [
            ("root:run(Child, nil, { modl = true })", "run's options have no 'modl' (they take: modal, onFinish, transition, presentation, dismissable, detents)"),
            ("root:run(Child, nil, { onFinsh = print })", "run's options have no 'onFinsh' (they take: modal, onFinish, transition, presentation, dismissable, detents)"),
            ("root:push('A', nil, { animation = false })", "push's options have no 'animation' (they take: animated, transition)"),
            ("root:present('A', nil, { fullScreen = true })", "present's options have no 'fullScreen' (they take: animated, transition, presentation, dismissable, detents)"),
            ("root:setRoot('A', nil, { hidebar = true })", "setRoot's options have no 'hidebar' (they take: hideBar, animated)"),
            ("root:alert { tittle = 'Hi' }", "an alert's fields have no 'tittle' (they take: title, message, actions, style)"),
            ("root:setTabs { { 'One', Tab, title = 'x' } }", "a tab's entries have no 'title' (they take: \"Title\", Class [, args], in that order; or \"Title\", action = function)"),
            ("root:push('A', nil, true)", "bad argument #3 to 'push' (options are a table)"),
            ("root:alert { title = 'Hi', style = 'popup' }", "no alert style 'popup' (styles: alert, actionSheet)"),
            ("root:alert { title = 'Hi', actions = { { 'No', style = 'bold' } } }", "no action style 'bold' (styles: default, cancel, destructive)"),
            ("root:alert { title = 'Hi', actions = { { 'No', style = 'cancel' }, { 'Never', style = 'cancel' } } }", "an alert has at most one cancel action, not 2 (No, Never)"),
            ("root:push('A', nil, { animated = 'no' })", "push's option 'animated': boolean expected, got string"),
            ("root:run(Child, nil, { modal = 1 })", "run's option 'modal': boolean expected, got number"),
        ] {
            let error = luaError { try runtime.run(code, name: "=line") }
            #expect(error?.message == "line:1: " + message, "\(code): \(error?.message ?? "no error")")
            #expect(runtime.app.stateDescription == before, "\(code)")
        }
        // The options they take work as before.
        try runtime.run("root:run(Child, nil, { modal = true, onFinish = function() end }) root:push('A', nil, { animated = false })")
        #expect(runtime.app.window.modals.count == 1)
        try runtime.run("root:alert { title = 'Share', style = 'actionSheet', actions = { 'Copy', { 'Delete', function() end, style = 'destructive' }, { 'Cancel', style = 'cancel' } } }")
        #expect(runtime.app.window.visibleScreen?["style"] == "actionSheet")
        #expect(runtime.app.window.visibleScreen?["cancel"] == "Cancel" && runtime.app.window.visibleScreen?["destructive"] == .list(["Delete"]))
    }
}
