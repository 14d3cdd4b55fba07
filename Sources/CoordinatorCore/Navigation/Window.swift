/// One window of the app (an iPad's scene; a phone has one): a root container and the modals presented
/// over it, topmost last, and the root flow that shows them. An app may open several (``Windows``).
public final class Window {
    /// Its number: 1 for the first, then by opening order, never reused within a launch.
    public internal(set) var number: Int
    /// The root coordinator of the flows it shows, once started.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public internal(set) var coordinator: Coordinator?
    /// The root container: a navigation stack, or a tab container once a flow set tabs.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public internal(set) var root: Presentable
    /// The modals presented over the root, topmost last.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public internal(set) var modals: [Presentable] = []
    /// How wide the window is: a split shows its columns side by side when `regular`, as one stack when
    /// `compact`. Part of the app's state (a rotation is a step of the user), undone with a failed operation.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public internal(set) var sizeClass: SizeClass = .regular
    let context: AppContext
    let born = 0

    init(context: AppContext, number: Int = 1) {
        self.context = context
        self.number = number
        self.root = NavigationStack(context: context)
    }

    /// What the user sees now.
    public var visibleScreen: Screen? {
        var i = modals.count
        while i > 0 {
            i -= 1
            if let screen = modals[i].visibleScreen { return screen }
        }
        return root.visibleScreen
    }

    /// The visible hierarchy from bottom to top: the root's stack (the selected tab's, for tabs), then
    /// each modal's.
    public var visibleStack: [Screen] { ([root] + modals).flatMap(Window.visiblePath) }

    /// The visible hierarchy's names as persistent lists, one for the root and one for each modal
    /// (``ScreenNames``): a record of what the user saw, in O(containers) whatever the stacks hold.
    package var visibleNames: [ScreenNames?] {
        var result: [ScreenNames?] = [Window.names(of: root)]
        for modal in modals { result.append(Window.names(of: modal)) }
        return result
    }

    private static func names(of container: Presentable) -> ScreenNames? {
        let container = shown(container)
        if let split = container as? SplitContainer { return split.visiblePath.reduce(nil) { ScreenNames($1, below: $0) } }
        if let stack = visibleStack(of: container) { return stack.names }
        return container.screens.reduce(nil) { ScreenNames($1, below: $0) }
    }

    static func visiblePath(_ container: Presentable) -> [Screen] {
        switch container {
        case let stack as NavigationStack: stack.screens
        case let container as FlowContainer: container.visiblePath
        default: container.screens
        }
    }

    /// What the user sees of a container where a tab holds another: the selected tab's pages or split;
    /// the container itself otherwise.
    static func shown(_ container: Presentable) -> Presentable {
        if let tabs = container as? TabContainer, let content = tabs.contents[tabs.selectedIndex] { return content }
        return container
    }

    /// The navigation stack the Back button works on inside a container.
    package static func visibleStack(of container: Presentable) -> NavigationStack? {
        switch shown(container) {
        case let stack as NavigationStack: stack
        case let container as FlowContainer: container.selectedStack
        default: nil
        }
    }

    /// The pages the user sees: the topmost container when it is a page container.
    public var visiblePages: PageContainer? { Window.shown(modals.last ?? root) as? PageContainer }

    /// The split whose columns the user sees side by side: the topmost container when it is a split and the
    /// window is `regular`; nil otherwise (a compact split acts as one stack).
    public var visibleSplit: SplitContainer? {
        guard sizeClass == .regular else { return nil }
        return shownSplit
    }

    /// The split the topmost container shows (itself, or inside its selected tab), whatever the width.
    package var shownSplit: SplitContainer? { Window.shown(modals.last ?? root) as? SplitContainer }

    /// The screens the user can tap now: the visible screen, or the top screen of each column of a
    /// ``visibleSplit``, secondary first.
    package var tappableScreens: [Screen] {
        if let split = visibleSplit { return split.columnTops.map(\.screen) }
        return visibleScreen.map { [$0] } ?? []
    }

    /// The screen a tap of `output` goes to: the visible screen; beside a split's columns, the top screen of
    /// the one column that offers it (an error naming them when several do, or none).
    func tapTarget(for output: String) throws -> Screen {
        guard let screen = visibleScreen else { throw NavigationError(.noVisibleScreen, "no screen is visible") }
        guard let split = visibleSplit else { return screen }
        let tops = split.columnTops
        let offering = try tops.filter { top in try top.screen.outputs.contains { $0.name == output } && top.screen.offers(output) }
        if offering.count == 1 { return offering[0].screen }
        let columns = (offering.isEmpty ? tops : offering).map { "\($0.column.rawValue): \($0.screen.name)" }.joined(separator: ", ")
        if offering.isEmpty {
            throw NavigationError(.unknownOutput, "no column's top screen offers output '\(output)' (\(columns))")
        }
        throw NavigationError(.unknownOutput, "output '\(output)' is on more than one column's top screen (\(columns)): give one of them another name")
    }

    /// Where the Back button works in `container`: the stack it pops, and whether it may take that stack's
    /// root (a collapsed split's column, over the columns before it); nil when there is nothing to go back
    /// to there.
    func backStack(in container: Presentable) -> (stack: NavigationStack, takesRoot: Bool)? {
        if let split = Window.shown(container) as? SplitContainer, sizeClass == .compact {
            let filled = split.stacks.filter { !$0.screens.isEmpty }
            guard let last = filled.last else { return nil }
            if last.screens.count > 1 { return (last, false) }
            return filled.count > 1 ? (last, true) : nil
        }
        guard let stack = Window.visibleStack(of: container), stack.screens.count > 1 else { return nil }
        return (stack, false)
    }

