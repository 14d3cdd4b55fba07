/// One change an operation made, as the journal logs it: enough to put it back, and no more.
///
/// This file is the only place that writes the navigation state (the window, stacks, tabs, screens'
/// inputs, placement and handlers, the coordinator tree, statuses, routers, the gateway): each write below
/// logs its entry first, and ``undo()`` is its inverse beside it. A new piece of state gets a case and a
/// writer here, or it cannot change; that is how every stored property an operation changes is covered.
///
/// Entries are undone newest first. An append is undone by truncating to the count before it, so the
/// removal of something made in the same level needs no entry (and keeps nothing alive): the truncation
/// takes care of it, whatever happened in between.
enum Change {
    // The window
    case windowRoot(Window, Presentable)
    case modalPresented(Window, count: Int)
    case modalsRemoved(Window, [Presentable])
    case modalReplaced(Window, at: Int, Presentable)
    case sizeClass(Window, SizeClass)
    // Navigation stacks and tabs
    case pushed(NavigationStack, count: Int)
    case popped(NavigationStack, [Screen])
    case removed(NavigationStack, Screen, at: Int)
    case stackReset(NavigationStack, [Screen], barHidden: Bool)
    case selected(FlowContainer, Int)
    case badge(TabContainer, Int, FlowValue?)
    case tabContent(TabContainer, Int, FlowContainer?)
    // Screens
    case placement(Screen, owner: Coordinator?, stack: NavigationStack?, isShown: Bool)
    case input(Screen, String, FlowValue?)
    case outputHandler(Screen, String, ((FlowValue?) throws -> Void)?)
    case screenSignalHandler(Screen, String, Screen.SignalHandler?)
    case screenHandlers(Screen, HandlerTable<(FlowValue?) throws -> Void>, HandlerTable<Screen.SignalHandler>)
    // Coordinators
    case childAdded(Coordinator, count: Int, router: (any Router)?)
    case childRemoved(Coordinator, Coordinator, at: Int)
    case status(Coordinator, Coordinator.Status)
    case screenAdded(Coordinator, count: Int)
    case screenRemoved(Coordinator, Screen, at: Int)
    case router(Coordinator, (any Router)?)
    case hasShownScreens(Coordinator)
    case showingChildren(Coordinator, Int)
    case coordinatorHandlers(Coordinator, Coordinator.Handlers)
    // The application
    case root(Window, Coordinator?)
    case steps(StepLog, count: Int)
    case gateway(Gateway, AppState)
    /// A bridge's own state (``UndoLog/record(_:born:snapshot:)``), or the application's (its steps'
    /// start), about an object made in the operation level `born` (0: state nothing made in an operation).
    case custom(born: Int, () -> Void)

    /// The operation level the changed object was made in (0 for state no operation made): an entry about
    /// an object made inside a failing level is not undone, the object being dropped with the level.
    var subjectBorn: Int {
        switch self {
        case .windowRoot, .modalPresented, .modalsRemoved, .modalReplaced, .sizeClass, .root, .gateway, .steps: 0
        case .custom(let born, _): born
        case .pushed(let s, _), .popped(let s, _), .removed(let s, _, _), .stackReset(let s, _, _): s.born
        case .selected(let t, _): t.born
        case .badge(let t, _, _), .tabContent(let t, _, _): t.born
        case .placement(let s, _, _, _), .input(let s, _, _), .outputHandler(let s, _, _),
             .screenSignalHandler(let s, _, _), .screenHandlers(let s, _, _): s.born
        case .childAdded(let c, _, _), .childRemoved(let c, _, _), .status(let c, _), .screenAdded(let c, _),
             .screenRemoved(let c, _, _), .router(let c, _), .hasShownScreens(let c), .showingChildren(let c, _),
             .coordinatorHandlers(let c, _): c.born
        }
    }

    /// The newest level among the objects a removal entry keeps to put back (0 for other entries).
    var referencedBorn: Int {
        switch self {
        case let .popped(_, screens): screens.reduce(0) { max($0, $1.born) }
        case let .removed(_, screen, _), let .screenRemoved(_, screen, _): screen.born
        case let .childRemoved(_, child, _): child.born
        case let .modalsRemoved(_, modals): modals.reduce(0) { max($0, bornLevel(of: $1)) }
        case let .modalReplaced(_, _, modal), let .windowRoot(_, modal): bornLevel(of: modal)
        case let .tabContent(_, _, content?): content.born
        default: 0
        }
    }

    /// The operation level a container was made in (0 for one a host made outside operations).
    private func bornLevel(of container: Presentable) -> Int {
        if let stack = container as? NavigationStack { return stack.born }
        if let flows = container as? FlowContainer { return flows.born }
        if let screen = container as? Screen { return screen.born } // an alert
        return 0
    }

