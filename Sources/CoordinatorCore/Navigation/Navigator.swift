/// Carrying out navigation: the ``Transition``s a ``HeadlessRouter`` performs and the system's own steps
/// (Back, swipe-down, tab selection) on the ``Window`` model. Callers run them inside
/// ``Application/atomically(_:)``; every change goes through the journal's writers (`Change.swift`), and
/// the screens that leave are handed to the lifecycle (`Lifecycle.swift`).
///
/// An application hands one out for each step (``Application/navigator``): it holds nothing but the app it
/// works on.
///
/// Costs: each step touches the screens it moves and the containers on the way (a stack is found from
/// its screen, a modal by scanning the handful of modals), never the whole stack or the whole tree.
struct Navigator {
    /// The app whose window it changes.
    let app: Application
    /// The window it changes: the user's, or the one of the flow that acts.
    let window: Window

    private var lifecycle: Lifecycle { app.lifecycle }

    @inline(__always)
    private func emit(_ event: @autoclosure () -> NavigationEvent) { app.emit(event()) }

    /// Performs `transition` on `stack` for `actor`, which owns the screens it shows.
    func navigate(_ transition: Transition, on stack: NavigationStack, by actor: Coordinator, animated: Bool) throws {
        switch transition {
        case let .push(screen, animation): try push(screen, on: stack, by: actor, animated: animated, animation: animation)
        case .pop: try pop(stack, by: actor, animated: animated, bySystem: false)
        case .popTo(let screen):
            guard let index = stack.screens.lastIndex(where: { $0 === screen }) else {
                throw NavigationError(.screenInUse, "screen \(screen.info) is not on this navigation stack")
            }
            try popAbove(index, of: stack, by: actor, animated: animated)
        case .popToRoot:
            try checkShown(stack, actor)
            try popAbove(0, of: stack, by: actor, animated: animated)
        case let .setRoot(screen, hideBar): try setRoot(screen, of: stack, hideBar: hideBar, by: actor, animated: animated)
        case let .present(module, animation): try present(module, by: actor, animated: animated, animation: animation)
        case .dismiss: try dismiss(by: actor, animated: animated, bySystem: false)
        case .selectTab(let index):
            guard let tabs = window.tabContainer(for: actor, stack: stack) else {
                throw NavigationError(.badTab, "\(actor.name) shows no tabs: its navigation stack is not in a tab container, and it set none")
            }
            try select(index, of: tabs, bySystem: false)
        case .selectPage(let index):
            guard let pages = window.container(PageContainer.self, for: actor, stack: stack) else {
                throw NavigationError(.badTab, "\(actor.name) shows no pages: its navigation stack is not a page, and it set none")
            }
            try select(index, of: pages, bySystem: false)
        case .setContainer(let container): try replaceContainer(of: stack, with: container, by: actor)
        case .showDetail(let screen):
            guard let split = window.container(SplitContainer.self, for: actor, stack: stack) else {
                throw NavigationError(.containerNotShown, "\(actor.name) is in no split: its navigation stack is not a column, and it set none")
            }
            try setRoot(screen, of: split.secondary, hideBar: false, by: actor, animated: animated, detail: true)
        case .sequence(let steps):
            for step in steps { try navigate(step, on: stack, by: actor, animated: animated) }
        }
    }

    private func checkShown(_ stack: NavigationStack, _ actor: Coordinator) throws {
        guard window.contains(stack) else {
            throw NavigationError(.containerNotShown, "\(actor.name)'s navigation stack is no longer shown")
        }
    }

    private func push(_ screen: Screen, on stack: NavigationStack, by actor: Coordinator, animated: Bool, animation: String?) throws {
        try checkShown(stack, actor)
        guard !screen.isShown else { throw NavigationError(.screenInUse, "screen \(screen.info) is already shown") }
        guard screen.context === app.context else { throw NavigationError(.screenInUse, "screen \(screen.info) belongs to another app") }
        stack.append(screen)
        lifecycle.show(screen, on: stack, by: actor)
        emit(.pushed(screen.info, animated: animated, animation: animation))
    }

