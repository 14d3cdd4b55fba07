/// One running app: the window (navigation model), the coordinator tree, the gateway, the screen catalog
/// and the event stream, and what the user does to it.
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
/// Where things are: this file is the front (what the user does); `Transaction.swift` makes operations
/// atomic over the journal (`Journal.swift`), whose entries (`Change.swift`) are the only writers of navigation state;
/// `Navigator.swift` carries out ``Transition``s; `Lifecycle.swift` runs, finishes and releases
/// coordinators; `SignalDelivery.swift` spreads signals.
///
/// **Atomic operations.** Every operation that fails (a navigation mistake, an error thrown by a handler
/// or by a coordinator's `start`) leaves the window, the tree, every screen's inputs and the gateway exactly
/// as they were, and its events are never reported. Operations nest: ``atomically(_:)`` groups several.
///
/// **Isolation.** Not thread-safe and not `Sendable`: an application and everything in it belongs to the
/// isolation domain that created it (for example the main actor).
public final class Application {
    let context: AppContext
    /// The app's windows (an iPad's scenes): one until the user opens another (``UserStep/openWindow``).
    public let windows: Windows
    /// The window the user acts on: its root container and modals (``Windows/current``).
    public var window: Window { windows.current }
    /// The app state that decides the starting flow.
    public let gateway: Gateway
    /// Every screen type of the app.
    public let catalog: ScreenCatalog
    /// The root coordinator of the window the user acts on, once started.
    public var root: Coordinator? { window.coordinator }
    /// Every window's root coordinator, in the windows' order.
    package var roots: [Coordinator] { windows.all.compactMap(\.coordinator) }
    /// The built-in screen type of alerts.
    package let alertType: ScreenType
    /// What a scripting layer carries out for the app (links, a relaunch) and where it joins in.
    package var scripting = ScriptingLayer()

    /// Running and finishing coordinators, and the rule that no flow outlives its screens.
    let lifecycle = Lifecycle()
    /// What the user did since the app started.
    package let stepLog: StepLog
    /// The random draws steps make, and the values given for them.
    package let draws = RandomDraws()
    /// Spreads signals through the tree.
    let signals = SignalDelivery()
    /// What the user does, taken (``perform(_:)`` hands it each step).
    package let input = UserInput()
    /// Carries out transitions and the system's own steps on the window the user acts on.
    var navigator: Navigator { Navigator(app: self, window: window) }

    /// Carries out what `actor` does, on its own window (a flow of another window than the current one
    /// acts there: an event, a timer, a signal reached it).
    func navigator(for actor: Coordinator?) -> Navigator { Navigator(app: self, window: actor.map(windows.window(of:)) ?? window) }

    /// What the user did since the app started, in order (see ``UserStep``): the taps, Backs, dismisses,
    /// tab selections and links of operations that succeeded.
    public var steps: [UserStep] { stepLog.steps }
    /// The gateway's state when the root coordinator last started: where ``steps`` begin (a snapshot's
    /// replay starts the app in it again).
    package var startState: AppState { stepLog.startState }
    /// The window's width when the root coordinator last started: a snapshot's replay starts the app that
    /// wide again.
    package var startSizeClass: SizeClass { stepLog.startWidth }
    /// The storage (without its secret keys) when the root coordinator last started: a snapshot's replay
    /// starts the app with it again.
    package var startStorage: FlowRecord { stepLog.startStorage }
    /// The most steps ``steps`` keeps (100,000 by default, a few megabytes); past it the app records no
    /// more and ``stepsOverflowed`` is true. A link that rebuilds the app from its start starts the count
    /// again.
    public var maximumSteps: Int {
        get { stepLog.maximum }
        set { stepLog.maximum = newValue }
    }
    /// Whether the app took more than ``maximumSteps`` steps since it started (its steps no longer lead to
    /// where it is, so a snapshot of it cannot be replayed).
    package var stepsOverflowed: Bool { stepLog.overflowed }

