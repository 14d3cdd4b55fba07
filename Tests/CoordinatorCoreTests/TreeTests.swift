import Testing
import CoordinatorCore

@Suite struct TreeTests {
    @Test func childrenAreAddedOnceAndKnowTheirParent() throws {
        let parent = Coordinator(name: "P")
        let child = Coordinator(name: "C")
        try parent.addChild(child)
        try parent.addChild(child)
        #expect(parent.children.count == 1)
        #expect(child.parent === parent)
        #expect(navigationError { try child.addChild(parent) }?.code == .cycle)
        #expect(navigationError { try child.addChild(child) }?.code == .cycle)
        let grandchild = Coordinator(name: "G")
        try child.addChild(grandchild)
        #expect(navigationError { try grandchild.addChild(parent) }?.code == .cycle)
        #expect(navigationError { try Coordinator(name: "Other").addChild(child) }?.code == .alreadyHasParent)
        parent.removeChild(child)
        #expect(child.parent == nil)
        #expect(parent.children.isEmpty)
        #expect(child.children.count == 1) // the subtree goes with it
    }

    @Test func finishingOrdersChildrenFirstAndHandsTheResultUp() throws {
        let (app, root) = try Application.simple()
        var log: [String] = []
        app.observe { event in if case .finished(let c, let reason, _) = event { log.append("\(c.name):\(reason.rawValue)") } }
        let flow = ScriptCoordinator("Flow") { try $0.push("A") }
        let inner = ScriptCoordinator("Inner") { try $0.push("B") }
        var received: FlowValue?
        flow.onFinish = { result, _ in received = result }
        try root.run(flow)
        try flow.run(inner)
        #expect(app.names == ["A", "B"])
        try flow.finish("done")
        #expect(log == ["Inner:parentFinished", "Flow:finished"])
        #expect(received == "done")
        #expect(app.names == [])
        #expect(root.children.isEmpty)
        #expect(flow.parent == nil && inner.status == .finished)
    }

    @Test func finishingTwiceIsAnErrorAndChangesNothing() throws {
        let (app, root) = try Application.simple()
        let flow = ScriptCoordinator("Flow") { try $0.push("A") }
        try root.run(flow)
        try flow.finish()
        let before = snapshot(app)
        let error = navigationError { try flow.finish() }
        #expect(error?.code == .alreadyFinished)
        #expect(error?.message == "Flow has already finished")
        #expect(snapshot(app) == before)
    }

    @Test func aFinishedCoordinatorRefusesToNavigate() throws {
        let (app, root) = try Application.simple()
        let flow = ScriptCoordinator("Flow") { try $0.push("A") }
        try root.run(flow)
        try flow.finish()
        let before = snapshot(app)
        #expect(navigationError { try flow.push("B") }?.message == "Flow has finished; it cannot navigate")
        #expect(navigationError { try flow.push(app.catalog.make("B")) }?.code == .alreadyFinished)
        #expect(navigationError { try flow.run(Coordinator(name: "X")) }?.code == .alreadyFinished)
        #expect(snapshot(app) == before)
        #expect(navigationError { try root.run(flow) }?.code == .alreadyFinished)
    }

    @Test func restartingRunsStartAgainWithoutItsChildren() throws {
        let (app, _) = try Application.simple()
        var starts = 0
        let holder = ScriptCoordinator("Holder") { c in
            starts += 1
            try c.push("A")
            try c.run(ScriptCoordinator("Child") { try $0.push("B") })
        }
        try app.root?.run(holder)
        try holder.restart()
        #expect(starts == 2)
        #expect(app.names == ["A", "B"])
        #expect(holder.children.count == 1)
        #expect(app.live.coordinators == 3)
    }
}

@Suite struct RouterTests {
    @Test func pushPopPopToRootSetRoot() throws {
        let (app, root) = try Application.simple()
        var events: [NavigationEvent] = []
        app.observe { events.append($0) }
        for name in ["A", "B", "C"] { try root.push(app.catalog.make(name)) }
        #expect(app.names == ["A", "B", "C"])
        try root.pop()
        #expect(app.names == ["A", "B"])
        try root.push(app.catalog.make("C"), animated: false, completion: nil)
        try root.popToRoot()
        #expect(app.names == ["A"])
        try root.popToRoot() // nothing above the root: nothing happens
        try root.setRoot(app.catalog.make("D"), hideBar: true, animated: true, completion: nil)
        #expect(app.names == ["D"])
        #expect((app.window.root as? NavigationStack)?.barHidden == true)
        #expect(root.screens.map(\.name) == ["D"])
        #expect(events.map(\.description).contains { $0.hasPrefix("push C#") && $0.hasSuffix("(not animated)") })
        #expect(events.last.map { if case .rootSet(let s, true, true) = $0 { s.name == "D" } else { false } } == true)
    }

