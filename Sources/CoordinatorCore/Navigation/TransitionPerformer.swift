/// The navigation verbs, as XCoordinator's `TransitionPerformer` gives them to a coordinator: each builds a
/// ``Transition`` and has the coordinator's ``Coordinator/router`` perform it for this coordinator, which
/// then owns the screens it shows. Every verb takes `animated` and a completion that runs after the
/// transition, inside the same operation (if it throws, the transition is undone too). Every
/// ``Coordinator`` is one: `try push("UserEdit")` in a coordinator's ``Coordinator/start(_:)``.
public protocol TransitionPerformer: Coordinator {}

extension Coordinator: TransitionPerformer {}

extension TransitionPerformer {
    /// Performs a transition with this coordinator's router, then `completion`, as one operation.
    public func perform(_ transition: Transition, animated: Bool = true, completion: (() throws -> Void)? = nil) throws {
        let router = try activeRouter()
        guard let completion else { return try router.perform(transition, for: self, animated: animated) }
        let app = try runningApp()
        try app.atomically {
            try router.perform(transition, for: self, animated: animated)
            try completion()
        }
    }

    /// Builds a screen from the app's catalog and pushes it (with the host's custom animation named
    /// `animation`, if any).
    @discardableResult
    public func push(_ screenName: String, inputs: FlowRecord = [:], animated: Bool = true, animation: String? = nil) throws -> Screen {
        let app = try runningApp()
        return try app.atomically {
            let screen = try app.catalog.make(screenName, inputs: inputs)
            try perform(.push(screen, animation: animation), animated: animated)
            return screen
        }
    }

    /// Pushes a screen onto its router's stack (with the host's custom animation named `animation`, if any).
    public func push(_ screen: Screen, animated: Bool = true, animation: String? = nil, completion: (() throws -> Void)? = nil) throws {
        try perform(.push(screen, animation: animation), animated: animated, completion: completion)
    }

    /// Pops the top screen of its router's stack.
    public func pop(animated: Bool = true, completion: (() throws -> Void)? = nil) throws {
        try perform(.pop, animated: animated, completion: completion)
    }

    /// Pops to a screen of its router's stack (it stays; everything above it leaves).
    public func pop(to screen: Screen, animated: Bool = true, completion: (() throws -> Void)? = nil) throws {
        try perform(.popTo(screen), animated: animated, completion: completion)
    }

    /// Pops every screen above the root of its router's stack.
    public func popToRoot(animated: Bool = true, completion: (() throws -> Void)? = nil) throws {
        try perform(.popToRoot, animated: animated, completion: completion)
    }

    /// Replaces its router's whole stack with one screen.
    public func setRoot(_ screen: Screen, hideBar: Bool = false, animated: Bool = true, completion: (() throws -> Void)? = nil) throws {
        try perform(.setRoot(screen, hideBar: hideBar), animated: animated, completion: completion)
    }

    /// Presents a screen, a navigation stack or a tab container modally, as `presentation` says (nil: as
    /// it was last presented; a page sheet at first), with the host's custom animation named `animation`,
    /// if any.
    public func present(_ module: Presentable, animated: Bool = true, presentation: Presentation? = nil,
                        animation: String? = nil, completion: (() throws -> Void)? = nil) throws {
        guard let presentation else {
            return try perform(.present(module, animation: animation), animated: animated, completion: completion)
        }
        let app = try runningApp()
        try app.atomically {
            app.windows.window(of: self).setPresentation(presentation.adapted(to: app.idiom), of: module)
            try perform(.present(module, animation: animation), animated: animated, completion: completion)
        }
    }

    /// Dismisses the topmost modal.
    public func dismiss(animated: Bool = true, completion: (() throws -> Void)? = nil) throws {
        try perform(.dismiss, animated: animated, completion: completion)
    }

    /// Selects a tab of the tab container that holds its router's stack (0-based), as the coordinator that
    /// set the tabs or a tab's own flow may.
    public func selectTab(_ index: Int) throws {
        try perform(.selectTab(index), animated: false)
    }

