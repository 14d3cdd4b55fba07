/// Counts of live objects, for leak checks.
public final class LiveObjects {
    public internal(set) var coordinators = 0
    public internal(set) var screens = 0
    /// Whether the app is still there, and whether anyone observes its events: a screen reads them on
    /// every output without loading its weak reference to the app.
    var appIsAlive = true
    var isObserved = false
}

/// One running app: the window (navigation model), the coordinator tree, the gateway, the screen catalog
/// and the event stream.
///
/// ```swift
/// let app = Application(state: .authorization)
/// app.catalog.register(ScreenType("Login", outputs: [OutputSpec("login", payload: .value)]))
/// let events = app.observe { print($0) }
/// try app.start(appCoordinator)
/// try app.tap("login", payload: ["name": "Ann", "password": "secret"])   // the user acts
/// try app.back()                                                        // Back button / swipe down
/// app.window.visibleScreen?.name
/// ```
///
/// **Atomic operations.** Every operation that fails (a navigation mistake, an error thrown by a handler
/// or by a coordinator's `start`) leaves the window, the tree, every screen's inputs and the gateway exactly
/// as they were, and its events are never reported. Operations nest: ``atomically(_:)`` groups several.
///
/// **Isolation.** Not thread-safe and not `Sendable`: an application and everything in it belongs to the
/// isolation domain that created it (for example the main actor).
public final class Application: Journaled {
    /// The headless UI: root container and modals.
    public private(set) lazy var window = Window(app: self)
    /// The app state that decides the starting flow.
    public private(set) lazy var gateway = Gateway(app: self, state: initialState)
    /// Every screen type of the app.
    public private(set) lazy var catalog = ScreenCatalog(app: self)
    private let initialState: AppState
    /// The root coordinator, once started.
    public private(set) var root: Coordinator?
    /// Live coordinators and screens of this app.
    public let live = LiveObjects()
    /// The built-in screen type of alerts.
    public private(set) var alertType: ScreenType

    private var idCounter = 0
    /// Numbers signal deliveries; a node marked with the current one has been reached.
    private var signalRound = 0
    /// Checked on every event, so exclusivity is not checked at run time. Safe: an app lives on one thread
    /// (it is not Sendable), and each access is one read or one assignment; delivery iterates a copy, so
    /// an observer that adds or removes observers does not overlap it.
    @exclusivity(unchecked) private var observers: [(id: Int, handler: (NavigationEvent) -> Void)] = []
    /// Coordinators that lost screens, to examine at the next settle.
    private var candidates: [ObjectIdentifier: Coordinator] = [:]
    /// Coordinators that lost screens during the outermost operation, examined again when it ends: the
    /// coordinator that acted is spared while it acts, not afterwards.
    private var lostScreens: [ObjectIdentifier: Coordinator] = [:]

    /// What the running operation changed, oldest first: restored newest first if it fails, so every
    /// object ends as it was when it was first recorded. Nested operations share it: one that succeeds
    /// simply leaves its entries to the operation around it.
    private var undoLog: [() -> Void] = []
    private var levels: [JournalLevel] = []
    /// Numbers operation levels; an object marked with the current one is already recorded.
    private var levelSerial = 0
    /// Marks this app when it records its own state.
    var journalMark = 0

    private struct JournalKey: Hashable {
        let object: ObjectIdentifier
        let part: String
    }

    private struct JournalLevel {
        let serial: Int
        /// Where its entries start in the undo log.
        let start: Int
        var events: [NavigationEvent] = []
        /// `recordForUndo` parts recorded in this level (core objects use marks instead).
        var userParts: Set<JournalKey> = []
    }

    public init(state: AppState = .authorization) {
        alertType = ScreenType("Alert", inputs: ["title", "message"]) { screen in
            [screen["title"]?.displayText, screen["message"]?.displayText].compactMap { $0 }.joined(separator: "\n")
        }
        initialState = state
    }

    deinit { live.appIsAlive = false }

    func nextID() -> Int {
        idCounter += 1
        return idCounter
    }

    // MARK: Events

    /// Calls `handler` with every event that happens from now on, in order, until ``removeObserver(_:)``.
    /// Returns a token.
    @discardableResult
    public func observe(_ handler: @escaping (NavigationEvent) -> Void) -> Int {
        let id = nextID()
        observers.append((id, handler))
        live.isObserved = true
        return id
    }

