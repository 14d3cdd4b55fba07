/// A coordinator: decides which screen comes next, how it is shown, and carries data between screens.
///
/// Subclass it and override ``start(_:)``; create screens through the app's catalog, show them through
/// ``router``, listen to their outputs, and run child coordinators for sub-flows:
///
/// ```swift
/// final class UserEditCoordinator: Coordinator {
///     override func start(_ user: FlowValue?) throws {
///         let screen = try push("UserEdit", inputs: ["user": user ?? [:]])
///         try screen.on("selectCity") { [unowned self] _ in
///             let picker = CityPickerCoordinator(name: "CityPicker")
///             picker.onFinish = { city, _ in
///                 guard let city else { return }                      // nil: the user went back
///                 try? self.app?.update("user", to: user?.with("city", city))
///             }
///             try self.run(picker)
///         }
///     }
/// }
/// ```
///
/// A coordinator finishes exactly once. Finishing finishes its children first, removes the screens it still
/// shows, detaches it from its parent and hands the result to ``onFinish``. When the user goes back past
/// its last screen (or swipes its modal away), it finishes by itself with reason ``FinishReason/systemBack``:
/// a coordinator can never outlive its screens.
open class Coordinator {
    /// Where a coordinator is in its life.
    public enum Status: String, Sendable {
        case idle, running, finishing, finished
    }

    /// How signals reach this coordinator's children.
    public enum SignalIsolation {
        /// Every child receives signals that reach this coordinator.
        case open
        /// Only these children do (by identity).
        case only([Coordinator])
    }

    // The tree's links, status and signal state are read for every node a signal crosses, so their
    // exclusivity is not checked at run time. Safe: a coordinator lives on its app's thread (it is not
    // Sendable), and every access is one read, one assignment or one in-place array change whose closure
    // (`removeAll { $0 === x }`) reads nothing but its argument, so no two accesses can overlap.
    // What a signal reads comes first: stored properties are laid out in order, and these fit in the
    // object's first 64-byte cache line.
    @exclusivity(unchecked) public internal(set) var children: [Coordinator] = []
    /// The screens it shows now, in the order it showed them.
    @exclusivity(unchecked) public internal(set) var screens: [Screen] = []
    /// The last signal delivery that reached it (see `Application.send`).
    @exclusivity(unchecked) var signalMark = 0
    @exclusivity(unchecked) var signalHandlers = HandlerTable<(Signal) throws -> Void>()
    /// How signals reach its children.
    @exclusivity(unchecked) public var signalIsolation: SignalIsolation = .open {
        willSet { record() }
    }
    @exclusivity(unchecked) public internal(set) var status: Status = .idle
    /// The operation level that last recorded it (see `Application.needsRecord`).
    var journalMark = 0
    public let name: String
    public internal(set) var id = 0
    @exclusivity(unchecked) public internal(set) weak var parent: Coordinator?
    /// Its navigation context.
    public internal(set) var router: HeadlessRouter?
    /// The application it runs in (set when it starts).
    public internal(set) weak var app: Application?
    /// Called, on behalf of the parent, with the result when this coordinator finishes (not when its parent
    /// finishes it along with itself).
    public var onFinish: ((FlowValue?, FinishReason) throws -> Void)? {
        get { finishHandler }
        set { record(); finishHandler = newValue }
    }
    var finishHandler: ((FlowValue?, FinishReason) throws -> Void)?
    /// Whether it or a descendant has shown a screen (so that losing them all means the flow is gone).
    var hasShownScreens = false
    var live: LiveObjects?

    public init(name: String) { self.name = name }

    deinit { live?.coordinators -= 1 }

    public var info: CoordinatorInfo { CoordinatorInfo(id: id, name: name) }
    public var isRunning: Bool { status == .running }

    // MARK: Override points

    /// Starts the flow: show the first screen, or run children. Called once, by ``run(_:with:modal:)`` or
    /// ``Application/start(_:with:)``; errors undo everything the start did.
    open func start(_ args: FlowValue?) throws {}

    /// Called after it finished, for any reason.
    open func didFinish(_ result: FlowValue?, reason: FinishReason) {}