    /// What the level around the one that made the entry needs of it, once that one succeeded: none when the
    /// level around, `outer`, would not undo it (it is about an object made in `outer` or later, which
    /// goes with `outer` if that fails), else the whole entry or the part without objects made in `outer`.
    /// Undoing an append truncates to the old count, so the removal of an object made in `outer` or later
    /// needs no entry: nothing of an operation that succeeded keeps the objects it made and dropped.
    func need(inLevel outer: Int) -> Need {
        if subjectBorn >= outer { return .none }
        switch self {
        case let .popped(stack, screens):
            guard screens.contains(where: { $0.born >= outer }) else { return .whole }
            let old = screens.filter { $0.born < outer }
            return old.isEmpty ? .none : .part(.popped(stack, old))
        case let .removed(_, screen, _), let .screenRemoved(_, screen, _): return screen.born < outer ? .whole : .none
        case let .childRemoved(_, child, _): return child.born < outer ? .whole : .none
        case let .modalsRemoved(window, modals):
            // New modals were presented above the old ones (presenting appends, undone by truncation).
            let old = modals.filter { bornLevel(of: $0) < outer }
            return old.count == modals.count ? .whole : old.isEmpty ? .none : .part(.modalsRemoved(window, old))
        case let .modalReplaced(_, _, modal), let .windowRoot(_, modal):
            // Setting again what `outer` made: the entry that `outer` logged first puts back what was before.
            return bornLevel(of: modal) < outer ? .whole : .none
        case let .tabContent(_, _, content?): return content.born < outer ? .whole : .none
        default: return .whole
        }
    }

    /// What the level around needs of an entry (see ``need(inLevel:)``).
    enum Need {
        case none, whole
        case part(Change)
    }

    /// Puts the change back, as the level numbered `level` fails.
    func undo(inLevel level: Int) {
        switch self {
        case let .windowRoot(window, root): window.root = root
        case let .modalPresented(window, count): if window.modals.count > count { window.modals.removeSubrange(count...) }
        case let .modalsRemoved(window, modals): window.modals += modals
        case let .modalReplaced(window, index, modal): if window.modals.indices.contains(index) { window.modals[index] = modal }
        case let .sizeClass(window, sizeClass): window.sizeClass = sizeClass
        case let .pushed(stack, count): if stack.screens.count > count { stack.screens.removeSubrange(count...) }
        case let .popped(stack, screens): stack.screens += screens
        case let .removed(stack, screen, index): stack.screens.insert(screen, at: min(index, stack.screens.count))
        case let .stackReset(stack, screens, barHidden): (stack.screens, stack.barHidden) = (screens, barHidden)
        case let .selected(flows, index): flows.selectedIndex = index
        case let .badge(tabs, index, value): if tabs.badges.indices.contains(index) { tabs.badges[index] = value }
        case let .tabContent(tabs, index, content): tabs.contents[index] = content
        case let .placement(screen, owner, stack, isShown): (screen.owner, screen.stack, screen.isShown) = (owner, stack, isShown)
        case let .input(screen, name, value):
            screen.inputs[name] = value
            screen.renderCount -= 1
        case let .outputHandler(screen, name, handler): screen.handlers[name] = handler
        case let .screenSignalHandler(screen, name, handler): screen.signalHandlers[name] = handler
        case let .screenHandlers(screen, handlers, signalHandlers): (screen.handlers, screen.signalHandlers) = (handlers, signalHandlers)
        case let .childAdded(parent, count, router):
            guard parent.children.count > count else { return }
            for child in parent.children[count...] {
                child.parent = nil
                // Made in the failing level, its own changes were not logged: it starts again from scratch.
                if child.born >= level { child.resetAfterFailedStart(router: router) }
            }
            parent.children.removeSubrange(count...)
        case let .childRemoved(parent, child, index):
            parent.children.insert(child, at: min(index, parent.children.count))
            child.parent = parent
            child.depth = parent.depth + 1
        case let .status(coordinator, status): coordinator.status = status
        case let .screenAdded(coordinator, count):
            guard coordinator.screens.count > count else { return }
            for screen in coordinator.screens[count...] where screen.born >= level {
                (coordinator as? DroppedObjectsListener)?.forgetDroppedScreen(screen) // a bridge's list of its screens
                screen.takeOutOfFailedLevel() // not logged: made in the level
            }
            coordinator.screens.removeSubrange(count...)
        case let .screenRemoved(coordinator, screen, index): coordinator.screens.insert(screen, at: min(index, coordinator.screens.count))
        case let .router(coordinator, router): coordinator.router = router
        case let .hasShownScreens(coordinator): coordinator.hasShownScreens = false
        case let .showingChildren(coordinator, count): coordinator.showingChildren = count
        case let .coordinatorHandlers(coordinator, handlers): coordinator.handlers = handlers
        case let .root(window, root):
            if let current = window.coordinator, current !== root, current.born >= level { current.resetAfterFailedStart(router: nil) }
            window.coordinator = root
        case let .gateway(gateway, state): gateway.current = state
        case let .steps(log, count): log.truncate(to: count)
        case let .custom(_, restore): restore()
        }
    }
}