    @Test func completionsRunAfterTheirTransitionInOrder() throws {
        let (app, root) = try Application.simple()
        var log: [String] = []
        try root.push(app.catalog.make("A"), animated: true) {
            log.append("A shown: \(app.names)")
            try root.push(app.catalog.make("B"), animated: true) { log.append("B shown: \(app.names)") }
            log.append("after B")
        }
        try root.pop(animated: true) { log.append("popped: \(app.names)") }
        #expect(log == ["A shown: [\"A\"]", "B shown: [\"A\", \"B\"]", "after B", "popped: [\"A\"]"])
    }

    @Test func mistakesAreTypedErrorsThatChangeNothing() throws {
        let (app, root) = try Application.simple()
        try root.push(app.catalog.make("A"))
        let before = snapshot(app)
        var events = 0
        app.observe { _ in events += 1 }
        let popRoot = navigationError { try root.pop() }
        #expect(popRoot?.code == .popRoot)
        #expect(popRoot?.message == "cannot pop A: it is the root of its navigation stack")
        let dismiss = navigationError { try root.dismiss() }
        #expect(dismiss?.message == "nothing is presented, so there is nothing to dismiss")
        let unknown = navigationError { _ = try root.push("Nope") }
        #expect(unknown?.code == .unknownScreen)
        #expect(unknown?.message == "unknown screen 'Nope'; known screens: A, B, C, D, E")
        #expect(navigationError { _ = try root.push("A", inputs: ["colour": "red"]) }?.message == "screen A has no input 'colour' (inputs: value)")
        #expect(navigationError { try app.back() }?.message == "there is nothing to go back to (A is the root screen)")
        #expect(navigationError { try app.tap("missing") }?.message == "screen A has no output 'missing' (outputs: next, done)")
        #expect(navigationError { try app.tap("done") }?.message == "output 'done' of A needs a payload")
        #expect(navigationError { try app.tap("next", payload: 1) }?.message == "output 'next' of A takes no payload")
        let shown = try #require(app.window.visibleScreen)
        #expect(navigationError { try root.push(shown) }?.code == .screenInUse)
        #expect(snapshot(app) == before)
        #expect(events == 0)
    }

    @Test func aFailingHandlerUndoesEverythingItDid() throws {
        let (app, root) = try Application.simple()
        struct Boom: Error {}
        let flow = ScriptCoordinator("Flow") { flow in
            let a = try flow.push("A", inputs: ["value": 1])
            try a.on("next") { _ in
                try a.set("value", to: 2)
                try flow.push("B")
                try flow.run(ScriptCoordinator("Child") { try $0.push("C") })
                app.gateway.state = .main
                try flow.present(app.catalog.make("D"))
                flow.onSignal("x") { _ in }
                throw Boom()
            }
        }
        try root.run(flow)
        let before = snapshot(app)
        var events: [NavigationEvent] = []
        app.observe { events.append($0) }
        #expect(throws: Boom.self) { try app.tap("next") }
        #expect(snapshot(app) == before)
        #expect(events.isEmpty)
        #expect(app.live.coordinators == 2)
        #expect(app.window.visibleScreen?["value"] == 1)
    }

    @Test func aFailingStartLeavesNoTrace() throws {
        let (app, root) = try Application.simple()
        struct Boom: Error {}
        let before = snapshot(app)
        var attempts = 0
        let broken = ScriptCoordinator("Broken") { c in
            attempts += 1
            try c.push("A")
            if attempts == 1 { throw Boom() }
        }
        #expect(throws: Boom.self) { try root.run(broken, modal: true) }
        #expect(snapshot(app) == before)
        #expect(broken.status == .idle && broken.parent == nil)
        try root.run(broken, modal: true) // it can be started again
        #expect(app.names == ["A"])
        #expect(app.window.modals.count == 1)
    }
}

