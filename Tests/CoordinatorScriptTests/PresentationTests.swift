import Testing
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// Modals as iOS presents them: a style, a modal the user cannot swipe away, a sheet's detents. What the
/// user cannot do, nothing that acts as the user does; the app's own code still dismisses.
@Suite struct PresentationTests {
    static func runtime() throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(driverFunctions: true)
        runtime.lua.tracebacks = false
        try runtime.run("""
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "cover", "sheet", "terms" } }
            flow.screen "Onboarding" { outputs = { "next", "close" } }
            flow.screen "Terms" { outputs = { "accept" } }
            local Onboarding = flow.coordinator "Onboarding"
            function Onboarding:start()
              local page = self:push("Onboarding")
              page.onNext = function() self:push("Onboarding").onClose = function() self:finish() end end
              page.onClose = function() self:finish() end
            end
            local Home = flow.coordinator "Home"
            function Home:start()
              homeFlow = self
              local home = self:push("Home")
              home.onCover = function() self:run(Onboarding, nil, { modal = true, presentation = "fullScreen" }) end
              home.onSheet = function() self:run(Onboarding, nil, { modal = true, detents = { "medium", "large" } }) end
              home.onTerms = function()
                self:present("Terms", nil, { dismissable = false }).onAccept = function() self:dismiss() end
              end
            end
            flow.app(Home)
            """, name: "=app")
        try runtime.start()
        return runtime
    }

    @Test func aModalTheUserCannotSwipeAwayIsNeverSwipedAway() throws {
        let runtime = try Self.runtime()
        let app = runtime.app
        try app.tap("cover")
        #expect(app.window.hierarchyDescription.contains("modal 1: (fullScreen) NavigationStack"), "\(app.window.hierarchyDescription)")
        for step in ["dismiss()", "back()"] {
            let error = luaError { try runtime.run(step, name: "=user") }
            #expect(error?.message == "user:1: Onboarding cannot be swiped away: it covers the screen (presentation = \"fullScreen\"); its flow dismisses it", "\(step)")
            #expect(app.window.modals.count == 1)
        }
        try app.tap("next")
        try app.back() // back inside the modal's own stack is the Back button, not a swipe
        try app.tap("close")
        #expect(app.window.modals.isEmpty)

        try app.tap("terms")
        #expect(app.window.hierarchyDescription.contains("modal 1: (pageSheet, not dismissable) Terms"), "\(app.window.hierarchyDescription)")
        #expect(navigationError { try app.dismiss() }?.code == .notDismissable)
        try app.tap("accept") // the app's own dismiss works
        #expect(app.window.modals.isEmpty)

        try app.tap("sheet")
        #expect(app.window.hierarchyDescription.contains("modal 1: (pageSheet, detents medium/large) NavigationStack"))
        try app.dismiss() // a sheet the user may swipe away
        #expect(app.window.modals.isEmpty)
    }

    /// How a modal is presented is part of the app's state: in its snapshot (and so in the identity
    /// exploration tells states apart by), and back after a restore.
    @Test func thePresentationIsPartOfTheState() throws {
        let runtime = try Self.runtime()
        try runtime.app.tap("cover")
        let json = try runtime.snapshot()
        let document = try FlowValue(json: json)
        #expect(document["window"]?["modals"]?.listValue?.first?["presentation"]?["style"] == "fullScreen", "\(json)")
        let fresh = try Self.runtime()
        try fresh.restore(json)
        #expect(fresh.app.window.modals.last?.presentation.style == .fullScreen)
        let cover = try runtime.stateIdentity()
        try runtime.restore(try Self.runtime().snapshot())
        try runtime.app.tap("sheet")
        #expect(try runtime.stateIdentity() != cover)
    }

    @Test func aPresentationThatIsNotOneIsAnError() throws {
        let runtime = try Self.runtime()
        try runtime.run("P = require('coordinator').coordinator 'P' function P:start() self:push('Home') end")
        let before = runtime.app.stateDescription
        for (code, message) in [
            ("present('Terms', nil, { presentation = 'sideways' })", "no presentation 'sideways' (presentations: pageSheet, formSheet, fullScreen, popover)"),
            ("present('Terms', nil, { presentation = 'fullScreen', detents = { 'medium' } })", "detents are a sheet's (pageSheet, formSheet), not a fullScreen's"),
            ("present('Terms', nil, { detents = { 'tall' } })", "no detent 'tall' (detents: medium, large)"),
            ("run(P, nil, { presentation = 'formSheet' })", "run's presentation and transition options are for a modal flow: add modal = true"),
            ("run(P, nil, { transition = 'fade' })", "run's presentation and transition options are for a modal flow: add modal = true"),
            ("push('Terms', nil, { transition = '' })", "a transition is named by a non-empty one-line string (transition = \"zoom\")"),
            ("push('Terms', nil, { transition = {} })", "push's option 'transition': string expected, got table"),
        ] {
            let error = luaError { try runtime.run("homeFlow:" + code, name: "=line") }
            #expect(error?.message == "line:1: " + message, "\(code): \(error?.message ?? "no error")")
            #expect(runtime.app.stateDescription == before)
        }
    }
}

/// `animated = false` and `transition = NAME` are what a flow tells its host about how to animate: kept as
/// data for the host's router, and shown in the event log, never dropped.
@Suite struct TransitionOptionTests {
    @Test func aNamedTransitionReachesTheHostsRouterAndTheEvents() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.run("""
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "open" } }
            flow.screen "Detail" {}
            local Sheet = flow.coordinator "Sheet"
            function Sheet:start() self:push("Detail") end
            local Home = flow.coordinator "Home"
            function Home:start()
              self:push("Home").onOpen = function()
                self:push("Detail", nil, { transition = "zoom", animated = false })
                self:present("Detail", nil, { transition = "fade" })
                self:dismiss()
                self:run(Sheet, nil, { modal = true, presentation = "formSheet", transition = "slide" })
              end
            end
            flow.app(Home)
            """, name: "=app")
        let log = RecordingRouter.Log()
        try runtime.start { app in RecordingRouter(app.headlessRouter(), log: log) }
        var events: [String] = []
        _ = runtime.app.observe { events.append($0.description.replacing(/#\d+/, with: "")) }
        try runtime.app.tap("open")
        #expect(log.lines == ["Home: push Home", "Home: push Detail (zoom) unanimated", "Home: present Detail (fade)", "Home: dismiss",
                              "Home: present NavigationStack[] (formSheet, slide)", "Sheet: push Detail"], "\(log.lines)")
        #expect(events.contains("push Detail (not animated, zoom)"), "\(events)")
        #expect(events.contains("present Detail (fade)"))
        #expect(events.contains("present NavigationStack[] (formSheet, slide)"))
    }
}

private func navigationError(_ body: () throws -> Void) -> NavigationError? {
    do { try body() } catch let error as NavigationError { return error } catch { return nil }
    return nil
}