    /// Pops the top screen: a coordinator's `pop`, or the Back button (`bySystem`, actor nil).
    func pop(_ stack: NavigationStack, by actor: Coordinator?, animated: Bool, bySystem: Bool, takingRoot: Bool = false) throws {
        guard window.contains(stack) else {
            throw NavigationError(.containerNotShown, "the navigation stack is no longer shown")
        }
        guard stack.screens.count > (takingRoot ? 0 : 1) else {
            let name = stack.screens.first.map { " \($0.name)" } ?? ""
            throw NavigationError(.popRoot, "cannot pop\(name): it is the root of its navigation stack")
        }
        let top = stack.removeLast(1)
        try lifecycle.hide(top, bySystem: bySystem, by: actor)
        emit(.popped(top.map(\.info), animated: animated, bySystem: bySystem))
        try lifecycle.settle(actor: actor, in: app)
    }

    private func popAbove(_ index: Int, of stack: NavigationStack, by actor: Coordinator, animated: Bool) throws {
        let count = stack.screens.count - index - 1
        guard count > 0 else { return }
        let removed = stack.removeLast(count)
        try lifecycle.hide(removed, by: actor)
        emit(.popped(removed.reversed().map(\.info), animated: animated, bySystem: false))
        try lifecycle.settle(actor: actor, in: app)
    }

    private func setRoot(_ screen: Screen, of stack: NavigationStack, hideBar: Bool, by actor: Coordinator, animated: Bool,
                         detail: Bool = false) throws {
        if !detail { try checkShown(stack, actor) }
        guard !screen.isShown else { throw NavigationError(.screenInUse, "screen \(screen.info) is already shown") }
        let removed = stack.reset(to: [screen], barHidden: hideBar)
        lifecycle.show(screen, on: stack, by: actor)
        try lifecycle.hide(removed, by: actor)
        emit(detail ? .detailShown(screen.info, animated: animated) : .rootSet(screen.info, hideBar: hideBar, animated: animated))
        try lifecycle.settle(actor: actor, in: app)
    }

    private func present(_ module: Presentable, by actor: Coordinator, animated: Bool, animation: String?) throws {
        if window.root === module || window.modalIndex(of: module) != nil || module.screens.contains(where: \.isShown) {
            throw NavigationError(.screenInUse, "\(module.containerName) is already shown")
        }
        window.appendModal(module)
        if let screen = module as? Screen {
            lifecycle.show(screen, on: nil, by: actor)
        } else {
            for stack in Self.stacks(of: module) {
                for screen in stack.screens { lifecycle.show(screen, on: stack, by: actor) }
            }
        }
        emit(.presented(module.containerName, animated: animated, presentation: module.presentation, animation: animation))
    }

    /// Dismisses the top modal: a coordinator's `dismiss`, or the swipe-down (`bySystem`, actor nil).
    func dismiss(by actor: Coordinator?, animated: Bool, bySystem: Bool) throws {
        guard !window.modals.isEmpty else {
            throw NavigationError(.nothingPresented, "nothing is presented, so there is nothing to dismiss")
        }
        let top = window.removeModals(from: window.modals.count - 1)
        try lifecycle.hide(top.flatMap(\.screens), bySystem: bySystem, by: actor)
        emit(.dismissed(top[0].containerName, animated: animated, bySystem: bySystem))
        try lifecycle.settle(actor: actor, in: app)
    }

    /// Dismisses a screen presented by itself (an alert whose action was chosen), with every modal above it.
    func dismissModal(_ screen: Screen) throws {
        guard let index = window.modalIndex(of: screen) else { return }
        try removeModals(from: index, by: screen.owner)
    }

    /// Selects tab or page `index` of `container`: the user's tap or swipe (`bySystem`), or a coordinator's.
    /// A tab that is a button runs its action instead (the user's tap only); the flow whose tab or page
    /// becomes the selected one hears it.
    func select(_ index: Int, of container: FlowContainer, bySystem: Bool) throws {
        let member = container.memberName
        guard container.stacks.indices.contains(index) else {
            // tab(n) took n - 1, wrapping: adding 1 back, wrapping, names the n the user wrote.
            throw NavigationError(.badTab, "there is no \(member) \(index &+ 1) (\(member)s: \(container.titles.joined(separator: ", ")))")
        }
        if let tabs = container as? TabContainer, let action = tabs.actions[index] {
            // A tab that is a button: the user's tap runs it, and selects nothing; code cannot select it.
            guard bySystem else {
                throw NavigationError(.badTab, "tab \(index + 1) (\(tabs.titles[index])) is an action, not a tab to select: the user taps it")
            }
            emit(.tabActed(index))
            return try action()
        }
        guard index != container.selectedIndex else { return }
        container.select(index)
        emit(container is PageContainer ? .pageSelected(index, bySystem: bySystem) : .tabSelected(index, bySystem: bySystem))
        if let flow = container.flow(at: index), flow.status == .running { try flow.didBecomeSelected(in: container) }
    }