    public func removeObserver(_ token: Int) {
        observers.removeAll { $0.id == token }
        live.isObserved = !observers.isEmpty
    }

    /// Reports an event, or queues it until the current operation succeeds. Nobody observing, it is not
    /// even built.
    func emit(_ event: @autoclosure () -> NavigationEvent) {
        guard !observers.isEmpty else { return }
        if levels.isEmpty {
            let event = event()
            for observer in observers { observer.handler(event) }
        } else {
            levels[levels.count - 1].events.append(event())
        }
    }

    // MARK: Atomic operations

    /// Whether `object` must be recorded before it changes: an operation is running and has not recorded
    /// it yet (it is marked as recorded now). Call it before taking the snapshot, so that an object
    /// changed many times is copied once.
    func needsRecord(_ object: some Journaled) -> Bool {
        guard let level = levels.last, object.journalMark != level.serial else { return false }
        object.journalMark = level.serial
        return true
    }

    /// Adds how to put something back if the running operation fails (`needsRecord` said to).
    func addUndo(_ restore: @escaping () -> Void) { undoLog.append(restore) }

    /// Makes your own state follow the app's atomic operations: call it *before* changing `part` of
    /// `object` inside an operation; if the operation fails, `restore` puts the old value back. Outside an
    /// operation it does nothing. The first call for an `(object, part)` in an operation wins.
    ///
    /// ```swift
    /// app.recordForUndo(self, part: "instance") { [saved = instance] in self.instance = saved }
    /// instance = nil
    /// ```
    public func recordForUndo(_ object: AnyObject, part: String, restore: @escaping () -> Void) {
        guard !levels.isEmpty,
              levels[levels.count - 1].userParts.insert(JournalKey(object: ObjectIdentifier(object), part: part)).inserted
        else { return }
        undoLog.append { _ = object; restore() } // keeps the object alive
    }

    /// Makes your own state follow the app's atomic operations, for state that changes often: call it
    /// *before* every change of the state `mark` guards; the first call in an operation takes the snapshot
    /// (`snapshot` returns the closure that restores it) and later ones cost a comparison. Outside an
    /// operation it does nothing.
    ///
    /// ```swift
    /// var mark = UndoMark()
    /// func record() { app.recordForUndo(&mark) { [saved = (instance, screens)] in { (self.instance, self.screens) = saved } } }
    /// record(); instance = nil
    /// ```
    public func recordForUndo(_ mark: inout UndoMark, snapshot: () -> () -> Void) {
        guard let level = levels.last, mark.serial != level.serial else { return }
        mark.serial = level.serial
        undoLog.append(snapshot())
    }

    /// Says that the state `mark` guards was made in the running operation, before anything could see it:
    /// if the operation fails, what holds that state is dropped with it, so nothing needs putting back and
    /// ``recordForUndo(_:snapshot:)`` records nothing more in this operation (nested operations still
    /// record their changes). Outside an operation it does nothing.
    ///
    /// ```swift
    /// let screen = try app.catalog.make("Regions")     // new: nothing holds it yet
    /// app.madeInOperation(&handlers.mark)              // its handlers start empty in this operation
    /// ```
    public func madeInOperation(_ mark: inout UndoMark) {
        if let level = levels.last { mark.serial = level.serial }
    }

    func recordScreen(_ screen: Screen) {
        guard needsRecord(screen) else { return }
        let saved = (screen.inputs, screen.owner, screen.isShown, screen.renderCount, screen.handlers, screen.signalHandlers)
        addUndo {
            (screen.inputs, screen.owner, screen.isShown, screen.renderCount, screen.handlers, screen.signalHandlers) = saved
        }
    }