// MARK: - The writers

extension Window {
    func setRoot(_ container: Presentable) {
        if context.journal.isOpen { context.journal.record(.windowRoot(self, root)) }
        root = container
    }

    func appendModal(_ modal: Presentable) {
        if context.journal.isOpen { context.journal.record(.modalPresented(self, count: modals.count)) }
        modals.append(modal)
    }

    /// Removes the modals from `index` up and returns them.
    func removeModals(from index: Int) -> [Presentable] {
        let removed = Array(modals[index...])
        if context.journal.isOpen { context.journal.record(.modalsRemoved(self, removed)) }
        modals.removeSubrange(index...)
        return removed
    }

    func replaceModal(at index: Int, with modal: Presentable) {
        if context.journal.isOpen { context.journal.record(.modalReplaced(self, at: index, modals[index])) }
        modals[index] = modal
    }

    /// Makes `coordinator` its root flow.
    func setCoordinator(_ coordinator: Coordinator?) {
        if context.journal.isOpen { context.journal.record(.root(self, self.coordinator)) }
        self.coordinator = coordinator
        coordinator?.windowNumber = number
    }

    func setSizeClass(_ sizeClass: SizeClass) {
        if context.journal.isOpen { context.journal.record(.sizeClass(self, self.sizeClass)) }
        self.sizeClass = sizeClass
    }
}

extension NavigationStack {
    func append(_ screen: Screen) {
        if context.journal.shouldLog(born) { context.journal.record(.pushed(self, count: screens.count)) }
        screens.append(screen)
    }

    /// Removes the top `count` screens and returns them, bottom first.
    func removeLast(_ count: Int) -> [Screen] {
        let removed = Array(screens.suffix(count))
        let journal = context.journal
        if journal.shouldLog(born) {
            if removed.allSatisfy({ journal.shouldLog($0.born) }) {
                journal.record(.popped(self, removed))
            } else {
                let old = removed.filter { journal.shouldLog($0.born) } // the level's own go with it
                if !old.isEmpty { journal.record(.popped(self, old)) }
            }
        }
        screens.removeLast(count)
        return removed
    }

    func remove(at index: Int) {
        if context.journal.shouldLog(born), context.journal.shouldLog(screens[index].born) {
            context.journal.record(.removed(self, screens[index], at: index))
        }
        screens.remove(at: index)
    }

    /// Replaces every screen with `screens`; returns the ones that were there.
    func reset(to screens: [Screen], barHidden: Bool) -> [Screen] {
        let old = self.screens
        if context.journal.shouldLog(born) { context.journal.record(.stackReset(self, old, barHidden: self.barHidden)) }
        (self.screens, self.barHidden) = (screens, barHidden)
        return old
    }
}

extension FlowContainer {
    func select(_ index: Int) {
        if context.journal.shouldLog(born) { context.journal.record(.selected(self, selectedIndex)) }
        selectedIndex = index
    }
}

extension TabContainer {
    func setBadge(_ value: FlowValue?, at index: Int) {
        if context.journal.shouldLog(born) { context.journal.record(.badge(self, index, badges[index])) }
        badges[index] = value
    }

    /// Puts `content` where tab `index`'s stack was (nil: the stack takes its place back).
    func setContent(_ content: FlowContainer?, at index: Int) {
        if context.journal.shouldLog(born) { context.journal.record(.tabContent(self, index, contents[index])) }
        contents[index] = content
    }
}

extension Screen {
    /// Puts it in the window for `owner` (on `stack`, or by itself when nil), or takes it out (owner nil).
    func place(owner: Coordinator?, stack: NavigationStack?) {
        if context.journal.shouldLog(born) {
            context.journal.record(.placement(self, owner: self.owner, stack: self.stack, isShown: isShown))
        }
        (self.owner, self.stack, isShown) = (owner, stack, owner != nil)
    }

    func setInput(_ name: String, to value: FlowValue?) {
        if context.journal.shouldLog(born) { context.journal.record(.input(self, name, inputs[name])) }
        inputs[name] = value
        renderCount += 1
    }

    func setHandler(_ handler: ((FlowValue?) throws -> Void)?, for output: String) {
        if context.journal.shouldLog(born) { context.journal.record(.outputHandler(self, output, handlers[output])) }
        handlers[output] = handler
    }