    /// An app whose gateway starts in `state`.
    public init(state: AppState = .authorization) {
        let context = AppContext()
        self.context = context
        windows = Windows(context: context)
        gateway = Gateway(context: context, state: state)
        stepLog = StepLog(journal: context.journal, startState: state)
        catalog = ScreenCatalog(context: context)
        clock = AppClock(context: context)
        laters = LaterQueue(context: context)
        requests = RequestBook(context: context)
        eventCatalog = EventCatalog(context: context)
        storage = AppStorage(context: context)
        alertType = ScreenType("Alert", inputs: ["title", "message", "style", "cancel", "destructive"]) { screen in
            [screen["title"]?.displayText, screen["message"]?.displayText].compactMap { $0 }.joined(separator: "\n")
        }
        context.attach(self)
        requests.app = self
    }

    deinit {
        context.events.end() // event streams finish
        context.applicationDidEnd()
        lifecycle.releaseEverything(of: self)
    }

    /// The requests of the app: the kinds it declares and those waiting for their answers.
    package let requests: RequestBook
    /// The kinds of request the outside answers, by kind.
    public var requestDeclarations: [String: RequestDeclaration] { requests.declarations }
    /// The requests waiting for their answers, oldest first.
    public var pendingRequests: [PendingRequest] { requests.pending }

    /// Declares a kind of request (a declaration of that kind again replaces it). Undone with the operation.
    public func declare(_ request: RequestDeclaration) { requests.declare(request) }

    /// The outside answers the `nth` (0: the oldest) pending request of `kind` with `outcome` and `value`
    /// (nil: the outcome's example), as a step of its own: the handler set on the request hears it. An
    /// undeclared kind or outcome, or no such request pending, is an error.
    public func answer(_ kind: String, nth: Int = 0, outcome: String, value: FlowValue? = nil) throws {
        try perform(.answer(kind, nth: nth, outcome: outcome, value: value))
    }

    /// Answers the pending request numbered `id` (``PendingRequest/id``), as ``answer(_:nth:outcome:value:)``
    /// does; false when it is no longer pending (answered, cancelled, its flow finished): the answer is dropped.
    @discardableResult
    public func answer(request id: Int, outcome: String, value: FlowValue? = nil) throws -> Bool {
        guard let (kind, nth) = requests.position(of: id) else { return false }
        try answer(kind, nth: nth, outcome: outcome, value: value)
        return true
    }

    /// The app's clock and its timers (virtual: it moves only with ``advance(by:)``).
    public let clock: AppClock

    /// The work coordinators asked to run right after the operation they run in (``Coordinator/later(_:)``).
    let laters: LaterQueue

    /// The laters that failed, counted with the last (its coordinator and why): the tools say so after the
    /// step that ran them.
    package var failedLaters: Tally<(owner: String, message: String)> { laters.failures }

    /// The app's storage: what outlives a launch (``AppStorage``), kept by ``relaunch()``.
    public let storage: AppStorage

    /// The app is closed and launched again, as a new process launches it, as one step of the user's side:
    /// the scripting layer runs its scripts again and starts the app; only ``storage`` and ``clock`` carry
    /// over, and the steps begin again there. An app without a scripting layer cannot relaunch (an error).
    public func relaunch() throws { try perform(.relaunch) }

    /// Time passes: the clock moves `seconds` on and every timer due by then fires, in due order, as one
    /// step of the user's side. Returns how many fired. A negative or non-finite time is an error.
    @discardableResult
    public func advance(by seconds: Double) throws -> Int {
        try perform(.advance(seconds))
        return input.lastFirings
    }

    /// The events the outside world may send it: the app's own and those declared.
    package let eventCatalog: EventCatalog
    /// The events the outside world may send it, by name (``EventCatalog``).
    public var eventDeclarations: [String: EventDeclaration] { eventCatalog.declarations }