    /// Brings `coordinator`'s flow to the front, as a production app dispatches a link to the flow that
    /// handles it: the modals presented above the container that holds its navigation stack go, topmost first
    /// (each as the user's swipe-down takes it, a full-screen cover too; an alert, or a modal presented with
    /// `dismissable = false`, refuses: an error naming it), then the tab or page that holds its stack is
    /// selected (the flow there hears it). Its own stack is untouched. Costs the containers and the modals
    /// that go.
    func bringForward(_ coordinator: Coordinator) throws {
        let stack = (coordinator.router as? HeadlessRouter)?.stack
        func holds(_ layer: Presentable) -> Bool {
            if let stack, layer === stack || (layer as? FlowContainer)?.holds(stack) == true { return true }
            return (layer as? FlowContainer)?.owner === coordinator
        }
        let layers = [window.root] + window.modals
        guard let layer = layers.firstIndex(where: holds) else {
            throw NavigationError(.containerNotShown, "\(coordinator.name) runs, but its navigation stack is not shown")
        }
        // Each modal that was above it: one a handler presents as another goes is above it too, and refused.
        for _ in 0..<max(window.modals.count - layer, 0) {
            guard window.modals.count > layer, let top = window.modals.last else { break }
            let name = top.visibleScreen?.name ?? top.containerName
            if let screen = top as? Screen, screen.dismissesOnOutput {
                throw NavigationError(.alertNeedsAction, "\(name) is showing above \(coordinator.name): an alert goes only with one of its actions")
            }
            guard top.presentation.dismissable else {
                throw NavigationError(.notDismissable, "\(name) is showing above \(coordinator.name) and was presented with dismissable = false")
            }
            try dismiss(by: nil, animated: true, bySystem: true)
        }
        if window.modals.count > layer, let top = window.modals.last {
            throw NavigationError(.containerNotShown,
                                  "\(top.visibleScreen?.name ?? top.containerName) was presented above \(coordinator.name) as the modals above it went")
        }
        if let stack { try reveal(stack, in: layer == 0 ? window.root : window.modals[layer - 1]) }
    }

    /// Selects the tab or page of `container` that holds `stack`, and inside a tab the page that does.
    private func reveal(_ stack: NavigationStack, in container: Presentable) throws {
        guard let flows = container as? FlowContainer, !(flows is SplitContainer) else { return }
        if let index = flows.stacks.firstIndex(where: { $0 === stack }) { return try select(index, of: flows, bySystem: false) }
        guard let tabs = flows as? TabContainer,
              let (index, content) = tabs.contents.first(where: { $0.value.holds(stack) }) else { return }
        try select(index, of: tabs, bySystem: false)
        try reveal(stack, in: content)
    }

    /// The Back button (or edge swipe) on the visible navigation stack, or the swipe-down of the top modal.
    func systemBack() throws {
        if let top = window.modals.last {
            try refuseAlert(top)
            if let (stack, takesRoot) = window.backStack(in: top) {
                try pop(stack, by: nil, animated: true, bySystem: true, takingRoot: takesRoot)
            } else {
                try swipeDown()
            }
        } else if let (stack, takesRoot) = window.backStack(in: window.root) {
            try pop(stack, by: nil, animated: true, bySystem: true, takingRoot: takesRoot)
        } else {
            let name = window.visibleScreen.map { " (\($0.name) is the root screen\(window.root is SplitContainer ? " of the secondary column" : ""))" } ?? ""
            throw NavigationError(.nothingToGoBack, "there is nothing to go back to\(name)")
        }
    }