    /// Runs `body` as one operation: if it throws, everything it changed is restored and its events are
    /// dropped; if it succeeds, its events are reported (when no outer operation is running).
    public func atomically<T>(_ body: () throws -> T) throws -> T {
        levelSerial &+= 1
        levels.append(JournalLevel(serial: levelSerial, start: undoLog.count))
        let result: T
        do {
            result = try body()
            if levels.count == 1 { try settleOperation() }
        } catch {
            let level = levels.removeLast()
            let changes = undoLog[level.start...]
            for restore in changes.reversed() { restore() }
            undoLog.removeSubrange(level.start...)
            candidates.removeAll()
            if levels.isEmpty { lostScreens.removeAll() }
            throw error
        }
        let level = levels.removeLast()
        if levels.isEmpty {
            undoLog.removeAll(keepingCapacity: true)
            for event in level.events { for observer in observers { observer.handler(event) } }
        } else if !level.events.isEmpty {
            levels[levels.count - 1].events += level.events
        }
        return result
    }

    private func recordSelf() {
        guard needsRecord(self) else { return }
        let saved = root
        addUndo { self.root = saved }
    }

    // MARK: Driving (what the user does)

    /// Starts the root coordinator (usually an ``ApplicationCoordinator``) on the window's navigation stack.
    public func start(_ coordinator: Coordinator, with args: FlowValue? = nil) throws {
        if let root, root.status == .running {
            throw NavigationError(.alreadyStarted, "the app already runs \(root.name)")
        }
        try atomically {
            guard let stack = window.root as? NavigationStack, stack.screens.isEmpty, window.modals.isEmpty else {
                throw NavigationError(.alreadyStarted, "the window already shows screens")
            }
            attach(coordinator)
            if coordinator.parent != nil || coordinator.status != .idle {
                throw NavigationError(.alreadyStarted, "\(coordinator.name) already runs")
            }
            recordSelf()
            root = coordinator
            coordinator.record()
            coordinator.router = HeadlessRouter(app: self, stack: stack, owner: coordinator)
            coordinator.status = .running
            emit(.started(coordinator.info, parent: nil))
            try coordinator.start(args)
        }
    }

    /// The visible screen emits an output, as if the user acted. Undone entirely if a handler fails.
    public func tap(_ output: String, payload: FlowValue? = nil) throws {
        try atomically {
            guard let screen = window.visibleScreen else { throw NavigationError(.noVisibleScreen, "no screen is visible") }
            try screen.emit(output, payload: payload)
        }
    }

    /// The system back: the Back button (or edge swipe) on the visible navigation stack, or a swipe-down
    /// that dismisses the top modal. The coordinators whose last screen left finish by themselves.
    public func back() throws {
        try atomically {
            if let top = window.modals.last {
                if let screen = top as? Screen, screen.type === alertType {
                    let actions = screen.outputs.map(\.name).joined(separator: ", ")
                    throw NavigationError(.alertNeedsAction, "an alert is showing: choose one of its actions (\(actions))")
                }
                if let stack = Window.visibleStack(of: top), stack.screens.count > 1 {
                    try pop(stack, by: nil, animated: true, bySystem: true)
                } else {
                    try dismiss(by: nil, animated: true, bySystem: true)
                }
            } else if let stack = Window.visibleStack(of: window.root), stack.screens.count > 1 {
                try pop(stack, by: nil, animated: true, bySystem: true)
            } else {
                let name = window.visibleScreen.map { " (\($0.name) is the root screen)" } ?? ""
                throw NavigationError(.nothingToGoBack, "there is nothing to go back to\(name)")
            }
        }
    }

    /// The user selects a tab of the visible tab container.
    public func selectTab(_ index: Int) throws {
        try atomically {
            guard let tabs = (window.modals.reversed() + [window.root]).first(where: { $0 is TabContainer }) as? TabContainer else {
                throw NavigationError(.badTab, "no tab bar is showing")
            }
            try selectTab(index, of: tabs, bySystem: true)
        }
    }

    /// Sets input `name` on every shown screen that declares it, across stacks, modals and tabs (data back
    /// through the stack). Returns how many screens were updated.
    @discardableResult
    public func update(_ name: String, to value: FlowValue?) throws -> Int {
        try atomically {
            var count = 0
            for screen in window.allScreens where screen.type.input(named: name) != nil {
                try screen.set(name, to: value)
                count += 1
            }
            return count
        }
    }

    // MARK: Navigation primitives (callers wrap them in `atomically`)

    func complete(_ completion: (() throws -> Void)?) throws { try completion?() }