    /// Whether the Back button has somewhere to go in `container` (``backStack(in:)``).
    package func canGoBack(in container: Presentable) -> Bool { backStack(in: container) != nil }

    /// Every shown screen, including the ones in unselected tabs.
    package var allScreens: [Screen] { ([root] + modals).flatMap(\.screens) }

    /// Whether `stack` is shown: the root, a modal, or a tab of either. Costs the number of containers,
    /// whatever the stacks hold.
    func contains(_ stack: NavigationStack) -> Bool {
        if Window.container(root, holds: stack) { return true }
        for modal in modals where Window.container(modal, holds: stack) { return true }
        return false
    }

    private static func container(_ container: Presentable, holds stack: NavigationStack) -> Bool {
        if container === stack { return true }
        if let flows = container as? FlowContainer { return flows.holds(stack) }
        return false
    }

    /// Where the modal `container` sits in ``modals``, or nil.
    func modalIndex(of container: Presentable) -> Int? { modals.lastIndex { $0 === container } }

    /// Every container of flows shown: the root's and the modals', and the ones inside their tabs.
    package var flowContainers: [FlowContainer] {
        var result: [FlowContainer] = []
        for case let flows as FlowContainer in [root] + modals {
            result.append(flows)
            if let tabs = flows as? TabContainer { result += tabs.stacks.indices.compactMap { tabs.contents[$0] } }
        }
        return result
    }

    /// The shown container of kind `C` (the root, a modal, or one inside a tab) that has `stack` as one of
    /// its tabs, pages or columns, or nil.
    func container<C: FlowContainer>(_ kind: C.Type, holding stack: NavigationStack) -> C? {
        for case let found as C in flowContainers where found.stacks.contains(where: { $0 === stack }) { return found }
        return nil
    }

    /// The shown container of kind `C` a coordinator works with: the one that holds its stack, or the one
    /// it set (its own stack was replaced by it). Costs the number of containers.
    func container<C: FlowContainer>(_ kind: C.Type, for coordinator: Coordinator, stack: NavigationStack?) -> C? {
        if let stack, let found = container(kind, holding: stack) { return found }
        for case let found as C in flowContainers where found.owner === coordinator { return found }
        return nil
    }

    /// The tab bar (the root or a modal) whose tab `stack` is, and that tab's index, or nil.
    func tab(holding stack: NavigationStack) -> (tabs: TabContainer, index: Int)? {
        for case let tabs as TabContainer in [root] + modals {
            if let index = tabs.stacks.firstIndex(where: { $0 === stack }) { return (tabs, index) }
        }
        return nil
    }

    /// The shown tab container a coordinator works with (``container(_:for:stack:)``).
    func tabContainer(for coordinator: Coordinator, stack: NavigationStack?) -> TabContainer? {
        container(TabContainer.self, for: coordinator, stack: stack)
    }

    /// Gives the places of the containers (tab bars, pages) `coordinator` set (and still shown) back to the
    /// stacks they took them from: the root, or a modal (which goes when its stack is empty, as an empty
    /// modal stack does). A flow that set tabs can then finish, and the next flow on that stack (the
    /// gateway's, its parent's) shows there, or sets tabs again. The containers that went.
    func restoreContainers(setBy coordinator: Coordinator) -> [FlowContainer] {
        var restored: [FlowContainer] = []
        if let flows = root as? FlowContainer, flows.owner === coordinator, let stack = flows.replaced {
            setRoot(stack)
            restored.append(flows)
        }
        for index in modals.indices.reversed() {
            guard let flows = modals[index] as? FlowContainer, flows.owner === coordinator, let stack = flows.replaced else { continue }
            replaceModal(at: index, with: stack)
            restored.append(flows)
        }
        for case let tabs as TabContainer in [root] + modals {
            for (index, content) in tabs.contents.sorted(by: { $0.key < $1.key }) where content.owner === coordinator {
                tabs.setContent(nil, at: index)
                restored.append(content)
            }
        }
        return restored
    }

    /// The whole hierarchy as an indented listing (built in one pass: linear in the screens shown).
    public var hierarchyDescription: String {
        var lines: [String] = []
        func list(_ container: Presentable, _ indent: String, _ label: String) {
            switch container {
            case let stack as NavigationStack:
                lines.append(indent + label + "NavigationStack" + (stack.barHidden ? " (bar hidden)" : ""))
                for screen in stack.screens { lines.append(indent + "  " + screen.info.description) }
            case let flows as FlowContainer:
                let tabs = flows as? TabContainer
                let split = flows is SplitContainer
                lines.append(indent + label + flows.kindName + (split ? " (\(sizeClass.rawValue))" : ""))
                for (i, stack) in flows.stacks.enumerated() {
                    let title = flows.memberName + " " + (tabs?.label(ofTab: i) ?? flows.titles[i])
                    if tabs?.isAction(i) == true { lines.append(indent + "  " + title + ": an action"); continue }
                    if let content = tabs?.contents[i] {
                        list(content, indent + "  ", title + (i == flows.selectedIndex ? " (selected)" : "") + ": ")
                        continue
                    }
                    lines.append(indent + "  " + title + ": NavigationStack" + (stack.barHidden ? " (bar hidden)" : "")
                        + (i == flows.selectedIndex && !split ? " (selected)" : ""))
                    for screen in stack.screens { lines.append(indent + "    " + screen.info.description) }
                }
            default:
                lines.append(indent + label + container.containerName)
            }
        }
        list(root, "", "root: ")
        for (i, modal) in modals.enumerated() {
            let style = modal.presentation == Presentation() ? "" : "(\(modal.presentation)) "
            list(modal, "", "modal \(i + 1): " + style)
        }
        return lines.joined(separator: "\n")
    }
}
