/// A headless tab bar (a `UITabBarController`): tabs that each hold their own navigation stack.
public final class TabContainer: Presentable {
    /// A number that identifies it in the app.
    public let id: Int
    /// How it is presented, when it is a modal.
    public internal(set) var presentation = Presentation()
    /// The tabs' titles, in order.
    public let titles: [String]
    /// Each tab's navigation stack.
    public let stacks: [NavigationStack]
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

    init(context: AppContext, titles: [String], owner: Coordinator? = nil, replacing replaced: NavigationStack? = nil) {
        self.replaced = replaced
        self.context = context
        self.id = context.nextID()
        self.born = context.journal.markNew()
        self.titles = titles
        self.badges = titles.map { _ in nil }
        self.owner = owner
        self.stacks = titles.map { _ in NavigationStack(context: context) }
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