    /// Declares an event the outside world sends (a declaration of that name again replaces it). Undone
    /// with the operation.
    public func declare(_ event: EventDeclaration) { eventCatalog.declare(event) }

    /// Sends an event from outside the flows (``EventDeclaration``) as a step of the user's side: every
    /// running coordinator with a handler for it hears it, from the root down, as one operation. Returns
    /// how many heard it (none is no error). An event the app does not declare, or a payload it does not
    /// take, is an error.
    @discardableResult
    public func send(event name: String, payload: FlowValue? = nil) throws -> Int {
        try perform(.event(name, payload: payload))
        return input.lastEventReceivers
    }

    /// Live coordinators and screens of this app, for leak checks.
    public var live: LiveObjects { context.live }
    /// The outputs no handler heard (taps that did nothing), for a REPL or a test to report.
    package var unheard: UnheardOutputs { context.unheard }
    /// The signals nothing heard (sends no coordinator or screen but the sender handles), for a REPL or a
    /// test to report.
    package var unheardSignals: UnheardSignals { context.unheardSignals }

    /// How the app's messages write data that has no name (an item an output did not accept): Swift literal
    /// syntax unless a scripting bridge gives its language's (Lua's table constructors).
    package var dataNotation: (FlowValue) -> String {
        get { context.notation }
        set { context.notation = newValue }
    }

    /// A headless router on the window's root navigation stack (what ``start(_:with:router:)`` uses when it
    /// is given none): wrap it to plug in a router of your own.
    public func headlessRouter() -> HeadlessRouter {
        HeadlessRouter(stack: Window.visibleStack(of: window.root) ?? NavigationStack(context: context))
    }

    // MARK: Events

    /// Calls `handler` with every event that happens from now on, in order (an operation's events once it
    /// has succeeded), until the returned observation is cancelled or the app goes. For Swift concurrency,
    /// ``navigationEvents(bufferingNewest:)`` gives the same events as an `AsyncSequence`.
    ///
    /// ```swift
    /// let observation = app.observe { event in print(event) }
    /// ...
    /// observation.cancel()
    /// ```
    @discardableResult
    public func observe(_ handler: @escaping (NavigationEvent) -> Void) -> NavigationObservation {
        NavigationObservation(app: self, token: context.events.add(handler))
    }

    /// Reports an event, or queues it until the current operation succeeds. Nobody observing, it is not
    /// even built.
    @inline(__always)
    package func emit(_ event: @autoclosure () -> NavigationEvent) {
        context.events.emit(event(), in: context.journal)
    }

    // MARK: Driving (what the user does)

    /// Starts the root coordinator (usually an ``ApplicationCoordinator``) on the window's navigation stack,
    /// with `router` (a ``HeadlessRouter`` on that stack when nil): every coordinator of the tree navigates
    /// through it or through routers it makes (``Router/router(on:)``).
    public func start(_ coordinator: Coordinator, with args: FlowValue? = nil, router: (any Router)? = nil) throws {
        if let root, root.status == .running {
            throw NavigationError(.alreadyStarted, "the app already runs \(root.name)")
        }
        try atomically {
            stepLog.started(in: gateway.state, width: window.sizeClass, storage: storage.withoutSecrets)
            try lifecycle.startRoot(coordinator, with: args, router: router, in: self)
        }
    }

    /// Makes the root that takes the place of one that finished by itself (`flow.app(Class)`: its class
    /// again), started with the finished root's result, as the gateway starts its next flow: an app's root
    /// flow restarts rather than leave an empty window. Nil: a finished root leaves the app without one.
    package var makeRootAgain: (() throws -> Coordinator)?