/// Everything recursive over the tree works on a chain 100,000 deep, in linear time.
@Suite struct DeepTreeTests {
    @Test func aChainOfAHundredThousandCoordinatorsRunsListsFinishesAndGoes() throws {
        let depth = 100_000
        var app: Application? = Application()
        weak var bottom: Coordinator?
        do {
            let app = try #require(app)
            app.catalog.register(ScreenType("Leaf", outputs: [OutputSpec("done")]))
            let root = ScriptCoordinator("Root")
            try app.start(root)
            let top = ScriptCoordinator("Top")
            try root.run(top)
            var node: Coordinator = top
            for _ in 1..<depth {
                let child = ScriptCoordinator("Link")
                try node.run(child)
                node = child
            }
            let leaf = try node.push("Leaf")
            try leaf.on("done") { _ in try top.finish("done") }
            bottom = node
            #expect(root.subtree.count == depth + 1)
            #expect(app.live.coordinators == depth + 1)
            // Finishing the top finishes the whole chain below it, children before parents.
            try app.tap("done")
            #expect(root.children.isEmpty)
            #expect(app.window.visibleScreen == nil)
            #expect(app.live.coordinators == 3) // the root, and the two this test holds
            // A second chain stays in the tree when the app goes.
            var second: Coordinator = root
            for _ in 0..<depth {
                let child = ScriptCoordinator("Link")
                try second.run(child)
                second = child
            }
        }
        #expect(bottom == nil)
        app = nil // releases a chain 100,000 deep without nesting a deinitializer per level
        #expect(app == nil)
    }
}

/// The operation log keeps nothing an operation made and dropped.
@Suite struct OperationLogTests {
    @Test func screensAndFlowsMadeAndGoneInsideOneOperationAreReleasedAtOnce() throws {
        let (app, root) = try Application.simple()
        try root.push("A")
        let screensBefore = app.live.screens, coordinatorsBefore = app.live.coordinators
        var midway: (screens: Int, coordinators: Int) = (0, 0)
        try app.atomically {
            for i in 0..<1_000 {
                let flow = ScriptCoordinator("Flow") { try $0.push("B") }
                try root.run(flow)
                try root.push("C")
                try app.back()          // C leaves
                try app.back()          // B leaves: the flow finishes by itself
                if i == 500 { midway = (app.live.screens, app.live.coordinators) }
            }
        }
        // Half way through the one operation, nothing of the first 500 cycles was still alive but the last
        // few flows the lifecycle had yet to look at (a short list, pruned as it fills).
        #expect(midway.screens <= screensBefore + 2)
        #expect(midway.coordinators <= coordinatorsBefore + 40)
        #expect(app.live.screens == screensBefore && app.live.coordinators == coordinatorsBefore)
    }

    @Test func aFailingOperationUndoesWhatItsSucceededInnerOperationsDid() throws {
        let (app, root) = try Application.simple()
        try root.push("A")
        let before = snapshot(app)
        struct Boom: Error {}
        let kept = ScriptCoordinator("Kept") { try $0.push("D") }
        var keptScreen: Screen?
        #expect(throws: Boom.self) {
            try app.atomically {
                for _ in 0..<10 {
                    try root.push("B")
                    try root.run(ScriptCoordinator("Flow") { try $0.push("C") })
                    try app.back()
                    try app.back()
                }
                try root.push("B")
                keptScreen = try root.push("C")
                try root.run(kept)
                throw Boom()
            }
        }
        #expect(snapshot(app) == before)
        // What the failed operation made and someone kept can be used again.
        #expect(kept.status == .idle && kept.parent == nil && kept.screens.isEmpty)
        let screen = try #require(keptScreen)
        #expect(!screen.isShown && screen.owner == nil)
        try root.push(screen)
        try root.run(kept)
        #expect(app.names == ["A", "C", "D"])
    }
}

/// The tracker behind the lifecycle oracle: looked at in every branch of an exploration, its lists stay as
/// long as what lives (give or take a factor of two), however many objects came and went.
@Suite struct ObjectTrackerTests {
    @Test func listsLookedAtOftenStayAsLongAsWhatLives() throws {
        let (app, root) = try Application.simple()
        let tracker = app.trackObjects()
        for round in 1...1_000 {
            let flow = ScriptCoordinator("Flow") { try $0.push("A") }
            try root.run(flow)
            try flow.finish(nil)
            tracker.compactIfGrown()
            #expect(tracker.coordinators.count + tracker.screens.count <= 64 + 2 * 4, "round \(round)")
        }
        #expect(tracker.containsScreen { _ in true } == false)
        let kept = ScriptCoordinator("Kept") { try $0.push("B") }
        try root.run(kept)
        #expect(tracker.containsScreen { $0.name == "B" })
        #expect(tracker.containsCoordinator { $0 === kept })
    }
}
