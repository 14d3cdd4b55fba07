import Testing
import PropertyBased
import TestSupport
import CoordinatorCore

/// A deliberately simple model of the window and the tree: containers as arrays of screen numbers,
/// coordinators as records. Random operations run against both; they must agree.
private struct Model {
    struct Node {
        var parent: Int?
        var running = true
        var container: Int // the container its router works on
        var hasShown = false
        var modal: Int? // the container it was given as a modal, if any
    }

    var nodes: [Int: Node] = [0: Node(parent: nil, container: 0)]
    var containers: [Int: [Int]] = [0: []]
    var order: [Int] = [0] // root container, then modals bottom to top
    var owner: [Int: Int] = [:]
    var nextNode = 1, nextContainer = 1, nextScreen = 1

    var visible: Int? { order.reversed().lazy.compactMap { containers[$0]?.last }.first }
    var visibleStack: [Int] { order.flatMap { containers[$0] ?? [] } }
    var running: [Int] { nodes.keys.filter { nodes[$0]!.running }.sorted() }

    func children(_ n: Int) -> [Int] { nodes.keys.filter { nodes[$0]!.parent == n && nodes[$0]!.running }.sorted() }
    func isAncestor(_ a: Int, of n: Int) -> Bool {
        var p = nodes[n]?.parent
        while let x = p { if x == a { return true }; p = nodes[x]?.parent }
        return false
    }
    func subtreeScreens(_ n: Int) -> Int { owner.values.filter { $0 == n }.count + children(n).reduce(0) { $0 + subtreeScreens($1) } }
    func depth(_ n: Int) -> Int { var d = 0; var p = nodes[n]?.parent; while let x = p { d += 1; p = nodes[x]?.parent }; return d }

    mutating func markShown(_ n: Int) {
        var p: Int? = n
        while let x = p, !nodes[x]!.hasShown { nodes[x]!.hasShown = true; p = nodes[x]!.parent }
    }

    mutating func push(_ n: Int) -> Bool {
        guard nodes[n]?.running == true, order.contains(nodes[n]!.container) else { return false }
        containers[nodes[n]!.container]!.append(nextScreen)
        owner[nextScreen] = n
        nextScreen += 1
        markShown(n)
        return true
    }

    mutating func run(_ parent: Int, modal: Bool) -> Int? {
        guard nodes[parent]?.running == true else { return nil }
        var container = nodes[parent]!.container
        var modalContainer: Int?
        if modal {
            container = nextContainer
            nextContainer += 1
            containers[container] = []
            order.append(container)
            modalContainer = container
        } else if !order.contains(container) {
            return nil // its start pushes onto a stack that is not shown: the start fails, nothing happens
        }
        let n = nextNode
        nextNode += 1
        nodes[n] = Node(parent: parent, container: container, hasShown: modal, modal: modalContainer)
        _ = push(n)
        return n
    }

    mutating func removeContainers(from index: Int) {
        for c in order[index...] { for s in containers[c] ?? [] { owner[s] = nil } }
        order.removeSubrange(index...)
    }

    mutating func remove(screen s: Int) {
        for (i, c) in order.enumerated() where containers[c]!.contains(s) {
            if i > 0 && containers[c]!.count == 1 { removeContainers(from: i) } else {
                containers[c]!.removeAll { $0 == s }
                owner[s] = nil
            }
            return
        }
    }

    mutating func finish(_ n: Int) {
        for child in children(n).reversed() { finish(child) }
        for s in owner.filter({ $0.value == n }).keys.sorted() { remove(screen: s) }
        if let m = nodes[n]!.modal, let i = order.firstIndex(of: m), containers[m]!.isEmpty { removeContainers(from: i) }
        nodes[n]!.running = false
        nodes[n]!.parent = nil
    }

    mutating func settle(actor: Int?) {
        while true {
            let eligible = running.filter { n in
                n != 0 && nodes[n]!.hasShown && subtreeScreens(n) == 0 && n != actor && !(actor.map { isAncestor(n, of: $0) } ?? false)
            }
            guard let deepest = eligible.max(by: { depth($0) < depth($1) }) else { return }
            finish(deepest)
        }
    }

    mutating func back() -> Bool {
        if let top = order.last, top != 0 {
            if containers[top]!.count > 1 { let s = containers[top]!.removeLast(); owner[s] = nil } else { removeContainers(from: order.count - 1) }
        } else if containers[0]!.count > 1 {
            let s = containers[0]!.removeLast()
            owner[s] = nil
        } else { return false }
        settle(actor: nil)
        return true
    }

    mutating func present(_ n: Int) -> Bool {
        guard nodes[n]?.running == true else { return false }
        let container = nextContainer
        nextContainer += 1
        containers[container] = [nextScreen]
        order.append(container)
        owner[nextScreen] = n
        nextScreen += 1
        markShown(n)
        return true
    }

    mutating func dismiss(_ n: Int) -> Bool {
        guard nodes[n]?.running == true, order.count > 1 else { return false }
        removeContainers(from: order.count - 1)
        settle(actor: n)
        return true
    }