    /// Called after one of its children finished by itself or by the user going back, once the child's own
    /// ``onFinish`` has run (not for children finished along with it). An ``ApplicationCoordinator`` starts
    /// the next flow here, so a flow's `onFinish` stays its own.
    open func childDidFinish(_ child: Coordinator, result: FlowValue?, reason: FinishReason) throws {}

    /// Called when one of its screens leaves the window: `bySystem` when the user went back or swiped a
    /// modal away, rather than a coordinator navigating. The default calls ``onScreenLeft``.
    open func screenDidLeave(_ screen: Screen, bySystem: Bool) throws {
        try onScreenLeft?(screen, bySystem)
    }

    /// Reacts to one of its screens leaving the window (see ``screenDidLeave(_:bySystem:)``).
    public var onScreenLeft: ((Screen, Bool) throws -> Void)? {
        get { screenLeftHandler }
        set { record(); screenLeftHandler = newValue }
    }
    var screenLeftHandler: ((Screen, Bool) throws -> Void)?

    /// Receives a signal that reached it. The default runs the handler registered with ``onSignal(_:_:)``.
    open func receive(_ signal: Signal) throws {
        let handler = signalHandlers[signal.name]
        try handler?(signal)
    }

    // MARK: Tree

    /// Adds a child. Adding the same child again does nothing; adding an ancestor (or itself) is refused, as
    /// is adding a coordinator that has another parent or has finished.
    public func addChild(_ child: Coordinator) throws {
        if child.parent === self, children.contains(where: { $0 === child }) { return }
        if child === self || isDescendant(of: child) {
            throw NavigationError(.cycle, "cannot add \(child.name) under \(name): it is \(child === self ? "the same coordinator" : "an ancestor")")
        }
        if let other = child.parent {
            throw NavigationError(.alreadyHasParent, "\(child.name) already runs under \(other.name)")
        }
        if child.status == .finished || child.status == .finishing {
            throw NavigationError(.alreadyFinished, "\(child.name) has finished; create a new coordinator")
        }
        record()
        child.record()
        children.append(child)
        child.parent = self
    }

    /// Removes a child and its whole subtree from the tree, without finishing them.
    public func removeChild(_ child: Coordinator) {
        guard let index = children.firstIndex(where: { $0 === child }) else { return }
        record()
        child.record()
        children.remove(at: index)
        child.parent = nil
    }

    /// Whether `other` is this coordinator's parent, grandparent, ...
    public func isDescendant(of other: Coordinator) -> Bool {
        var node = parent
        while let current = node {
            if current === other { return true }
            node = current.parent
        }
        return false
    }

    /// Every coordinator of its subtree, itself first, depth first.
    public var subtree: [Coordinator] { [self] + children.flatMap(\.subtree) }

    // MARK: Flow

    /// Adds `child`, gives it a router (on this coordinator's navigation stack, or on a new navigation
    /// stack presented modally) and starts it. If its start fails, everything is undone.
    public func run(_ child: Coordinator, with args: FlowValue? = nil, modal: Bool = false) throws {
        let app = try runningApp()
        try app.atomically { try app.run(child, under: self, args: args, modal: modal) }
    }

    /// Finishes this coordinator with a result. A second finish is an error.
    public func finish(_ result: FlowValue? = nil) throws {
        guard let app else {
            throw NavigationError(.notRunning, "\(name) has not started, so it cannot finish")
        }
        try app.atomically { try app.finish(self, result: result, reason: .finished) }
    }

    /// Finishes its children, removes its screens, and starts again (the application coordinator does
    /// this when the gateway's state changes).
    public func restart(_ args: FlowValue? = nil) throws {
        let app = try runningApp()
        try app.atomically { try app.restart(self, args: args) }
    }

    /// Builds a screen from the app's catalog and pushes it with this coordinator's router.
    @discardableResult
    public func push(_ screenName: String, inputs: FlowRecord = [:], animated: Bool = true) throws -> Screen {
        let app = try runningApp()
        return try app.atomically {
            let screen = try app.catalog.make(screenName, inputs: inputs)
            try navigationRouter().push(screen, animated: animated, completion: nil)
            return screen
        }
    }