    func setSignalHandler(_ handler: SignalHandler?, for name: String) {
        if context.journal.shouldLog(born) { context.journal.record(.screenSignalHandler(self, name, signalHandlers[name])) }
        signalHandlers[name] = handler
    }

    func clearHandlers() {
        if context.journal.shouldLog(born) { context.journal.record(.screenHandlers(self, handlers, signalHandlers)) }
        handlers.removeAll()
        signalHandlers.removeAll()
    }

    /// Made in a level that failed: out of the window, not logged (see ``MadeObject``).
    func takeOutOfFailedLevel() { (owner, stack, isShown) = (nil, nil, false) }
}

extension Coordinator {
    private func log(_ change: @autoclosure () -> Change) {
        if let context, context.journal.shouldLog(born) { context.journal.record(change()) }
    }

    func appendChild(_ child: Coordinator) {
        log(.childAdded(self, count: children.count, router: child.router))
        children.append(child)
        child.parent = self
        child.depth = depth + 1
        if child.isShowingSubtree { childStartedShowing() }
    }

    func removeChild(at index: Int) {
        let child = children[index]
        if let context, context.journal.shouldLog(child.born) { log(.childRemoved(self, child, at: index)) }
        children.remove(at: index)
        child.parent = nil
        if child.isShowingSubtree { childStoppedShowing() }
    }

    func setStatus(_ status: Status) {
        log(.status(self, self.status))
        self.status = status
    }

    func appendScreen(_ screen: Screen) {
        let wasShowing = isShowingSubtree
        log(.screenAdded(self, count: screens.count))
        screens.append(screen)
        if !hasShownScreens { markShownScreens() }
        if !wasShowing { parent?.childStartedShowing() }
    }

    func removeScreen(_ screen: Screen) {
        guard let index = screens.lastIndex(where: { $0 === screen }) else { return }
        if screen.context.journal.shouldLog(screen.born) { log(.screenRemoved(self, screen, at: index)) }
        screens.remove(at: index)
        if !isShowingSubtree { parent?.childStoppedShowing() }
    }

    func setRouter(_ router: (any Router)?) {
        log(.router(self, self.router))
        self.router = router
    }

    /// It or a descendant showed a screen, so losing them all means the flow is gone: marks it and the
    /// ancestors not marked yet.
    func markShownScreens() {
        var node: Coordinator? = self
        while let current = node, !current.hasShownScreens {
            current.log(.hasShownScreens(current))
            current.hasShownScreens = true
            node = current.parent
        }
    }

    /// A child's subtree went from showing nothing to showing a screen; passed up while ancestors change
    /// the same way (usually not past the parent, which already shows a screen).
    private func childStartedShowing() {
        var node: Coordinator? = self
        while let current = node {
            let wasShowing = current.isShowingSubtree
            current.log(.showingChildren(current, current.showingChildren))
            current.showingChildren += 1
            if wasShowing { return }
            node = current.parent
        }
    }

    /// A child's subtree stopped showing screens; passed up while ancestors change the same way.
    private func childStoppedShowing() {
        var node: Coordinator? = self
        while let current = node {
            current.log(.showingChildren(current, current.showingChildren))
            current.showingChildren -= 1
            if current.isShowingSubtree { return }
            node = current.parent
        }
    }

    /// Back to how it was before it started, after the level it first started in failed (its own changes
    /// in that level were not logged). Its handlers stay: they were set by whoever made it, or by the
    /// failed start, which sets them again.
    /// Started in a level that failed and dropped with it (see ``MadeObject``): reset, and without handlers.
    func dropAfterFailedLevel() {
        resetAfterFailedStart(router: nil)
        handlers = Handlers()
    }

    func resetAfterFailedStart(router: (any Router)?) {
        (parent, children, screens, status) = (nil, [], [], .idle)
        (self.router, showingChildren, hasShownScreens, isNotedLost) = (router, 0, false, false)
    }

    func setHandlers(_ handlers: Handlers) {
        log(.coordinatorHandlers(self, self.handlers))
        self.handlers = handlers
    }
}

extension Window {
    /// Presents `module` as `presentation` says (undone with the operation).
    func setPresentation(_ presentation: Presentation, of module: Presentable) {
        guard let module = module as? any Restylable, module.presentation != presentation else { return }
        let old = module.presentation
        module.presentation = presentation
        context.journal.recordAlways(.custom(born: 0) { module.presentation = old })
    }
}

extension Application {
    /// Makes `coordinator` the root flow of the window the user acts on.
    func setRoot(_ coordinator: Coordinator?) { window.setCoordinator(coordinator) }
}

extension Gateway {
    func set(_ state: AppState) {
        if context.journal.isOpen { context.journal.record(.gateway(self, current)) }
        current = state
    }
}