    /// The swipe-down of the top modal: it goes with everything it holds, unless it is an alert or cannot
    /// be swiped away (``Presentation``).
    func swipeDown() throws {
        guard let top = window.modals.last else {
            throw NavigationError(.nothingPresented, "nothing is presented, so there is nothing to dismiss")
        }
        try refuseAlert(top)
        try top.checkSwipeable()
        try dismiss(by: nil, animated: true, bySystem: true)
    }

    /// An alert goes only with one of its actions: no Back, no swipe.
    private func refuseAlert(_ top: Presentable) throws {
        if let screen = top as? Screen, screen.dismissesOnOutput {
            let actions = screen.outputs.map(\.name).joined(separator: ", ")
            throw NavigationError(.alertNeedsAction, "an alert is showing: choose one of its actions (\(actions))")
        }
    }

    /// Puts a tab bar, pages or a split where `stack` is (the window's root, or a modal).
    func replaceContainer(of stack: NavigationStack, with container: FlowContainer, by actor: Coordinator) throws {
        if window.root === stack {
            window.setRoot(container)
        } else if let index = window.modalIndex(of: stack) {
            window.setPresentation(stack.presentation, of: container)
            window.replaceModal(at: index, with: container)
        } else if let (tabs, index) = window.tab(holding: stack) {
            // Pages or a split inside a tab, as UIKit apps have them; a tab bar inside a tab UIKit has not.
            guard !(container is TabContainer) else {
                throw NavigationError(.containerNotShown, "\(actor.name) runs in tab \(tabs.titles[index]): a tab holds pages or a split, not another tab bar")
            }
            guard tabs.contents[index] == nil else {
                throw NavigationError(.containerNotShown, "tab \(tabs.titles[index]) holds \(tabs.contents[index]?.kindName ?? "a container") already")
            }
            tabs.setContent(container, at: index)
        } else {
            throw NavigationError(.containerNotShown, "\(actor.name)'s navigation stack is not a root, modal or tab container")
        }
        let hidden = stack.reset(to: [], barHidden: false)
        try lifecycle.hide(hidden, by: actor)
        emit(.presented(container.containerName, animated: false, presentation: container.presentation))
        try lifecycle.settle(actor: actor, in: app)
    }

    /// Gives the places of the tab bars `coordinator` set back to the stacks they took them from
    /// (``Window/restoreContainers(setBy:)``), each one's going reported.
    func restoreContainers(setBy coordinator: Coordinator) {
        for flows in window.restoreContainers(setBy: coordinator) { emit(.dismissed(flows.containerName, animated: false, bySystem: false)) }
    }

    /// Removes modals from `index` up (UIKit dismisses everything above a dismissed controller too).
    func removeModals(from index: Int, by actor: Coordinator?) throws {
        let removed = window.removeModals(from: index)
        for modal in removed.reversed() {
            try lifecycle.hide(modal.screens, by: actor)
            emit(.dismissed(modal.containerName, animated: true, bySystem: false))
        }
        try lifecycle.settle(actor: actor, in: app)
    }

    /// Removes one screen from wherever it is shown; a modal stack left empty is dismissed.
    func remove(_ screen: Screen, by actor: Coordinator) throws {
        guard screen.isShown else { return }
        guard let stack = screen.stack else {
            if let index = window.modalIndex(of: screen) { try removeModals(from: index, by: actor) }
            return
        }
        if stack.screens.count == 1, let index = window.modalIndex(of: stack) {
            return try removeModals(from: index, by: actor)
        }
        guard let index = stack.screens.lastIndex(where: { $0 === screen }) else { return }
        stack.remove(at: index)
        try lifecycle.hide([screen], by: actor)
        emit(.popped([screen.info], animated: true, bySystem: false))
        try lifecycle.settle(actor: actor, in: app)
    }

    /// The navigation stacks inside a container.
    static func stacks(of container: Presentable) -> [NavigationStack] {
        switch container {
        case let stack as NavigationStack: [stack]
        case let tabs as TabContainer: tabs.stacks + tabs.stacks.indices.flatMap { tabs.contents[$0]?.stacks ?? [] }
        case let flows as FlowContainer: flows.stacks
        default: []
        }
    }
}
