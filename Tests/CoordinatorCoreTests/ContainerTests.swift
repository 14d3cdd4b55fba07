import Testing
import CoordinatorCore

@Suite struct ContainerTests {
    @Test func aModalHoldsItsOwnNavigationStack() throws {
        let (app, root) = try Application.simple()
        try root.push("A")
        let modal = ScriptCoordinator("Modal") { try $0.push("B") }
        try root.run(modal, modal: true)
        try modal.push("C")
        #expect(app.names == ["A", "B", "C"])
        #expect(app.window.modals.count == 1)
        // Pushing with the parent's router while the modal is up goes under it, as in UIKit.
        try root.push("D")
        #expect(app.window.visibleScreen?.name == "C")
        #expect(app.names == ["A", "D", "B", "C"])
        // Back pops inside the modal, then swipes it down; the modal flow finishes by itself.
        try app.back()
        #expect(app.names == ["A", "D", "B"])
        var reason: FinishReason?
        modal.onFinish = { _, why in reason = why }
        try app.back()
        #expect(app.names == ["A", "D"])
        #expect(reason == .systemBack)
        #expect(modal.status == .finished)
        #expect(root.children.isEmpty)
    }

    @Test func finishingAModalFlowDismissesItsModal() throws {
        let (app, root) = try Application.simple()
        try root.push("A")
        let modal = ScriptCoordinator("Modal") { try $0.push("B") }
        try root.run(modal, modal: true)
        try modal.finish()
        #expect(app.window.modals.isEmpty)
        #expect(app.names == ["A"])
    }

    @Test func presentingAndDismissingScreens() throws {
        let (app, root) = try Application.simple()
        try root.push("A")
        try root.present(app.catalog.make("B"))
        try root.present(app.catalog.make("C"))
        #expect(app.names == ["A", "B", "C"])
        try root.dismiss()
        #expect(app.names == ["A", "B"])
        try app.back() // swipe down
        #expect(app.names == ["A"])
        #expect(navigationError { try root.dismiss() }?.code == .nothingPresented)
    }