    func push(_ screen: Screen, on stack: NavigationStack, by actor: Coordinator, animated: Bool) throws {
        guard window.contains(stack) else {
            throw NavigationError(.containerNotShown, "\(actor.name)'s navigation stack is no longer shown")
        }
        guard !screen.isShown else { throw NavigationError(.screenInUse, "screen \(screen.info) is already shown") }
        stack.record()
        stack.screens.append(screen)
        attach(screen, to: actor)
        emit(.pushed(screen.info, animated: animated))
    }

    func pop(_ stack: NavigationStack, by actor: Coordinator?, animated: Bool, bySystem: Bool) throws {
        guard window.contains(stack) else {
            throw NavigationError(.containerNotShown, "the navigation stack is no longer shown")
        }
        guard stack.screens.count > 1, let top = stack.screens.last else {
            let name = stack.screens.first.map { " \($0.name)" } ?? ""
            throw NavigationError(.popRoot, "cannot pop\(name): it is the root of its navigation stack")
        }
        stack.record()
        stack.screens.removeLast()
        try detach([top], bySystem: bySystem)
        emit(.popped([top.info], animated: animated, bySystem: bySystem))
        try settle(actor: actor)
    }

    func pop(_ stack: NavigationStack, to screen: Screen, by actor: Coordinator, animated: Bool) throws {
        guard let index = stack.screens.firstIndex(where: { $0 === screen }) else {
            throw NavigationError(.screenInUse, "screen \(screen.info) is not on this navigation stack")
        }
        try popAbove(index, of: stack, by: actor, animated: animated)
    }

    func popToRoot(_ stack: NavigationStack, by actor: Coordinator, animated: Bool) throws {
        guard window.contains(stack) else {
            throw NavigationError(.containerNotShown, "\(actor.name)'s navigation stack is no longer shown")
        }
        try popAbove(0, of: stack, by: actor, animated: animated)
    }

    private func popAbove(_ index: Int, of stack: NavigationStack, by actor: Coordinator, animated: Bool) throws {
        let removed = Array(stack.screens.dropFirst(index + 1))
        guard !removed.isEmpty else { return }
        stack.record()
        stack.screens.removeLast(removed.count)
        try detach(removed)
        emit(.popped(removed.reversed().map(\.info), animated: animated, bySystem: false))
        try settle(actor: actor)
    }

    func setRoot(_ screen: Screen, of stack: NavigationStack, hideBar: Bool, by actor: Coordinator, animated: Bool) throws {
        guard window.contains(stack) else {
            throw NavigationError(.containerNotShown, "\(actor.name)'s navigation stack is no longer shown")
        }
        guard !screen.isShown else { throw NavigationError(.screenInUse, "screen \(screen.info) is already shown") }
        let removed = stack.screens
        stack.record()
        stack.screens = [screen]
        stack.barHidden = hideBar
        attach(screen, to: actor)
        try detach(removed)
        emit(.rootSet(screen.info, hideBar: hideBar, animated: animated))
        try settle(actor: actor)
    }

    func present(_ module: Presentable, by actor: Coordinator, animated: Bool) throws {
        if window.root === module || window.modals.contains(where: { $0 === module }) || module.screens.contains(where: \.isShown) {
            throw NavigationError(.screenInUse, "\(module.containerName) is already shown")
        }
        window.record()
        window.modals.append(module)
        for screen in module.screens { attach(screen, to: actor) }
        emit(.presented(module.containerName, animated: animated))
    }

    func dismiss(by actor: Coordinator?, animated: Bool, bySystem: Bool) throws {
        guard let top = window.modals.last else {
            throw NavigationError(.nothingPresented, "nothing is presented, so there is nothing to dismiss")
        }
        window.record()
        window.modals.removeLast()
        try detach(top.screens, bySystem: bySystem)
        emit(.dismissed(top.containerName, animated: animated, bySystem: bySystem))
        try settle(actor: actor)
    }

    func dismissAlert(_ alert: Screen, by actor: Coordinator) throws {
        guard let index = window.modals.firstIndex(where: { $0 === alert }) else { return }
        try removeModals(from: index, by: actor)
    }

