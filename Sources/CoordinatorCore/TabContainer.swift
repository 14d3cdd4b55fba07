/// A headless tab bar (a `UITabBarController`): tabs that each hold their own navigation stack.
public final class TabContainer: Presentable {
    /// A number that identifies it in the app.
    public let id: Int
    /// The tabs' titles, in order.
    public let titles: [String]
    /// Each tab's navigation stack.
    public let stacks: [NavigationStack]
    /// The selected tab (0-based).
    public internal(set) var selectedIndex = 0
    let context: AppContext
    /// The operation level it was made in (see ``Journal/shouldLog(_:)``).
    let born: Int

    init(context: AppContext, titles: [String]) {
        self.context = context
        self.id = context.nextID()
        self.born = context.journal.markNew()
        self.titles = titles
        self.stacks = titles.map { _ in NavigationStack(context: context) }
    }

    /// The selected tab's navigation stack.
    public var selectedStack: NavigationStack { stacks[selectedIndex] }
    public var visibleScreen: Screen? { selectedStack.visibleScreen }
    public var screens: [Screen] { stacks.flatMap(\.screens) }
    public var containerName: String { "Tabs[" + titles.joined(separator: ", ") + "]" }

    /// Whether one of its tabs is `stack`.
    func holds(_ stack: NavigationStack) -> Bool { stacks.contains { $0 === stack } }
}
