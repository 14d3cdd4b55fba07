/// The navigation operations a coordinator uses (the sources' `Routable`).
///
/// The headless ``HeadlessRouter`` implements them over the ``Window`` model; a UIKit router on Apple
/// platforms can conform too, mapping ``Presentable`` to view controllers. Every operation takes
/// `animated` and a completion that runs after the transition; completions run in the order of their
/// transitions.
public protocol Router: AnyObject {
    func push(_ screen: Screen, animated: Bool, completion: (() throws -> Void)?) throws
    func pop(animated: Bool, completion: (() throws -> Void)?) throws
    func popToRoot(animated: Bool, completion: (() throws -> Void)?) throws
    func setRoot(_ screen: Screen, hideBar: Bool, animated: Bool, completion: (() throws -> Void)?) throws
    func present(_ module: Presentable, animated: Bool, completion: (() throws -> Void)?) throws
    func dismiss(animated: Bool, completion: (() throws -> Void)?) throws
}

extension Router {
    public func push(_ screen: Screen) throws { try push(screen, animated: true, completion: nil) }
    public func pop() throws { try pop(animated: true, completion: nil) }
    public func popToRoot() throws { try popToRoot(animated: true, completion: nil) }
    public func setRoot(_ screen: Screen, hideBar: Bool = false) throws { try setRoot(screen, hideBar: hideBar, animated: true, completion: nil) }
    public func present(_ module: Presentable) throws { try present(module, animated: true, completion: nil) }
    public func dismiss() throws { try dismiss(animated: true, completion: nil) }
}

/// A router over the headless window: it works on one navigation stack on behalf of one coordinator,
/// which owns the screens it shows.
///
/// Pushing while a modal is up goes where UIKit puts it: onto this router's stack, under the modal.
public final class HeadlessRouter: Router {
    weak var app: Application?
    /// The navigation stack it pushes onto.
    public let stack: NavigationStack
    /// The coordinator it acts for.
    public internal(set) weak var owner: Coordinator?

    init(app: Application, stack: NavigationStack, owner: Coordinator) {
        self.app = app
        self.stack = stack
        self.owner = owner
    }

    /// A router on the same stack for another coordinator.
    func derived(for coordinator: Coordinator) throws -> HeadlessRouter {
        HeadlessRouter(app: try liveApp(), stack: stack, owner: coordinator)
    }

    private func liveApp() throws -> Application {
        guard let app else { throw NavigationError(.notRunning, "this router's app is gone") }
        return app
    }

    private func actor() throws -> Coordinator {
        guard let owner else { throw NavigationError(.notRunning, "this router's coordinator is gone") }
        _ = try owner.runningApp()
        return owner
    }

    public func push(_ screen: Screen, animated: Bool = true, completion: (() throws -> Void)? = nil) throws {
        let owner = try actor()
        let app = try liveApp()
        try app.atomically {
            try app.push(screen, on: stack, by: owner, animated: animated)
            try app.complete(completion)
        }
    }

    public func pop(animated: Bool = true, completion: (() throws -> Void)? = nil) throws {
        let owner = try actor()
        let app = try liveApp()
        try app.atomically {
            try app.pop(stack, by: owner, animated: animated, bySystem: false)
            try app.complete(completion)
        }
    }

    public func popToRoot(animated: Bool = true, completion: (() throws -> Void)? = nil) throws {
        let owner = try actor()
        let app = try liveApp()
        try app.atomically {
            try app.popToRoot(stack, by: owner, animated: animated)
            try app.complete(completion)
        }
    }

    /// Pops to a screen of this stack (it stays; everything above it leaves).
    public func pop(to screen: Screen, animated: Bool = true, completion: (() throws -> Void)? = nil) throws {
        let owner = try actor()
        let app = try liveApp()
        try app.atomically {
            try app.pop(stack, to: screen, by: owner, animated: animated)
            try app.complete(completion)
        }
    }

    public func setRoot(_ screen: Screen, hideBar: Bool = false, animated: Bool = true, completion: (() throws -> Void)? = nil) throws {
        let owner = try actor()
        let app = try liveApp()
        try app.atomically {
            try app.setRoot(screen, of: stack, hideBar: hideBar, by: owner, animated: animated)
            try app.complete(completion)
        }
    }

    public func present(_ module: Presentable, animated: Bool = true, completion: (() throws -> Void)? = nil) throws {
        let owner = try actor()
        let app = try liveApp()
        try app.atomically {
            try app.present(module, by: owner, animated: animated)
            try app.complete(completion)
        }
    }

    public func dismiss(animated: Bool = true, completion: (() throws -> Void)? = nil) throws {
        let owner = try actor()
        let app = try liveApp()
        try app.atomically {
            try app.dismiss(by: owner, animated: animated, bySystem: false)
            try app.complete(completion)
        }
    }

    /// Presents an alert: a screen of the built-in type `Alert` with inputs `title` and `message`, whose
    /// outputs are its actions. Choosing an action dismisses the alert, then runs the action's handler.
    @discardableResult
    public func alert(
        title: String, message: String? = nil, actions: [(title: String, handler: (() throws -> Void)?)] = [("OK", nil)]
    ) throws -> Screen {
        let owner = try actor()
        let app = try liveApp()
        return try app.atomically {
            var inputs: FlowRecord = ["title": .string(title)]
            if let message { inputs["message"] = .string(message) }
            let alert = Screen(app: app, type: app.alertType, inputs: inputs,
                               extraOutputs: actions.map { OutputSpec($0.title) })
            for action in actions {
                try alert.on(action.title) { [weak app] _ in
                    try app?.dismissAlert(alert, by: owner)
                    try action.handler?()
                }
            }
            try app.present(alert, by: owner, animated: true)
            return alert
        }
    }

    /// Replaces this router's container (the window's root, or the modal that holds this stack) with a tab
    /// container, and returns one router per tab for `coordinators` (in order).
    public func setTabs(_ titles: [String], for coordinators: [Coordinator]) throws -> TabContainer {
        let owner = try actor()
        let app = try liveApp()
        guard !titles.isEmpty, titles.count == coordinators.count else {
            throw NavigationError(.badTab, "tabs need at least one title, and one coordinator per title")
        }
        return try app.atomically {
            let tabs = TabContainer(app: app, titles: titles)
            try app.replaceContainer(of: stack, with: tabs, by: owner)
            for (i, coordinator) in coordinators.enumerated() {
                coordinator.record()
                coordinator.router = HeadlessRouter(app: app, stack: tabs.stacks[i], owner: coordinator)
            }
            return tabs
        }
    }

    /// Selects a tab of the tab container that holds this router's stack.
    public func selectTab(_ index: Int) throws {
        _ = try actor()
        let app = try liveApp()
        try app.atomically {
            guard let tabs = app.tabContainer(holding: stack) else {
                throw NavigationError(.badTab, "this router's stack is not in a tab container")
            }
            try app.selectTab(index, of: tabs, bySystem: false)
        }
    }
}