    func selectTab(_ index: Int, of tabs: TabContainer, bySystem: Bool) throws {
        guard tabs.stacks.indices.contains(index) else {
            throw NavigationError(.badTab, "there is no tab \(index + 1) (tabs: \(tabs.titles.joined(separator: ", ")))")
        }
        guard index != tabs.selectedIndex else { return }
        tabs.record()
        tabs.selectedIndex = index
        emit(.tabSelected(index, bySystem: bySystem))
    }

    func tabContainer(holding stack: NavigationStack) -> TabContainer? {
        ([window.root] + window.modals).lazy.compactMap { $0 as? TabContainer }.first { $0.stacks.contains { $0 === stack } }
    }

    func replaceContainer(of stack: NavigationStack, with container: TabContainer, by actor: Coordinator) throws {
        window.record()
        if window.root === stack {
            window.root = container
        } else if let index = window.modals.firstIndex(where: { $0 === stack }) {
            window.modals[index] = container
        } else {
            throw NavigationError(.containerNotShown, "\(actor.name)'s navigation stack is not a root or modal container")
        }
        try detach(stack.screens)
        emit(.presented(container.containerName, animated: false))
        try settle(actor: actor)
    }

    /// Removes modals from `index` up (UIKit dismisses everything above a dismissed controller too).
    private func removeModals(from index: Int, by actor: Coordinator?) throws {
        window.record()
        let removed = Array(window.modals[index...])
        window.modals.removeSubrange(index...)
        for modal in removed.reversed() {
            try detach(modal.screens)
            emit(.dismissed(modal.containerName, animated: true, bySystem: false))
        }
        try settle(actor: actor)
    }

    /// Removes one screen from wherever it is shown; a modal stack left empty is dismissed.
    private func remove(_ screen: Screen, by actor: Coordinator) throws {
        for (index, modal) in window.modals.enumerated() {
            if modal === screen { return try removeModals(from: index, by: actor) }
            if let stack = modal as? NavigationStack, stack.screens.contains(where: { $0 === screen }) {
                if stack.screens.count == 1 { return try removeModals(from: index, by: actor) }
                return try removeFromStack(screen, stack, by: actor)
            }
            if let tabs = modal as? TabContainer, let stack = tabs.stacks.first(where: { $0.screens.contains { $0 === screen } }) {
                return try removeFromStack(screen, stack, by: actor)
            }
        }
        if let stack = window.allStacks.first(where: { $0.screens.contains { $0 === screen } }) {
            try removeFromStack(screen, stack, by: actor)
        }
    }

    private func removeFromStack(_ screen: Screen, _ stack: NavigationStack, by actor: Coordinator) throws {
        stack.record()
        stack.screens.removeAll { $0 === screen }
        try detach([screen])
        emit(.popped([screen.info], animated: true, bySystem: false))
        try settle(actor: actor)
    }

    // MARK: Ownership

    private func attach(_ coordinator: Coordinator) {
        guard coordinator.app == nil else { return }
        coordinator.app = self
        coordinator.id = nextID()
        coordinator.live = live
        live.coordinators += 1
    }

    private func attach(_ screen: Screen, to owner: Coordinator) {
        recordScreen(screen)
        screen.isShown = true
        screen.owner = owner
        owner.record()
        owner.screens.append(screen)
        var node: Coordinator? = owner
        while let current = node, !current.hasShownScreens {
            current.record()
            current.hasShownScreens = true
            node = current.parent
        }
    }

    private func detach(_ screens: [Screen], bySystem: Bool = false) throws {
        var left: [(Coordinator, Screen)] = []
        for screen in screens {
            recordScreen(screen)
            screen.isShown = false
            guard let owner = screen.owner else { continue }
            owner.record()
            owner.screens.removeAll { $0 === screen }
            candidates[ObjectIdentifier(owner)] = owner
            lostScreens[ObjectIdentifier(owner)] = owner
            left.append((owner, screen))
        }
        for (owner, screen) in left where owner.status == .running { try owner.screenDidLeave(screen, bySystem: bySystem) }
    }

    /// At the end of an outermost operation: no coordinator that lost its screens during it may stay alive
    /// without any, not even the one that removed them itself.
    private func settleOperation() throws {
        while !lostScreens.isEmpty {
            candidates = lostScreens
            lostScreens.removeAll()
            try settle(actor: nil, reason: .screensRemoved)
        }
    }