    /// Tears the whole tree down and starts a new root (``makeRootAgain``'s, or a root like the one that
    /// runs) in gateway state `state`, with `args` (which the gateway's flow for the state receives), in one
    /// step: a sign-out, a session that expired, another account. The flows torn down hear nothing (their
    /// `onFinish` does not run), as when a parent finishes.
    public func restart(in state: AppState, with args: FlowValue? = nil, root make: (() throws -> Coordinator)? = nil) throws {
        guard let maker = make ?? makeRootAgain else {
            throw NavigationError(.notRunning, "the app has no way to make its root again (Application.makeRootAgain)")
        }
        try atomically {
            let router = root?.router
            if let root, root.status == .running { try lifecycle.finish(root, result: nil, reason: .parentFinished, in: self) }
            gateway.state = state
            try lifecycle.startRoot(maker(), with: args, router: router, in: self)
        }
    }


    /// Does what the user did, as one operation that is undone entirely if anything in it fails (a
    /// navigation mistake, a handler's error), and records it in ``steps``. Every front that acts as the
    /// user (a host, a script's driver functions, a REPL, exploration, a snapshot's replay) comes here.
    public func perform(_ step: UserStep) throws {
        try draws.duringStep {
            let recorded = stepLog.steps.count
            // A hook for the end of every step (a held link continues there), in the step's operation.
            guard let afterStep = scripting.afterStep else {
                try input.take(step, in: self)
                try laters.run(in: self) // a step inside a link: its laters run before the next
                return stepLog.attach(draws: draws.taken, toStepAt: recorded)
            }
            try atomically {
                try input.take(step, in: self)
                try laters.run(in: self)
                try afterStep()
                stepLog.attach(draws: draws.taken, toStepAt: recorded)
            }
        }
    }

    /// A random value from `range` (at most 64 values), drawn in the step running now and recorded with it
    /// (``UserStep/drawn(_:values:)``): the first value given for it (a flow test's `random(k)`, a recorded
    /// step's draws), else one from the system's generator where draws are live (run mode, the REPL, the
    /// preview). Without either (flow tests, exploration), an error: exploration then takes each value of
    /// the range as a branch.
    package func draw(in range: ClosedRange<Int>) throws -> Int { try draws.draw(in: range) }

    /// The visible screen emits an output, as if the user acted: ``perform(_:)`` of ``UserStep/tap(_:payload:)``.
    public func tap(_ output: String, payload: FlowValue? = nil) throws { try perform(.tap(output, payload: payload)) }

    /// The system back: the Back button (or edge swipe) on the visible navigation stack, or a swipe-down
    /// that dismisses the top modal. The coordinators whose last screen left finish by themselves.
    public func back() throws { try perform(.back) }

    /// The swipe-down of the top modal: it goes with everything it holds (its whole navigation stack, not
    /// only the top page as ``back()`` does), and a flow left without screens finishes with reason
    /// `systemBack`. An alert cannot be swiped away.
    public func dismiss() throws { try perform(.dismiss) }

    /// The user selects a tab of the visible tab container (0-based).
    public func selectTab(_ index: Int) throws { try perform(.selectTab(index)) }

    /// The user selects the tab titled `title` of the visible tab container.
    public func selectTab(titled title: String) throws { try perform(.selectTab(tabIndex(titled: title))) }

    /// The index of the visible tab bar's tab titled `title`, or an error that lists the titles.
    package func tabIndex(titled title: String) throws -> Int {
        guard let tabs = visibleTabs else { throw NavigationError(.badTab, "no tab bar is showing") }
        guard let index = tabs.index(ofTitle: title) else {
            throw NavigationError(.badTab, "there is no tab titled '\(title)' (tabs: \(tabs.titles.joined(separator: ", ")))")
        }
        return index
    }

    /// The index of the visible pages' page titled `title`, or an error that lists the titles.
    package func pageIndex(titled title: String) throws -> Int {
        guard let pages = window.visiblePages else { throw NavigationError(.badTab, "no pages are showing") }
        guard let index = pages.index(ofTitle: title) else {
            throw NavigationError(.badTab, "there is no page titled '\(title)' (pages: \(pages.titles.joined(separator: ", ")))")
        }
        return index
    }

