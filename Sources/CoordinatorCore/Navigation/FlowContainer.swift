/// A container of child flows, each on its own navigation stack: a tab bar (``TabContainer``, a
/// `UITabBarController`) or pages (``PageContainer``, a `UIPageViewController`), which show one at a
/// time, or a split (``SplitContainer``, a `UISplitViewController`), whose columns show side by side. A
/// coordinator puts one where its own stack was (the window's root, or its modal); it gives that place
/// back when the coordinator finishes or restarts.
public class FlowContainer: Presentable {
    /// A number that identifies it in the app.
    public let id: Int
    /// How it is presented, when it is a modal.
    public internal(set) var presentation = Presentation()
    /// The titles of its tabs or pages, in order.
    public let titles: [String]
    /// Each one's navigation stack.
    public let stacks: [NavigationStack]
    /// The one shown (0-based).
    public internal(set) var selectedIndex = 0
    /// The coordinator that set it: it may select a tab or page although its own stack is not one of them.
    public private(set) weak var owner: Coordinator?
    /// The stack whose place it took (the window's root, or a modal): it takes its place back when the
    /// owner finishes or restarts, so that a flow that set it can finish and be started again.
    let replaced: NavigationStack?
    let context: AppContext
    /// The operation level it was made in (see ``Journal/shouldLog(_:)``).
    let born: Int

    init(context: AppContext, titles: [String], owner: Coordinator?, replacing replaced: NavigationStack?) {
        self.replaced = replaced
        self.context = context
        self.id = context.nextID()
        self.born = context.journal.markNew()
        self.titles = titles
        self.owner = owner
        self.stacks = titles.map { _ in NavigationStack(context: context) }
    }

    /// What the user calls one of them, in messages: `tab`, `page`, `column`.
    var memberName: String { "tab" }
    /// What the user calls the container, in listings: `Tabs`, `Pages`, `Split`.
    var kindName: String { "Tabs" }

    /// The index of the first one titled `title`, or nil.
    public func index(ofTitle title: String) -> Int? { titles.firstIndex(of: title) }

    /// The selected one's navigation stack.
    public var selectedStack: NavigationStack { stacks[selectedIndex] }
    public var visibleScreen: Screen? { selectedStack.visibleScreen }
    /// What the user sees of it, bottom to top: the selected one's stack (every column of a split).
    var visiblePath: [Screen] { selectedStack.screens }
    public var screens: [Screen] { stacks.flatMap(\.screens) }
    public var containerName: String { "Container[" + titles.joined(separator: ", ") + "]" }

    /// Whether one of them is `stack`.
    func holds(_ stack: NavigationStack) -> Bool { stacks.contains { $0 === stack } }

    /// The coordinator that runs on `index`'s stack (a child of the owner), or nil.
    func flow(at index: Int) -> Coordinator? {
        guard stacks.indices.contains(index) else { return nil }
        let stack = stacks[index]
        return owner?.children.first { $0.router?.stack === stack }
    }
}

/// Headless pages (a `UIPageViewController`) of child flows, each on its own navigation stack: the user
/// swipes from one to the next; the coordinator that set them, or a page's flow, selects one.
public final class PageContainer: FlowContainer {
    override var memberName: String { "page" }
    override var kindName: String { "Pages" }
    public override var containerName: String { "Pages[" + titles.joined(separator: ", ") + "]" }
}