    /// Finishes every coordinator whose whole subtree lost its screens, deepest first, except the root and
    /// the coordinator that acted (and its ancestors): the user going back (actor nil) or another
    /// coordinator's navigation can never leave a flow alive without screens.
    private func settle(actor: Coordinator?, reason: FinishReason? = nil) throws {
        while true {
            var eligible: [Coordinator] = []
            var seen = Set<ObjectIdentifier>()
            for start in candidates.values {
                var node: Coordinator? = start
                while let current = node, seen.insert(ObjectIdentifier(current)).inserted {
                    if current.status == .running, current !== root, current.app === self, current.hasShownScreens,
                       current.subtreeScreenCount == 0, current !== actor, actor.map({ !$0.isDescendant(of: current) }) ?? true {
                        eligible.append(current)
                    }
                    node = current.parent
                }
            }
            guard let deepest = eligible.max(by: { depth($0) < depth($1) }) else {
                candidates.removeAll()
                return
            }
            let parent = deepest.parent
            try finish(deepest, result: nil, reason: reason ?? (actor == nil ? .systemBack : .screensRemoved))
            if let parent { candidates[ObjectIdentifier(parent)] = parent } // it may have lost its last flow
        }
    }

    private func depth(_ coordinator: Coordinator) -> Int {
        var depth = 0
        var node = coordinator.parent
        while let current = node { depth += 1; node = current.parent }
        return depth
    }

    // MARK: Coordinators

    func run(_ child: Coordinator, under parent: Coordinator, args: FlowValue?, modal: Bool) throws {
        attach(child)
        if child.status != .idle {
            throw NavigationError(child.status == .running ? .alreadyStarted : .alreadyFinished,
                                  "\(child.name) has \(child.status == .running ? "already started" : "finished"); create a new coordinator")
        }
        try parent.addChild(child)
        child.record()
        if modal {
            let stack = NavigationStack(app: self)
            try present(stack, by: child, animated: true)
            child.router = HeadlessRouter(app: self, stack: stack, owner: child)
            child.hasShownScreens = true
        } else if child.router?.app !== self || child.router?.owner !== child {
            child.router = try parent.navigationRouter().derived(for: child)
        } // else: it was given a router of its own (a tab's)
        child.status = .running
        emit(.started(child.info, parent: parent.info))
        try child.start(args)
        if child.hasShownScreens { lostScreens[ObjectIdentifier(child)] = child } // a modal flow that shows nothing
    }

    func finish(_ coordinator: Coordinator, result: FlowValue?, reason: FinishReason) throws {
        switch coordinator.status {
        case .running: break
        case .idle: throw NavigationError(.notRunning, "\(coordinator.name) has not started, so it cannot finish")
        case .finishing, .finished: throw NavigationError(.alreadyFinished, "\(coordinator.name) has already finished")
        }
        coordinator.record()
        coordinator.status = .finishing
        for child in coordinator.children.reversed() where child.status == .running {
            try finish(child, result: nil, reason: .parentFinished)
        }
        for screen in coordinator.screens { try remove(screen, by: coordinator) }
        if let modalStack = coordinator.router?.stack, coordinator.router?.stack !== coordinator.parent?.router?.stack,
           modalStack.screens.isEmpty, let index = window.modals.firstIndex(where: { $0 === modalStack })
        {
            try removeModals(from: index, by: coordinator) // the empty modal stack it was given
        }
        let parent = coordinator.parent
        if let parent {
            parent.removeChild(coordinator)
            lostScreens[ObjectIdentifier(parent)] = parent // examined when the operation ends
        }
        coordinator.status = .finished
        emit(.finished(coordinator.info, reason: reason, result: result))
        coordinator.didFinish(result, reason: reason)
        guard reason != .parentFinished else { return }
        try coordinator.finishHandler?(result, reason)
        try parent?.childDidFinish(coordinator, result: result, reason: reason)
    }

    func restart(_ coordinator: Coordinator, args: FlowValue?) throws {
        for child in coordinator.children.reversed() where child.status == .running {
            try finish(child, result: nil, reason: .parentFinished)
        }
        for screen in coordinator.screens { try remove(screen, by: coordinator) }
        emit(.started(coordinator.info, parent: coordinator.parent?.info))
        try coordinator.start(args)
    }

