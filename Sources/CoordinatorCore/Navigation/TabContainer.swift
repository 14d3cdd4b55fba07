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
public final class TabContainer: FlowContainer {
    /// Each tab's badge (a count or a short text beside its title), nil for none: set by the coordinator
    /// that set the tabs or by a flow in one of them (``TransitionPerformer/setBadge(_:onTab:)``).
    public internal(set) var badges: [FlowValue?]
    /// The action of each tab that is a button, by index (its stack stays empty: it is never selected).
    let actions: [Int: () throws -> Void]
    /// The container a tab's flow put where the tab's navigation stack was (pages, a split: what UIKit apps
    /// put inside a tab), by tab; the stack takes its place back when that flow finishes or restarts.
    public internal(set) var contents: [Int: FlowContainer] = [:]

    init(context: AppContext, titles: [String], actions: [Int: () throws -> Void] = [:], owner: Coordinator? = nil,
         replacing replaced: NavigationStack? = nil) {
        self.actions = actions
        self.badges = titles.map { _ in nil }
        super.init(context: context, titles: titles, owner: owner, replacing: replaced)
        self.selectedIndex = titles.indices.first { actions[$0] == nil } ?? 0 // the first tab that is a flow
    }

    /// Whether tab `index` is a button that acts (``TabBarItem/action(title:_:)``) rather than a flow.
    public func isAction(_ index: Int) -> Bool { actions[index] != nil }

    /// A tab's title with its badge, as the tab bar shows it: `Cart (3)`.
    public func label(ofTab index: Int) -> String {
        guard titles.indices.contains(index) else { return "" }
        guard let badge = badges[index] else { return titles[index] }
        return titles[index] + " (" + badge.displayText + ")"
    }

    public override var containerName: String { "Tabs[" + titles.joined(separator: ", ") + "]" }

    /// What tab `index` shows: the container its flow put there, or its navigation stack.
    public func content(ofTab index: Int) -> Presentable { contents[index] ?? stacks[index] }

    /// The selected tab's screen: its container's, or its stack's.
    public override var visibleScreen: Screen? { contents[selectedIndex]?.visibleScreen ?? selectedStack.visibleScreen }
    override var visiblePath: [Screen] { contents[selectedIndex]?.visiblePath ?? selectedStack.screens }
    public override var screens: [Screen] {
        stacks.indices.flatMap { contents[$0]?.screens ?? stacks[$0].screens }
    }
    override func holds(_ stack: NavigationStack) -> Bool {
        super.holds(stack) || contents.values.contains { $0.holds(stack) }
    }
}
