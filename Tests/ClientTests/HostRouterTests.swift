// Built as a client package would build it: this target has no package access
// (Package.swift), so it sees CoordinatorCore's public API and nothing else.
import CoordinatorCore
import Testing

/// A host's router that logs every transition it performs, wrapping the headless one.
final class LoggingRouter: Router {
    let base: any Router
    let log: Log
    final class Log { var lines: [String] = [] }

    init(_ base: any Router, log: Log = Log()) {
        self.base = base
        self.log = log
    }

    var stack: NavigationStack { base.stack }

    func perform(_ transition: Transition, for coordinator: Coordinator, animated: Bool) throws {
        try base.perform(transition, for: coordinator, animated: animated)
        log.lines.append("\(coordinator.name): \(transition)")
    }

    func router(on stack: NavigationStack) -> any Router { LoggingRouter(base.router(on: stack), log: log) }
}

/// A host's router that mirrors a UIKit navigation controller: its own list of "view controllers", updated
/// only once an operation has succeeded.
final class MirroringRouter: Router {
    let base: any Router
    let app: Application
    /// What the real navigation controller shows: screen names, root first.
    var controllers: [String] = []
    var updates = 0

    init(_ base: any Router, app: Application) {
        self.base = base
        self.app = app
    }

    var stack: NavigationStack { base.stack }

    func perform(_ transition: Transition, for coordinator: Coordinator, animated: Bool) throws {
        try base.perform(transition, for: coordinator, animated: animated)
        app.afterCommit { [self] in
            controllers = stack.screens.map(\.name)
            updates += 1
        }
    }

    func router(on stack: NavigationStack) -> any Router { HeadlessRouter(stack: stack) }
}

final class Flow: Coordinator {
    let body: (Flow) throws -> Void
    init(_ name: String, _ body: @escaping (Flow) throws -> Void) {
        self.body = body
        super.init(name: name)
    }
    override func start(_ args: FlowValue?) throws { try body(self) }
}

func makeApp() -> Application {
    let app = Application(state: .main)
    for name in ["Home", "Details", "Edit"] {
        app.catalog.register(ScreenType(name, outputs: [OutputSpec("next"), OutputSpec("fail")]))
    }
    return app
}

@Suite struct HostRouterTests {
    @Test func aHostRouterPerformsEveryTransitionOfTheTree() throws {
        let app = makeApp()
        let log = LoggingRouter.Log()
        let root = Flow("Root") { root in
            let home = try root.push("Home")
            try home.on("next") { _ in
                try root.run(Flow("Child") { child in try child.push("Details") })
            }
        }
        try app.start(root, router: LoggingRouter(app.headlessRouter(), log: log))
        try app.tap("next")
        #expect(app.window.visibleStack.map(\.name) == ["Home", "Details"])
        #expect(log.lines.count == 2)
        #expect(log.lines[0].hasPrefix("Root: push Home#"))
        #expect(log.lines[1].hasPrefix("Child: push Details#"))
        #expect(root.children.first?.router is LoggingRouter) // a child on its parent's stack shares the router
        // System back goes through the model, not the router: the child finished by itself.
        try app.back()
        #expect(root.children.isEmpty)
        #expect(app.window.visibleStack.map(\.name) == ["Home"])
    }

    @Test func aModalChildGetsTheRouterItsParentMakes() throws {
        let app = makeApp()
        let log = LoggingRouter.Log()
        let root = Flow("Root") { root in
            try root.push("Home")
            try root.run(Flow("Sheet") { sheet in try sheet.push("Edit") }, modal: true)
        }
        try app.start(root, router: LoggingRouter(app.headlessRouter(), log: log))
        #expect(app.window.modals.count == 1)
        #expect(app.window.visibleScreen?.name == "Edit")
        // The parent's router presents the child's stack (empty until the child pushes through its own).
        #expect(log.lines.map { $0.split(separator: "#")[0] } == ["Root: push Home", "Root: present NavigationStack[]", "Sheet: push Edit"])
    }

    @Test func aHostRouterGetsThePresentationAndTheAnimationAsData() throws {
        let app = makeApp()
        final class Seen { var transitions: [String] = [] }
        final class Recording: Router {
            let base: any Router
            let seen: Seen
            init(_ base: any Router, _ seen: Seen) { (self.base, self.seen) = (base, seen) }
            var stack: NavigationStack { base.stack }
            func perform(_ transition: Transition, for coordinator: Coordinator, animated: Bool) throws {
                switch transition {
                case let .push(screen, animation): seen.transitions.append("push \(screen.name) \(animation ?? "-") \(animated)")
                case let .present(module, animation):
                    seen.transitions.append("present \(module.presentation.style) \(module.presentation.isSwipeable) \(animation ?? "-")")
                default: seen.transitions.append("\(transition)")
                }
                try base.perform(transition, for: coordinator, animated: animated)
            }
            func router(on stack: NavigationStack) -> any Router { Recording(base.router(on: stack), seen) }
        }
        let seen = Seen()
        let root = Flow("Root") { root in
            try root.push("Home", animated: false)
            try root.push("Details", animation: "zoom")
            try root.run(Flow("Sheet") { sheet in try sheet.push("Edit") }, modal: true,
                         presentation: Presentation(style: .fullScreen), animation: "fade")
        }
        try app.start(root, router: Recording(app.headlessRouter(), seen))
        #expect(seen.transitions == ["push Home - false", "push Details zoom true", "present fullScreen false fade", "push Edit - true"])
        #expect(Transition.push(app.window.visibleStack[0], animation: "zoom").description.hasSuffix(" (zoom)"))
    }

    @Test func aMirrorSeesOnlyOperationsThatSucceeded() throws {
        let app = makeApp()
        struct Boom: Error {}
        let root = Flow("Root") { root in
            let home = try root.push("Home")
            try home.on("next") { _ in try root.push("Details") }
            try home.on("fail") { _ in
                try root.push("Details")
                try root.push("Edit")
                throw Boom()
            }
        }
        let mirror = MirroringRouter(app.headlessRouter(), app: app)
        try app.start(root, router: mirror)
        #expect(mirror.controllers == ["Home"])
        #expect(throws: Boom.self) { try app.tap("fail") }
        #expect(mirror.controllers == ["Home"])   // the failed pushes never reached the "real" UI
        #expect(mirror.updates == 1)
        try app.tap("next")
        #expect(mirror.controllers == ["Home", "Details"])
    }

    @Test func transitionsAreValuesAndASequenceIsAtomic() throws {
        let app = makeApp()
        let root = Flow("Root") { root in try root.push("Home") }
        try app.start(root)
        let details = try app.catalog.make("Details")
        let edit = try app.catalog.make("Edit")
        try root.perform(.sequence([.push(details), .push(edit)]))
        #expect(app.window.visibleStack.map(\.name) == ["Home", "Details", "Edit"])
        // The second step fails (popping past the root): the first is undone too.
        let before = app.window.hierarchyDescription
        #expect(throws: NavigationError.self) { try root.perform(.sequence([.popToRoot, .pop])) }
        #expect(app.window.hierarchyDescription == before)
        try root.perform(.sequence([.popTo(details)]))
        #expect(app.window.visibleStack.map(\.name) == ["Home", "Details"])
        #expect(Transition.sequence([.popToRoot, .selectTab(0)]).description == "sequence(pop to root, select tab 1)")
    }
}