    @Test func tabsHoldTheirOwnStacks() throws {
        let (app, root) = try Application.simple()
        let feed = ScriptCoordinator("Feed") { try $0.push("A") }
        let profile = ScriptCoordinator("Profile") { try $0.push("B") }
        let tabs = try root.setTabs(["Feed", "Profile"], for: [feed, profile])
        try root.run(feed)
        try root.run(profile)
        #expect(app.names == ["A"])
        try feed.push("C")
        #expect(app.names == ["A", "C"])
        try app.selectTab(1)
        #expect(app.names == ["B"])
        #expect(tabs.selectedIndex == 1)
        try profile.push("D")
        try app.back()
        #expect(app.names == ["B"])
        #expect(navigationError { try app.back() }?.code == .nothingToGoBack)
        try app.selectTab(0)
        #expect(app.names == ["A", "C"])
        #expect(navigationError { try app.selectTab(5) }?.message == "there is no tab 6 (tabs: Feed, Profile)")
        #expect(app.window.hierarchyDescription == """
            root: Tabs
              tab Feed: NavigationStack (selected)
                A#\(feed.screens[0].id)
                C#\(feed.screens[1].id)
              tab Profile: NavigationStack
                B#\(profile.screens[0].id)
            """)
    }

    /// The coordinator that set the tabs selects one (by index or title) and sets badges, as its tabs' flows
    /// may; a badge set in an operation that fails goes back with it.
    @Test func theOwnerOfTheTabsSelectsThemAndSetsBadges() throws {
        let (app, root) = try Application.simple()
        let feed = ScriptCoordinator("Feed") { try $0.push("A") }
        let cart = ScriptCoordinator("Cart") { try $0.push("B") }
        let tabs = try root.setTabs(["Feed", "Cart"], for: [feed, cart])
        try root.run(feed)
        try root.run(cart)
        try root.selectTab(titled: "Cart")
        #expect(tabs.selectedIndex == 1 && app.names == ["B"])
        try root.selectTab(0)
        try root.setBadge(3, onTab: 1)
        try feed.setBadge("new", onTab: 0) // a tab's own flow may too
        #expect(tabs.badges == ["new", 3] && tabs.label(ofTab: 1) == "Cart (3)")
        #expect(app.window.hierarchyDescription.contains("  tab Cart (3): NavigationStack"))
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try app.atomically {
                try root.setBadge(nil, onTab: 1)
                try root.selectTab(titled: "Cart")
                throw Refused()
            }
        }
        #expect(tabs.badges == ["new", 3] && tabs.selectedIndex == 0)
        #expect(navigationError { try root.selectTab(titled: "Nope") }?.message == "there is no tab titled 'Nope' (tabs: Feed, Cart)")
        #expect(navigationError { try root.setBadge(1, onTab: 2) }?.code == .badTab)
        let outsider = ScriptCoordinator("Outsider") { _ in }
        try root.run(outsider)
        #expect(navigationError { try outsider.selectTab(0) }?.code == .badTab)
    }

    /// dismiss(): the swipe-down of the whole top modal, its stack included; its flow finishes by the system.
    @Test func dismissSwipesAWholeModalAway() throws {
        let (app, root) = try Application.simple()
        try root.push("A")
        var reason: FinishReason?
        let modal = ScriptCoordinator("Modal") { try $0.push("B"); try $0.push("C") }
        modal.onFinish = { _, why in reason = why }
        try root.run(modal, modal: true)
        #expect(app.names == ["A", "B", "C"])
        try app.dismiss()
        #expect(app.names == ["A"] && reason == .systemBack && modal.status == .finished)
        #expect(app.steps == [.dismiss])
        #expect(navigationError { try app.dismiss() }?.code == .nothingPresented)
        try root.alert(title: "Sure?")
        #expect(navigationError { try app.dismiss() }?.code == .alertNeedsAction)
    }

    /// The steps record what the user did in operations that succeeded, up to a limit that bounds memory.
    @Test func stepsRecordWhatTheUserDidWithinALimit() throws {
        let (app, root) = try Application.simple()
        try root.push("A")
        let modal = ScriptCoordinator("Modal") { try $0.push("B") }
        try root.run(modal, modal: true)
        try app.back()
        #expect(navigationError { try app.back() }?.code == .nothingToGoBack)
        #expect(navigationError { try app.tap("nope") } != nil)
        #expect(app.steps == [.back]) // failed steps leave no trace
        struct Refused: Error {}
        #expect(throws: Refused.self) { try app.atomically { try root.push("C"); try app.back(); throw Refused() } }
        #expect(app.steps == [.back])
        app.maximumSteps = 2
        try root.push("C"); try app.back()
        try root.push("C"); try app.back()
        #expect(app.steps == [.back, .back] && app.stepsOverflowed)
    }

    @Test func alertsAreScreensWhoseOutputsAreTheirActions() throws {
        let (app, root) = try Application.simple()
        try root.push("A")
        var chosen: [String] = []
        try root.alert(title: "Delete?", message: "It cannot be undone", actions: [
            ("Delete", { chosen.append("delete: \(app.names)") }), ("Cancel", nil),
        ])
        #expect(app.names == ["A", "Alert"])
        #expect(try app.window.visibleScreen?.render() == "Delete?\nIt cannot be undone")
        #expect(app.window.visibleScreen?.outputs.map(\.name) == ["Delete", "Cancel"])
        #expect(navigationError { try app.back() }?.message == "an alert is showing: choose one of its actions (Delete, Cancel)")
        try app.tap("Delete")
        #expect(chosen == ["delete: [\"A\"]"]) // dismissed before the handler ran
    }

    /// An alert's action roles are its inputs, for hosts to draw (a cancel action bold and apart, a
    /// destructive one red); a role for an action it does not have, or a second cancel, is refused and shows
    /// nothing.
    @Test func anAlertsActionRolesAreSaidToHosts() throws {
        let (app, root) = try Application.simple()
        try root.push("A")
        let alert = try root.alert(title: "Delete?", actions: [("Delete", nil), ("Archive", nil), ("Cancel", nil)],
                                   roles: ["Cancel": .cancel, "Delete": .destructive, "Archive": .default])
        #expect(alert["cancel"] == .string("Cancel") && alert["destructive"] == .list([.string("Delete")]))
        try app.tap("Cancel")
        let unknown = navigationError { try root.alert(title: "Sure?", actions: [("OK", nil)], roles: ["Nope": .cancel]) }
        #expect(unknown?.code == .badAlertRole && unknown?.message == "the alert has no action 'Nope' to give a role (actions: OK)")
        let twice = navigationError { try root.alert(title: "Sure?", actions: [("No", nil), ("Never", nil)], roles: ["No": .cancel, "Never": .cancel]) }
        #expect(twice?.message == "an alert has at most one cancel action, not 2 (No, Never)")
        #expect(app.names == ["A"])
    }

    @Test func parentNavigationThatRemovesAChildsScreensFinishesTheChild() throws {
        let (app, root) = try Application.simple()
        try root.push("A")
        let child = ScriptCoordinator("Child") { try $0.push("B"); try $0.push("C") }
        var reason: FinishReason?
        child.onFinish = { _, why in reason = why }
        try root.run(child)
        try root.popToRoot()
        #expect(app.names == ["A"])
        #expect(child.status == .finished)
        #expect(reason == .screensRemoved)
        // A coordinator that pops its own last screen stays in control while it acts (it may push again
        // or finish), but it cannot stay alive without screens once the operation is over.
        let own = ScriptCoordinator("Own") { try $0.push("B") }
        try root.run(own)
        try app.atomically {
            try own.pop()
            #expect(own.isRunning)
            try own.push("C")
        }
        #expect(own.isRunning)
        try own.pop()
        #expect(own.status == .finished)
    }

    @Test func aScreenlessFlowWhoseChildWentBackFinishesToo() throws {
        let (app, root) = try Application.simple()
        try root.push("A")
        let flow = ScriptCoordinator("Flow") { try $0.run(ScriptCoordinator("Leaf") { try $0.push("B") }) }
        try root.run(flow)
        try app.back()
        #expect(flow.status == .finished)
        #expect(root.children.isEmpty)
        // A coordinator without screens (a microservice) is never finished for lack of screens.
        let storage = Coordinator(name: "Storage")
        try root.run(storage)
        try root.push("C")
        try app.back()
        #expect(storage.isRunning)
    }
}

@Suite struct ScreenTests {
    @Test func inputsOutputsAndRendering() throws {
        let (app, root) = try Application.simple()
        let screen = try root.push("A", inputs: ["value": 1])
        #expect(try screen.render() == "value: 1")
        #expect(screen.renderCount == 0)
        try screen.set("value", to: 2)
        #expect(screen.renderCount == 1)
        #expect(screen["value"] == 2)
        #expect(navigationError { try screen.set("colour", to: 1) }?.code == .unknownInput)
        var got: FlowValue?
        try screen.on("done") { got = $0 }
        try app.tap("done", payload: ["x": 1])
        #expect(got == ["x": 1])
        #expect(navigationError { try screen.on("nope") { _ in } }?.code == .unknownOutput)
    }

    @Test func choicePayloadsMustComeFromTheirList() throws {
        let (app, root) = SourceApp.make(state: .main)
        try app.start(root)
        try app.tap("selectCity")
        let error = navigationError { try app.tap("citySelected", payload: ["name": "Paris"]) }
        #expect(error?.message == "output 'citySelected' of Regions takes one of the items of 'federal': Moscow, Saint Petersburg")
        #expect(app.names == ["UserEdit", "Regions"])
    }

    @Test func requiredInputs() throws {
        let (app, _) = SourceApp.make()
        #expect(navigationError { _ = try app.catalog.make("Cities") }?.message == "screen Cities needs input 'cities'")
    }

    @Test func factoriesChooseVariantsTheCoordinatorNeverSees() throws {
        let app = Application()
        app.catalog.register(ScreenType("CityList", inputs: ["cities"], outputs: [OutputSpec("citySelected", payload: .value)]))
        app.catalog.register(ScreenType("CityMap", inputs: ["cities"], outputs: [OutputSpec("citySelected", payload: .value)]))
        var useMap = false
        app.catalog.factory("CityPicker") { _ in useMap ? "CityMap" : "CityList" }
        #expect(try app.catalog.make("CityPicker").name == "CityList")
        useMap = true
        #expect(try app.catalog.make("CityPicker").name == "CityMap")
        app.catalog.factory("Broken") { _ in "Nowhere" }
        #expect(navigationError { _ = try app.catalog.make("Broken") }?.message == "unknown screen 'Nowhere' (chosen by factory 'Broken'); known screens: CityList, CityMap")
        #expect(app.catalog.names == ["CityList", "CityMap"])
    }

    @Test func redefiningATypeChangesItsLiveScreens() throws {
        let (app, root) = try Application.simple()
        let screen = try root.push("A", inputs: ["value": 1])
        app.catalog.register(ScreenType("A", inputs: ["value", "extra"], outputs: [OutputSpec("next"), OutputSpec("more")]) { _ in "new look" })
        #expect(try screen.render() == "new look")
        try screen.set("extra", to: true)
        #expect(screen.outputs.map(\.name) == ["next", "more"])
    }

    @Test func dataBackThroughTheStackReachesEveryScreenThatDeclaresIt() throws {
        // Multi-select: choosing a city on screen 3 updates the counts on screens 1 and 2 at once.
        let app = Application()
        app.catalog.register(ScreenType("Profile", inputs: ["chosen"]))
        app.catalog.register(ScreenType("Regions", inputs: ["chosen", "regions"]))
        app.catalog.register(ScreenType("Cities", inputs: ["cities"], outputs: [OutputSpec("toggle", payload: .value)]))
        app.catalog.register(ScreenType("Other", inputs: ["unrelated"]))
        let root = ScriptCoordinator("Root") { root in
            try root.push("Profile", inputs: ["chosen": []])
            try root.push("Regions", inputs: ["chosen": []])
            var chosen: [FlowValue] = []
            let cities = try root.push("Cities", inputs: ["cities": ["Ulyanovsk", "Dimitrovgrad"]])
            try cities.on("toggle") { city in
                if let city { chosen.append(city) }
                let updated = try app.update("chosen", to: .list(chosen))
                #expect(updated == 3 - 1) // Profile and Regions; Cities does not declare it
            }
            try root.present(app.catalog.make("Other"))
        }
        try app.start(root)
        try root.dismiss()
        try app.tap("toggle", payload: "Ulyanovsk")
        try app.tap("toggle", payload: "Dimitrovgrad")
        let screens = app.window.allScreens
        #expect(screens[0]["chosen"] == ["Ulyanovsk", "Dimitrovgrad"])
        #expect(screens[1]["chosen"] == ["Ulyanovsk", "Dimitrovgrad"])
        #expect(screens[0].renderCount == 2 && screens[1].renderCount == 2)
    }
}

@Suite struct SignalTests {
    @Test func aSignalReachesEveryNodeOnceAndCanBeChangedAndAnswered() throws {
        // The notes app: the new-note screen only sends; the list adds; storage (no screens) saves.
        let (app, root) = try Application.simple()
        var saved: [FlowValue] = []
        var listed: [FlowValue] = []
        let storage = Coordinator(name: "Storage")
        let notes = ScriptCoordinator("Notes") { notes in
            let list = try notes.push("A")
            list.onSignal("noteCreated") { signal in
                listed.append(signal.payload ?? "")
                signal.payload = signal.payload?.with("listed", true)
            }
        }
        let editor = ScriptCoordinator("Editor") { try $0.push("B") }
        try root.run(storage)
        storage.onSignal("noteCreated") { signal in
            saved.append(signal.payload ?? "")
            signal.reply("saved")
        }
        try root.run(notes)
        try notes.run(editor)
        let signal = try editor.screens[0].send("noteCreated", payload: ["text": "milk"])
        #expect(listed == [["text": "milk"]])
        #expect(saved == [["text": "milk", "listed": true]]) // the list changed it before it travelled on
        #expect(signal.replies == ["saved"])
        #expect(signal.receivers.count == 2)
        _ = app
    }

    @Test func isolationLimitsWhichChildrenReceive() throws {
        let (app, root) = try Application.simple()
        defer { _ = app }
        var reached: [String] = []
        let children = ["One", "Two", "Three"].map { name in
            let c = Coordinator(name: name)
            c.onSignal("ping") { _ in reached.append(name) }
            return c
        }
        for c in children { try root.run(c) }
        root.signalIsolation = .only([children[1]])
        try root.send("ping")
        #expect(reached == ["Two"])
        root.signalIsolation = .open
        reached = []
        try children[0].send("ping")
        #expect(reached == ["Two", "Three"]) // not the sender itself
    }

    @Test func aReceiverCanStopASignal() throws {
        let (app, root) = try Application.simple()
        defer { _ = app }
        var reached: [String] = []
        for name in ["One", "Two"] {
            let c = Coordinator(name: name)
            c.onSignal("ping") { signal in reached.append(name); signal.stop() }
            try root.run(c)
        }
        let signal = try root.send("ping")
        #expect(reached == ["One"])
        #expect(signal.isStopped)
    }
}

@Suite struct GatewayTests {
    @Test func theApplicationCoordinatorFollowsTheGateway() throws {
        let app = Application(state: "onboarding")
        app.catalog.register(ScreenType("Welcome", outputs: [OutputSpec("next")]))
        app.catalog.register(ScreenType("Home"))
        let root = ApplicationCoordinator(name: "App")
        root.flows["onboarding"] = {
            ScriptCoordinator("Onboarding") { c in
                try c.push("Welcome").on("next") { _ in
                    c.app?.gateway.state = .main
                    try c.finish()
                }
            }
        }
        root.flows[.main] = { ScriptCoordinator("Main") { try $0.push("Home") } }
        var events: [String] = []
        app.observe { events.append($0.description) }
        try app.start(root)
        #expect(app.names == ["Welcome"])
        try app.tap("next")
        #expect(app.names == ["Home"])
        #expect(app.treeNames == ["App", "Main"])
        #expect(events.contains("gateway onboarding -> main"))
        app.gateway.state = .authorization
        #expect(navigationError { try root.restart() }?.message == "App has no flow for the gateway state 'authorization' (flows: main, onboarding)")
        #expect(app.names == ["Home"])
    }
}

@Suite struct ScreenLeftTests {
    @Test func theOwnerLearnsWhichScreensLeftAndHow() throws {
        let (app, root) = try Application.simple()
        try root.push("A")
        var left: [String] = []
        let flow = ScriptCoordinator("Flow") { flow in
            try flow.push("B")
            try flow.push("C")
            try flow.push("D")
        }
        flow.onScreenLeft = { screen, bySystem in left.append("\(screen.name):\(bySystem ? "system" : "code")") }
        try root.run(flow)
        try app.back()
        try flow.pop()
        #expect(left == ["D:system", "C:code"])
        try app.back()
        #expect(left == ["D:system", "C:code", "B:system"])
        #expect(flow.status == .finished)
    }
}