    /// Ends the running app as one step of the running operation, so that ``start(_:with:router:)`` can
    /// run again (a link that rebuilds the app from its start, a restore): the root and all its flows finish
    /// (reason `parentFinished`: no `onFinish` runs), every screen leaves, and the window gets an empty root
    /// stack. Undone with the operation.
    package func tearDown() throws { try lifecycle.tearDown(self) }

    /// The running coordinator named `name` a link dispatched to that flow acts on: the deepest in the tree,
    /// ties going to the one started last; nil when none runs. Costs the tree.
    package func runningCoordinator(named name: String) -> Coordinator? {
        var found: Coordinator?
        for node in root?.subtree ?? [] where node.status == .running && node.name == name {
            if let best = found, best.depth > node.depth || (best.depth == node.depth && best.id > node.id) { continue }
            found = node
        }
        return found
    }

    /// Brings `coordinator`'s flow to the front (the modals above it go, its tab is selected), as one step
    /// of the running operation: an error naming what refuses, and the app as before.
    package func bringForward(_ coordinator: Coordinator) throws {
        try atomically { try navigator.bringForward(coordinator) }
    }

    /// Puts the clock back to 0 without timers, where a new process's begins (a tool that brings the app
    /// back to its start in the same runtime, exploration). Undone with the operation.
    package func rewindClock() { clock.rewind() }

    /// The tab bar the user sees: the topmost container when it is a tab container (a modal covers the
    /// tab bars below it, as in UIKit).
    package var visibleTabs: TabContainer? { (window.modals.last ?? window.root) as? TabContainer }

    /// The kind of device the app runs on (``Idiom``): fixed for a launch, a phone unless a tool says
    /// otherwise.
    public private(set) var idiom: Idiom = .phone

    /// Makes the app run on a device of `idiom` before it (re)starts (a tool's `--idiom`, a snapshot's):
    /// not a step of the user. Undone with the operation.
    package func setIdiom(_ idiom: Idiom) {
        guard idiom != self.idiom else { return }
        let old = self.idiom
        context.journal.recordAlways(.custom(born: 0) { [weak self] in self?.idiom = old })
        self.idiom = idiom
    }

    /// Makes the window `sizeClass` wide before the app (re)starts (a tool putting the app back at its start,
    /// a device of that width): not a step of the user. Undone with the operation.
    package func setStartingSizeClass(_ sizeClass: SizeClass) {
        if window.sizeClass != sizeClass { window.setSizeClass(sizeClass) }
    }

    /// The window becomes `sizeClass` wide (a rotation): a split collapses into one stack, or expands.
    public func setSizeClass(_ sizeClass: SizeClass) throws { try perform(.sizeClass(sizeClass)) }

    /// The user swipes to page `index` (0-based) of the visible pages.
    public func swipe(toPage index: Int) throws { try perform(.swipeTo(index)) }

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
}

extension Application {
    /// A number that grows with every change to the app (and stays put while nothing changes): compared
    /// before and after a step, whether the step changed anything, in O(1) (undone changes count too).
    package var changeCount: Int { context.journal.changes }

    /// The whole navigation state as text: the window's hierarchy, every shown screen with its inputs, every
    /// coordinator of the tree with its status, the gateway's state. An operation that fails leaves it
    /// exactly as it was (what the session fuzzer and `expect.fails` check).
    package var stateDescription: String {
        var text = window.hierarchyDescription + "|" + gateway.state.rawValue
        for screen in window.allScreens { text += "|\(screen.info)\(screen.inputs)" }
        var pending = root.map { [$0] } ?? []
        while let coordinator = pending.popLast() {
            text += "|\(coordinator.info):\(coordinator.status.rawValue)"
            pending += coordinator.children
        }
        return text
    }
}