    /// Selects the tab titled `title` (the first with that title) of the tab container it set or shows in.
    public func selectTab(titled title: String) throws {
        let app = try runningApp()
        guard let tabs = app.windows.window(of: self).tabContainer(for: self, stack: try? activeRouter().stack) else {
            throw NavigationError(.badTab, "\(name) shows no tabs: its navigation stack is not in a tab container, and it set none")
        }
        guard let index = tabs.index(ofTitle: title) else {
            throw NavigationError(.badTab, "there is no tab titled '\(title)' (tabs: \(tabs.titles.joined(separator: ", ")))")
        }
        try selectTab(index)
    }

    /// Sets the badge of a tab (0-based) of the tab container it set or shows in: a count or a short text
    /// beside the tab's title (`Cart (3)`), nil to clear it. Undone with the operation, like an input.
    public func setBadge(_ value: FlowValue?, onTab index: Int) throws {
        let app = try runningApp()
        guard let tabs = app.windows.window(of: self).tabContainer(for: self, stack: try? activeRouter().stack) else {
            throw NavigationError(.badTab, "\(name) shows no tabs: its navigation stack is not in a tab container, and it set none")
        }
        guard tabs.titles.indices.contains(index) else {
            throw NavigationError(.badTab, """
                there is no tab \(index < Int.max ? String(index + 1) : String(index)) (tabs: \
                \(tabs.titles.joined(separator: ", ")))
                """)
        }
        try app.atomically { tabs.setBadge(value, at: index) }
    }

    /// The tab container it set or shows in, or nil.
    public var tabs: TabContainer? {
        guard let app = try? runningApp() else { return nil }
        return app.windows.window(of: self).tabContainer(for: self, stack: try? activeRouter().stack)
    }

    /// Presents an alert: a screen of the built-in type `Alert` with inputs `title` and `message` (and
    /// `style = "actionSheet"` for an action sheet), whose outputs are its actions. Choosing an action
    /// dismisses the alert, then runs the action's handler; the Back gesture cannot dismiss an alert.
    /// `roles` names the actions that are not ordinary: the alert's inputs say them to hosts (`cancel`, the
    /// cancel action's title; `destructive`, the destructive ones' titles). A role for an action the alert
    /// does not have, or a second cancel action, is refused.
    @discardableResult
    public func alert(
        title: String, message: String? = nil, style: AlertStyle = .alert,
        actions: [(title: String, handler: (() throws -> Void)?)] = [("OK", nil)],
        roles: [String: AlertActionRole] = [:]
    ) throws -> Screen {
        let app = try runningApp()
        let roleInputs = try AlertActionRole.inputs(of: roles, actions: actions.map(\.title))
        return try app.atomically {
            var inputs: FlowRecord = ["title": .string(title)]
            if let message { inputs["message"] = .string(message) }
            if style != .alert { inputs["style"] = .string(style.rawValue) }
            for (key, value) in roleInputs { inputs[key] = value }
            let alert = Screen(context: app.context, type: app.alertType, inputs: inputs,
                               extraOutputs: actions.map { OutputSpec($0.title) }, dismissesOnOutput: true)
            // The handlers do not hold the alert (it holds them): an alert answered is released at once.
            for action in actions {
                let handler = action.handler
                try alert.on(action.title) { _ in try handler?() }
            }
            try perform(.present(alert))
            return alert
        }
    }

    /// Replaces its router's container (the window's root, or the modal that holds its stack) with a tab
    /// container, and gives each of `coordinators` (in order) a router on its tab's stack: run them next.
    @discardableResult
    public func setTabs(_ titles: [String], for coordinators: [Coordinator]) throws -> TabContainer {
        guard !titles.isEmpty, titles.count == coordinators.count else {
            throw NavigationError(.badTab, "tabs need at least one title, and one coordinator per title")
        }
        return try setTabs(zip(titles, coordinators).map { TabBarItem.flow(title: $0, $1) })
    }