    mutating func pop(_ n: Int) -> Bool {
        guard nodes[n]?.running == true, order.contains(nodes[n]!.container), containers[nodes[n]!.container]!.count > 1 else { return false }
        let s = containers[nodes[n]!.container]!.removeLast()
        owner[s] = nil
        settle(actor: n)
        return true
    }
}

@Suite struct CorePropertyTests {
    @Test func randomOperationsAgreeWithTheModelAndKeepTheInvariants() async {
        let operation = zip(Gen.int(in: 0...6), Gen.int(in: 0...1000), Gen.bool)
        await checkProperty(count: 150, input: operation.array(of: 20...120)) { operations in
            let app = Application()
            app.catalog.register(ScreenType("S"))
            var coordinators: [Int: Coordinator] = [:]
            var screenNumbers: [Int: Int] = [:] // screen id -> creation number
            var model = Model()
            func make() -> ScriptCoordinator { ScriptCoordinator("C") { try $0.push("S") } }
            let root = ScriptCoordinator("Root") { try $0.push("S") }
            try? app.start(root)
            coordinators[0] = root
            _ = model.push(0)

            func number(of screen: Screen) -> Int {
                if let n = screenNumbers[screen.id] { return n }
                // Screens are numbered in creation order in both worlds.
                let n = screenNumbers.count + 1
                screenNumbers[screen.id] = n
                return n
            }
            _ = number(of: root.screens[0])

            for (kind, pick, flag) in operations {
                let running = model.running
                let n = running[pick % running.count]
                guard let c = coordinators[n] else {
                    Issue.record("model node \(n) has no real coordinator")
                    return
                }
                switch kind {
                case 0: // push
                    let ok = model.push(n)
                    let real = (try? c.push("S")) != nil
                    #expect(ok == real)
                    if let s = c.screens.last, real { _ = number(of: s) }
                case 1: // run a child (modal or not)
                    let child = make()
                    let expected = model.run(n, modal: flag)
                    let real = (try? c.run(child, modal: flag)) != nil
                    #expect(real == (expected != nil), "run(modal: \(flag)) under \(n)")
                    if let expected, real { coordinators[expected] = child; _ = number(of: child.screens[0]) }
                case 2: // finish (never the root)
                    guard n != 0 else { continue }
                    model.finish(n)
                    model.settle(actor: n) // modals it dismissed may have held other flows
                    #expect((try? c.finish()) != nil)
                case 3: // system back
                    let ok = model.back()
                    #expect(((try? app.back()) != nil) == ok)
                case 4: // a coordinator pops its own stack
                    let ok = model.pop(n)
                    #expect(((try? c.pop()) != nil) == ok)
                case 5: // present a screen modally, or dismiss the top modal
                    if flag {
                        let ok = model.present(n)
                        let screen = try app.catalog.make("S")
                        #expect(((try? c.present(screen)) != nil) == ok)
                        if ok { _ = number(of: screen) }
                    } else {
                        let ok = model.dismiss(n)
                        #expect(((try? c.dismiss()) != nil) == ok)
                    }
                default: // finishing twice is always an error
                    if let finished = coordinators.first(where: { $0.value.status == .finished })?.value {
                        #expect(navigationError { try finished.finish() }?.code == .alreadyFinished)
                    }
                }

                model.settle(actor: nil) // the end of every operation: nothing stays alive without screens
                // The visible screen and hierarchy are what the model says.
                #expect(app.window.visibleScreen.map(number) == model.visible)
                #expect(app.window.visibleStack.map(number) == model.visibleStack)
                // The visible stacks' persistent name lists hold what the stacks hold.
                let ids = app.window.visibleNames.flatMap { names in
                    var ids: [Int] = [], node = names
                    while let next = node { ids.append(next.id); node = next.below }
                    return ids.reversed()
                }
                #expect(ids == app.window.visibleStack.map(\.id))
                #expect(app.window.visibleNames.reduce(0) { $0 + ($1?.count ?? 0) } == app.window.visibleStack.count)
                // Running coordinators agree.
                #expect(Set(root.subtree.map(ObjectIdentifier.init)) == Set(model.running.compactMap { coordinators[$0].map(ObjectIdentifier.init) }))
                // No finished coordinator is attached; the tree has no cycles.
                for coordinator in root.subtree {
                    #expect(coordinator.status == .running)
                    #expect(coordinator.children.allSatisfy { $0.parent === coordinator })
                }
                #expect(root.subtree.count == Set(root.subtree.map(ObjectIdentifier.init)).count)
                // Every shown screen is owned by a running coordinator that lists it, and nothing else is listed.
                for screen in app.window.allScreens {
                    #expect(screen.owner?.status == .running)
                    #expect(screen.owner?.screens.contains { $0 === screen } == true)
                }
                #expect(root.subtree.reduce(0) { $0 + $1.screens.count } == app.window.allScreens.count)
            }
        }
    }
}

