/// What a tab of a tab bar is: a flow on its own navigation stack, or a button that acts (a Compose tab)
/// and is never selected.
public enum TabBarItem {
    /// A tab titled `title` whose navigation stack `coordinator` runs on.
    case flow(title: String, Coordinator)
    /// A tab titled `title` that runs `action` when the user taps it, and selects nothing.
    case action(title: String, () throws -> Void)

    /// Its title.
    public var title: String {
        switch self {
        case .flow(let title, _), .action(let title, _): title
        }
    }
}

/// A headless tab bar (a `UITabBarController`): tabs that each hold their own navigation stack, and tabs
/// that act as buttons (``TabBarItem/action(title:_:)``).
public final class TabContainer: Presentable {
    /// A number that identifies it in the app.
    public let id: Int
    /// How it is presented, when it is a modal.
    public internal(set) var presentation = Presentation()
    /// The tabs' titles, in order.
    public let titles: [String]
    /// Each tab's navigation stack (an action's stays empty: it is never selected).
    public let stacks: [NavigationStack]
    /// The action of each tab that is a button, by index.
    let actions: [Int: () throws -> Void]
    /// The selected tab (0-based).
    public internal(set) var selectedIndex = 0
    /// Each tab's badge (a count or a short text beside its title), nil for none: set by the coordinator
    /// that set the tabs or by a flow in one of them (``Coordinator/setBadge(_:onTab:)``).
    public internal(set) var badges: [FlowValue?]
    /// The coordinator that set the tabs: it may select a tab although its own stack is not one of them.
    public private(set) weak var owner: Coordinator?
    /// The stack whose place it took (the window's root, or a modal): it takes its place back when the
    /// owner finishes or restarts, so that a flow that set tabs can finish and be started again.
    let replaced: NavigationStack?
    let context: AppContext
    /// The operation level it was made in (see ``Journal/shouldLog(_:)``).
    let born: Int

    init(context: AppContext, titles: [String], actions: [Int: () throws -> Void] = [:], owner: Coordinator? = nil,
         replacing replaced: NavigationStack? = nil) {
        self.replaced = replaced
        self.context = context
        self.id = context.nextID()
        self.born = context.journal.markNew()
        self.titles = titles
        self.actions = actions
        self.badges = titles.map { _ in nil }
        self.owner = owner
        self.stacks = titles.map { _ in NavigationStack(context: context) }
        self.selectedIndex = titles.indices.first { actions[$0] == nil } ?? 0 // the first tab that is a flow
    }

    /// Whether tab `index` is a button that acts (``TabBarItem/action(title:_:)``) rather than a flow.
    public func isAction(_ index: Int) -> Bool { actions[index] != nil }

    /// The coordinator that runs on tab `index`'s stack (a child of the tab bar's owner), or nil.
    func flow(at index: Int) -> Coordinator? {
        guard stacks.indices.contains(index) else { return nil }
        let stack = stacks[index]
        return owner?.children.first { $0.router?.stack === stack }
    }

    /// A tab's title with its badge, as the tab bar shows it: `Cart (3)`.
    public func label(ofTab index: Int) -> String {
        guard titles.indices.contains(index) else { return "" }
        guard let badge = badges[index] else { return titles[index] }
        return titles[index] + " (" + badge.displayText + ")"
    }

    /// The index of the first tab titled `title`, or nil.
    public func index(ofTitle title: String) -> Int? { titles.firstIndex(of: title) }

    /// The selected tab's navigation stack.
    public var selectedStack: NavigationStack { stacks[selectedIndex] }
    public var visibleScreen: Screen? { selectedStack.visibleScreen }
    public var screens: [Screen] { stacks.flatMap(\.screens) }
    public var containerName: String { "Tabs[" + titles.joined(separator: ", ") + "]" }

    /// Whether one of its tabs is `stack`.
    func holds(_ stack: NavigationStack) -> Bool { stacks.contains { $0 === stack } }
}