    /// Reacts to a signal that reaches this coordinator (replaces an earlier handler of that name).
    public func onSignal(_ name: String, _ handler: @escaping (Signal) throws -> Void) {
        record()
        signalHandlers[name] = handler
    }

    /// Stops reacting to signals and to screens leaving, and forgets its finish handler.
    public func removeAllHandlers() {
        record()
        signalHandlers.removeAll()
        screenLeftHandler = nil
        finishHandler = nil
    }

    /// Stops reacting to signals and to screens leaving; keeps its finish handler (a flow that finishes
    /// drops what it listens to, and still reports its result).
    public func removeSignalHandlers() {
        guard !signalHandlers.isEmpty || screenLeftHandler != nil else { return }
        record()
        signalHandlers.removeAll()
        screenLeftHandler = nil
    }

    /// Sends a signal through the tree from here. See ``Signal``.
    @discardableResult
    public func send(_ name: String, payload: FlowValue? = nil) throws -> Signal {
        let app = try runningApp()
        return try app.atomically { try app.send(Signal(name: name, payload: payload, from: .coordinator(self))) }
    }

    func runningApp() throws -> Application {
        guard let app else { throw NavigationError(.notRunning, "\(name) has not started") }
        guard status == .running else {
            throw NavigationError(status == .idle ? .notRunning : .alreadyFinished,
                                  "\(name) has \(status == .idle ? "not started" : "finished"); it cannot navigate")
        }
        return app
    }

    func navigationRouter() throws -> HeadlessRouter {
        guard let router else { throw NavigationError(.notRunning, "\(name) has no router") }
        return router
    }

    /// Its router, when it may navigate: a coordinator that has not started or has finished gets a
    /// ``NavigationError`` saying so.
    public func activeRouter() throws -> HeadlessRouter {
        _ = try runningApp()
        return try navigationRouter()
    }

    /// The screens of its whole subtree.
    var subtreeScreenCount: Int { screens.count + children.reduce(0) { $0 + $1.subtreeScreenCount } }

    func record() {
        guard let app, app.needsRecord(self) else { return }
        let saved = (parent, children, status, screens, router, finishHandler, signalHandlers, hasShownScreens)
        let (isolation, screenLeft) = (signalIsolation, screenLeftHandler)
        app.addUndo {
            (self.parent, self.children, self.status, self.screens, self.router, self.finishHandler,
             self.signalHandlers, self.hasShownScreens) = saved
            (self.signalIsolation, self.screenLeftHandler) = (isolation, screenLeft)
        }
    }
}

/// The root of an app's tree: asks the ``Gateway`` for the app's state and runs the flow registered for
/// it; when that flow finishes, starts again, finding the state the flow left behind (the sources'
/// `AppCoordinator`: authorization finishes, the gateway now says main, the main flow starts). The next
/// flow's `start` receives the finished flow's result (the logged-in user, say).
///
/// ```swift
/// let appCoordinator = ApplicationCoordinator(name: "App")
/// appCoordinator.flows[.authorization] = { LoginCoordinator(name: "Login") }
/// appCoordinator.flows[.main] = { MainCoordinator(name: "Main") }
/// try app.start(appCoordinator)
/// ```
open class ApplicationCoordinator: Coordinator {
    /// The flow to run for each gateway state.
    public var flows: [AppState: () -> Coordinator] = [:]

    override open func start(_ args: FlowValue?) throws {
        guard let app else { return }
        let state = app.gateway.state
        guard let make = flows[state] else {
            throw NavigationError(.unknownState, "\(name) has no flow for the gateway state '\(state)'" +
                " (flows: \(flows.keys.map(\.rawValue).sorted().joined(separator: ", ")))")
        }
        try run(make(), with: args)
    }

    /// The flow finished: the next one starts with its result (the gateway says which).
    override open func childDidFinish(_ child: Coordinator, result: FlowValue?, reason: FinishReason) throws {
        if reason == .finished { try restart(result) }
    }
}