@Suite struct LeakTests {
    @Test func hundredThousandStartPushBackCyclesLeaveNothingAlive() throws {
        let (app, root) = try Application.simple()
        try root.push("A")
        let baseline = (app.live.coordinators, app.live.screens)
        for i in 0..<100_000 {
            let child = ScriptCoordinator("Child") { child in
                let screen = try child.push("B", inputs: ["value": .int(i)])
                try screen.on("next") { [unowned child] _ in try child.push("C") } // a handler that captures its coordinator
            }
            try root.run(child)
            try app.back()
        }
        #expect(root.children.isEmpty)
        #expect(app.live.coordinators == baseline.0)
        #expect(app.live.screens == baseline.1)
    }

    @Test func nothingLeaksWhenTheAppGoesAway() throws {
        let live: LiveObjects
        do {
            let (app, root) = SourceApp.make(state: .main)
            try app.start(root)
            try app.tap("selectCity")
            try app.tap("regionSelected", payload: SourceApp.regions[0])
            live = app.live
            #expect(live.coordinators == 3 && live.screens == 3)
        }
        #expect(live.coordinators == 0)
        #expect(live.screens == 0)
    }
}

@Suite struct SignalOrderPropertyTests {
    /// The specification, written plainly: breadth first from the sender over screens (to their owner)
    /// and coordinators (to their screens, the children isolation lets through, then the parent), each
    /// node once, the sender excluded.
    private func expectedOrder(from sender: Signal.Node) -> [String] {
        enum Key: Hashable { case c(ObjectIdentifier), s(ObjectIdentifier) }
        func key(_ node: Signal.Node) -> Key {
            switch node {
            case .coordinator(let c): .c(ObjectIdentifier(c))
            case .screen(let s): .s(ObjectIdentifier(s))
            }
        }
        func neighbors(_ node: Signal.Node) -> [Signal.Node] {
            switch node {
            case .screen(let s): return s.owner.map { [.coordinator($0)] } ?? []
            case .coordinator(let c):
                var result: [Signal.Node] = c.screens.map { .screen($0) }
                switch c.signalIsolation {
                case .open: result += c.children.map { .coordinator($0) }
                case .only(let chosen): result += c.children.filter { x in chosen.contains { $0 === x } }.map { .coordinator($0) }
                }
                if let p = c.parent { result.append(.coordinator(p)) }
                return result
            }
        }
        var seen: Set<Key> = [key(sender)]
        var queue = neighbors(sender).filter { seen.insert(key($0)).inserted }
        var order: [String] = []
        var head = 0
        while head < queue.count {
            let node = queue[head]
            head += 1
            order.append(node.description)
            queue += neighbors(node).filter { seen.insert(key($0)).inserted }
        }
        return order
    }

    @Test func signalsReachEveryNodeBreadthFirstAndStopWhereTold() async {
        // Parent picks for up to 40 coordinators, whether each shows a screen, the sender, a coordinator
        // whose signals reach only its first child, and the receiver that stops the signal (0: none).
        let shape = zip(Gen.int(in: 0...1000).array(of: 1...40), Gen.bool.array(of: 41...41),
                        zip(Gen.int(in: 0...1000), Gen.int(in: -1...40), Gen.int(in: 0...12)))
        await checkProperty(count: 200, input: shape) { parents, shows, picks in
            let (senderPick, isolated, stopAt) = picks
            let app = Application()
            app.catalog.register(ScreenType("S"))
            let root = ScriptCoordinator("C0") { _ in }
            try app.start(root)
            var coordinators: [Coordinator] = [root]
            for (i, pick) in parents.enumerated() {
                let child = ScriptCoordinator("C\(i + 1)") { if shows[i] { try $0.push("S") } }
                try coordinators[pick % coordinators.count].run(child)
                coordinators.append(child)
            }
            if isolated >= 0, let c = coordinators.dropFirst(isolated % coordinators.count).first, let first = c.children.first {
                c.signalIsolation = .only([first])
            }
            var heard: [String] = []
            var nodes: [Signal.Node] = []
            for c in coordinators {
                nodes.append(.coordinator(c))
                let name = Signal.Node.coordinator(c).description
                c.onSignal("ping") { signal in
                    heard.append(name)
                    if heard.count == stopAt { signal.stop() }
                }
                for s in c.screens {
                    nodes.append(.screen(s))
                    let screenName = Signal.Node.screen(s).description
                    s.onSignal("ping") { signal in
                        heard.append(screenName)
                        if heard.count == stopAt { signal.stop() }
                    }
                }
            }
            let sender = nodes[senderPick % nodes.count]
            let expected = expectedOrder(from: sender)
            let signal: Signal
            switch sender {
            case .coordinator(let c): signal = try c.send("ping")
            case .screen(let s): signal = try s.send("ping")
            }
            let delivered = stopAt > 0 ? Array(expected.prefix(stopAt)) : expected
            #expect(heard == delivered)
            #expect(signal.receivers == delivered)
        }
    }
}