    /// Replaces its router's container (the window's root, or the modal that holds its stack) with a tab
    /// container of `items`: each flow's coordinator gets a router on its tab's stack (run them next); each
    /// action is a button in the tab bar. The first flow's tab is selected.
    @discardableResult
    public func setTabs(_ items: [TabBarItem]) throws -> TabContainer {
        let router = try activeRouter()
        let app = try runningApp()
        var actions: [Int: () throws -> Void] = [:]
        for (i, item) in items.enumerated() { if case .action(_, let action) = item { actions[i] = action } }
        guard actions.count < items.count else {
            throw NavigationError(.badTab, "tabs need at least one tab that is a flow (tabs that are actions select nothing)")
        }
        return try app.atomically {
            let tabs = TabContainer(context: app.context, titles: items.map(\.title), actions: actions, owner: self, replacing: router.stack)
            try router.perform(.setContainer(tabs), for: self, animated: false)
            for (i, item) in items.enumerated() {
                if case .flow(_, let coordinator) = item { coordinator.setRouter(router.router(on: tabs.stacks[i])) }
            }
            return tabs
        }
    }

    /// Replaces its router's container (the window's root, or the modal that holds its stack) with pages
    /// titled `titles`, and gives each of `coordinators` (in order) a router on its page's stack: run them
    /// next. The first page shows.
    @discardableResult
    public func setPages(_ titles: [String], for coordinators: [Coordinator]) throws -> PageContainer {
        let router = try activeRouter()
        let app = try runningApp()
        guard !titles.isEmpty, titles.count == coordinators.count else {
            throw NavigationError(.badTab, "pages need at least one title, and one coordinator per title")
        }
        return try app.atomically {
            let pages = PageContainer(context: app.context, titles: titles, owner: self, replacing: router.stack)
            try router.perform(.setContainer(pages), for: self, animated: false)
            for (i, coordinator) in coordinators.enumerated() { coordinator.setRouter(router.router(on: pages.stacks[i])) }
            return pages
        }
    }

    /// Replaces its router's container (the window's root, or the modal that holds its stack) with a split:
    /// `primary`, `secondary` and, for three columns, `supplementary` each get a router on their column's
    /// stack (run them next).
    @discardableResult
    public func setSplit(primary: Coordinator, secondary: Coordinator, supplementary: Coordinator? = nil) throws -> SplitContainer {
        let router = try activeRouter()
        let app = try runningApp()
        return try app.atomically {
            let split = SplitContainer(context: app.context, supplementary: supplementary != nil, owner: self, replacing: router.stack)
            try router.perform(.setContainer(split), for: self, animated: false)
            let columns = [(SplitContainer.Column.primary, primary), (.secondary, secondary)] + (supplementary.map { [(.supplementary, $0)] } ?? [])
            for (column, coordinator) in columns {
                if let stack = split.stack(column) { coordinator.setRouter(router.router(on: stack)) }
            }
            return split
        }
    }

    /// Builds a screen from the app's catalog and shows it as the secondary column of the split it is in
    /// (or set), in place of that column's stack; the screen is this coordinator's.
    @discardableResult
    public func showDetail(_ screenName: String, inputs: FlowRecord = [:], animated: Bool = true) throws -> Screen {
        let app = try runningApp()
        return try app.atomically {
            let screen = try app.catalog.make(screenName, inputs: inputs)
            try perform(.showDetail(screen), animated: animated)
            return screen
        }
    }

    /// Shows `screen` as the secondary column of the split it is in (or set), in place of that column's stack.
    public func showDetail(_ screen: Screen, animated: Bool = true, completion: (() throws -> Void)? = nil) throws {
        try perform(.showDetail(screen), animated: animated, completion: completion)
    }

    /// The split it set or is a column of, or nil.
    public var split: SplitContainer? {
        guard let app = try? runningApp() else { return nil }
        return app.windows.window(of: self).container(SplitContainer.self, for: self, stack: try? activeRouter().stack)
    }

    /// Shows a page (0-based) of the pages it set or shows in.
    public func selectPage(_ index: Int) throws {
        try perform(.selectPage(index), animated: true)
    }

    /// The pages it set or shows in, or nil.
    public var pages: PageContainer? {
        guard let app = try? runningApp() else { return nil }
        return app.windows.window(of: self).container(PageContainer.self, for: self, stack: try? activeRouter().stack)
    }
}