    // MARK: Signals

    /// Delivers a signal breadth first from its sender: nearest nodes first, each node once.
    ///
    /// The queue holds whole neighbour lists (a coordinator's screens, its children, its parent) rather
    /// than single nodes, so crossing a node costs no reference counting of its own (coordinators have
    /// side tables for their weak references, which makes each count slow); nodes are marked with the
    /// number of this delivery instead of being kept in a set, so there is no hashing either. A list
    /// reached from a parent skips the upward step (a weak load): a signal from the root never looks up.
    func send(_ signal: Signal) throws -> Signal {
        signalRound &+= 1
        let round = signalRound
        var queue: [SignalSegment] = []
        queue.reserveCapacity(16)
        signal.sender.mark(round)
        switch signal.sender {
        case .coordinator(let coordinator): enqueueNeighbors(of: coordinator, fromParent: false, into: &queue)
        case .screen(let screen): if let owner = screen.owner { queue.append(.coordinators([owner], fromParent: false)) }
        }
        var head = 0, reached = 0
        deliver: while head < queue.count {
            let segment = queue[head]
            head += 1
            switch segment {
            case .screens(let screens):
                for screen in screens where screen.signalMark != round {
                    guard !signal.isStopped else { break deliver }
                    screen.signalMark = round
                    reached += 1
                    if !screen.signalHandlers.isEmpty, let handler = screen.signalHandlers[signal.name] {
                        try handler(signal)
                        signal.received(by: screen.name, id: screen.id)
                    }
                    // A screen's only other neighbour is its owner, which reached it.
                }
            case .coordinators(let coordinators, let fromParent):
                for coordinator in coordinators where coordinator.signalMark != round {
                    guard !signal.isStopped else { break deliver }
                    coordinator.signalMark = round
                    reached += 1
                    guard coordinator.status == .running else { continue } // a finished flow passes nothing on
                    try coordinator.receive(signal)
                    if !coordinator.signalHandlers.isEmpty, coordinator.signalHandlers[signal.name] != nil {
                        signal.received(by: coordinator.name, id: coordinator.id)
                    }
                    enqueueNeighbors(of: coordinator, fromParent: fromParent, into: &queue)
                }
            }
        }
        emit(.signal(signal.name, from: signal.sender.description, receivers: reached))
        return signal
    }

    /// Queues a coordinator's screens, the children signals may reach, and (unless it was reached from
    /// its parent) its parent.
    private func enqueueNeighbors(of coordinator: Coordinator, fromParent: Bool, into queue: inout [SignalSegment]) {
        let screens = coordinator.screens
        if !screens.isEmpty { queue.append(.screens(screens)) }
        let children = coordinator.children
        if !children.isEmpty {
            switch coordinator.signalIsolation {
            case .open: queue.append(.coordinators(children, fromParent: true))
            case .only(let chosen):
                let allowed = children.filter { child in chosen.contains { $0 === child } }
                if !allowed.isEmpty { queue.append(.coordinators(allowed, fromParent: true)) }
            }
        }
        if !fromParent, let parent = coordinator.parent { queue.append(.coordinators([parent], fromParent: false)) }
    }
}

/// Neighbours a signal reaches together: they are checked for a mark when their turn comes.
private enum SignalSegment {
    case screens([Screen])
    case coordinators([Coordinator], fromParent: Bool)
}

extension Window {
    /// The navigation stack the Back button works on inside a container.
    static func visibleStack(of container: Presentable) -> NavigationStack? {
        switch container {
        case let stack as NavigationStack: stack
        case let tabs as TabContainer: tabs.selectedStack
        default: nil
        }
    }
}

/// Which operation last recorded some state (see ``Application/recordForUndo(_:snapshot:)``).
public struct UndoMark: Sendable {
    var serial = 0
    public init() {}
}

/// A core object whose whole state one snapshot restores. It carries the number of the operation level
/// that recorded it, so that it is recorded once per level without looking it up anywhere.
protocol Journaled: AnyObject {
    var journalMark: Int { get set }
}

extension Coordinator: Journaled {}
extension Screen: Journaled {}
extension NavigationStack: Journaled {}
extension TabContainer: Journaled {}
extension Window: Journaled {}
extension Gateway: Journaled {}
