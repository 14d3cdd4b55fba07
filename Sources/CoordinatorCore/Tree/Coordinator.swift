/// A coordinator: decides which screen comes next, how it is shown, and carries data between screens.
///
/// Subclass it and override ``start(_:)``; create screens through the app's catalog, show them with the
/// navigation verbs every coordinator has as a ``TransitionPerformer`` (`push`, `present`, `setTabs`, ...,
/// over ``TransitionPerformer/perform(_:animated:completion:)``), listen to their outputs, and run child
/// coordinators for sub-flows:
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
/// a coordinator can never outlive its screens. See `Lifecycle.swift`.
///
/// **Ownership.** A parent owns its children and a coordinator owns the screens it shows; the links back
/// (``parent``, ``Screen/owner``) are cut when a child leaves the tree or a screen leaves the window, and
/// every link of an app is cut when the application goes, so nothing outlives it through a cycle.
open class Coordinator {
    /// Where a coordinator is in its life.
    public enum Status: String, Sendable {
        /// Made, not started.
        case idle
        /// Started, not finished: it may navigate.
        case running
        /// Finishing its children and removing its screens.
        case finishing
        /// Finished: it refuses to navigate.
        case finished
    }

    /// How signals reach this coordinator's children.
    public enum SignalIsolation {
        /// Every child receives signals that reach this coordinator.
        case open
        /// Only these children do (by identity).
        case only([Coordinator])
    }

    /// What it listens to, changed as one piece (one journal entry).
    struct Handlers {
        var finish: ((FlowValue?, FinishReason) throws -> Void)?
        var screenLeft: ((Screen, Bool) throws -> Void)?
        var signals = HandlerTable<(Signal) throws -> Void>()
        var events = HandlerTable<(FlowValue?, String) throws -> Void>()
        var signalIsolation: SignalIsolation = .open
        /// Which setting of each signal's and event's handler is in place (``handlerSerial(signal:)``).
        var serials = HandlerTable<Int>()
    }

    /// Counts the handlers set for signals and events, to tell one setting from another.
    private var handlersSet = 0

    /// The number of the handler in place for signal `name` (nil: none): a front that set a handler, and
    /// noted the number then, knows whether its handler is still the one the coordinator keeps.
    package func handlerSerial(signal name: String) -> Int? { handlers.serials["signal " + name] }

    /// The number of the handler in place for event `name` (``handlerSerial(signal:)``).
    package func handlerSerial(event name: String) -> Int? { handlers.serials["event " + name] }

    /// Notes a new setting of the handler `key` in `h`.
    private func noteSet(_ key: String, in h: inout Handlers) {
        handlersSet &+= 1
        h.serials[key] = handlersSet
    }

    // The state below is read and written by every navigation step, settle and signal (an in-place change's
    // closure, `lastIndex { $0 === x }`, `filter { $0.status == ... }`, reads other objects only).
    /// Its children, in the order they started.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public internal(set) var children: [Coordinator] = []
    /// The screens it shows now, in the order it showed them.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public internal(set) var screens: [Screen] = []
    /// Where it is in its life.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public internal(set) var status: Status = .idle
    /// Its parent while it is in the tree (the root has none).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public internal(set) var parent: Coordinator?
    /// What it navigates with: given by the application or the parent when it starts (a host may supply its
    /// own: see ``Router``).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public internal(set) var router: (any Router)?
    /// Its name (a class's or a flow's).
    public let name: String
    /// A number that identifies it in its app (0 until it starts).
    public internal(set) var id = 0
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var handlers = Handlers()
    /// The last signal delivery that reached it (see `SignalDelivery.swift`).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var signalMark = 0
    /// The last settle that looked at it, and the last that spared it (see `Lifecycle.swift`).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var settleMark = 0
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var exemptMark = 0
    /// Whether it waits in the application's list of coordinators that lost screens.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var isNotedLost = false
    /// Whether it or a descendant has shown a screen (so that losing them all means the flow is gone).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var hasShownScreens = false
    /// How many of its children show a screen somewhere in their subtree.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var showingChildren = 0
    /// Its app's shared context, from the moment it starts.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var context: AppContext?
    /// The operation level it first started in (see ``Journal/shouldLog(_:)``); if that level fails, it
    /// is put back as it was made (`Change.childAdded`'s undo), so whoever kept it may start it again.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    package internal(set) var born = 0
    /// Its entry among the objects its operation made (see ``MadeObject``), or -1.
    var madeIndex = -1

    /// A coordinator named `name`.
    public init(name: String) { self.name = name }

    deinit {
        if madeIndex >= 0, let context { context.journal.forgetMade(self, at: madeIndex) }
        context?.live.coordinators -= 1
    }

    /// The application it runs in (from its start, while the application exists).
    public var app: Application? { context?.application }
    /// Its identity for events.
    public var info: CoordinatorInfo { CoordinatorInfo(id: id, name: name) }
    /// Whether it runs (started, not finishing or finished).
    public var isRunning: Bool { status == .running }
    /// Whether it or a descendant shows a screen now.
    var isShowingSubtree: Bool { !screens.isEmpty || showingChildren > 0 }

    // MARK: Override points

    /// Starts the flow: show the first screen, or run children. Called once, by ``Coordinator/run(_:with:modal:)`` or
    /// ``Application/start(_:with:router:)``; errors undo everything the start did.
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
        try handlers.screenLeft?(screen, bySystem)
    }

    /// Called when the tab or page it runs in (of `container`) becomes the selected one (the user, a
    /// coordinator's `selectTab` or `selectPage`, a link), not for the one a container shows first.
    open func didBecomeSelected(in container: FlowContainer) throws {}

    /// Hands the result to whoever waits for it, once it finished for any reason but its parent finishing:
    /// the default calls ``onFinish``. A subclass that reports elsewhere (a scripting bridge) overrides
    /// this instead of setting a handler that would have to hold itself weakly.
    open func reportFinish(_ result: FlowValue?, reason: FinishReason) throws {
        try handlers.finish?(result, reason)
    }

    /// Receives a signal that reached it. The default runs the handler registered with ``onSignal(_:_:)``.
    open func receive(_ signal: Signal) throws {
        let handler = handlers.signals[signal.name]
        try handler?(signal)
    }

    // MARK: Handlers

    /// Called, on behalf of the parent, with the result when this coordinator finishes (not when its parent
    /// finishes it along with itself).
    public var onFinish: ((FlowValue?, FinishReason) throws -> Void)? {
        get { handlers.finish }
        set { var h = handlers; h.finish = newValue; setHandlers(h) }
    }

    /// Reacts to one of its screens leaving the window (see ``screenDidLeave(_:bySystem:)``).
    public var onScreenLeft: ((Screen, Bool) throws -> Void)? {
        get { handlers.screenLeft }
        set { var h = handlers; h.screenLeft = newValue; setHandlers(h) }
    }

    /// How signals reach its children.
    public var signalIsolation: SignalIsolation {
        get { handlers.signalIsolation }
        set { var h = handlers; h.signalIsolation = newValue; setHandlers(h) }
    }

    /// Reacts to a signal that reaches this coordinator (replaces an earlier handler of that name).
    public func onSignal(_ name: String, _ handler: @escaping (Signal) throws -> Void) {
        var h = handlers
        h.signals[name] = handler
        noteSet("signal " + name, in: &h)
        setHandlers(h)
    }

    /// Reacts to an event the outside world sends the app (``EventDeclaration``), with its payload and name:
    /// every running coordinator with a handler for it hears it, from the root down. Replaces an earlier
    /// handler of that name. An event the app does not declare is an error.
    public func onEvent(_ name: String, _ handler: @escaping (FlowValue?, String) throws -> Void) throws {
        let app = try runningApp()
        guard app.eventDeclarations[name] != nil else { throw app.eventCatalog.unknown(name) }
        var h = handlers
        h.events[name] = handler
        noteSet("event " + name, in: &h)
        setHandlers(h)
    }

    /// Runs `action` once, `seconds` from now on the app's clock (``AppClock``); the timer is this
    /// coordinator's, cancelled when it finishes. A negative or non-finite time is an error.
    @discardableResult
    public func after(_ seconds: Double, _ action: @escaping () throws -> Void) throws -> AppTimer {
        let app = try runningApp()
        return try app.clock.schedule(after: seconds, every: nil, owner: self, action: action)
    }

    /// Runs `action` right after the operation running now, as part of the same step and before the user
    /// can act again (what `DispatchQueue.main.async` does on iOS; ``after(_:_:)`` with 0 waits for the
    /// clock instead): in an operation of its own, undone alone if it fails (the step stands). It is this
    /// coordinator's: cancelled when it finishes. See ``LaterQueue``.
    @discardableResult
    public func later(_ action: @escaping () throws -> Void) throws -> Later {
        let app = try runningApp()
        return app.laters.schedule(owner: self, action: action)
    }

    /// Runs `action` every `seconds` on the app's clock, the first time `seconds` from now, until cancelled
    /// or this coordinator finishes. A period that is not a finite number above 0 is an error.
    @discardableResult
    public func every(_ seconds: Double, _ action: @escaping () throws -> Void) throws -> AppTimer {
        let app = try runningApp()
        guard seconds.isFinite, seconds > 0 else {
            throw NavigationError(.badTime, "a repeating timer's period is a finite number of seconds above 0, not \(AppClock.seconds(seconds))")
        }
        return try app.clock.schedule(after: seconds, every: seconds, owner: self, action: action)
    }

    /// Starts a request of `kind` (``RequestDeclaration``) the outside answers later; set its
    /// ``PendingRequest/onResult(_:)``. It is this coordinator's: cancelled when it finishes.
    @discardableResult
    public func request(_ kind: String, payload: FlowValue? = nil) throws -> PendingRequest {
        let app = try runningApp()
        return try app.atomically { try app.requests.start(kind, payload: payload, owner: self, in: app) }
    }

    /// The names of the events it listens to (``onEvent(_:_:)``).
    package var eventNames: [String] { handlers.events.names }

    /// Stops reacting to signals and to screens leaving, and forgets its finish handler.
    public func removeAllHandlers() {
        setHandlers(Handlers(signalIsolation: handlers.signalIsolation))
    }

    /// Stops reacting to signals, events and screens leaving; keeps its finish handler (a flow that
    /// finishes drops what it listens to, and still reports its result).
    public func removeSignalHandlers() {
        guard !handlers.signals.isEmpty || !handlers.events.isEmpty || handlers.screenLeft != nil else { return }
        var h = handlers
        h.signals.removeAll()
        h.events.removeAll()
        h.serials.removeAll()
        h.screenLeft = nil
        setHandlers(h)
    }

    // MARK: Tree

    /// Adds a child. Adding the same child again does nothing; adding an ancestor (or itself) is refused, as
    /// is adding a coordinator that has another parent or has finished.
    public func addChild(_ child: Coordinator) throws {
        if child.parent === self { return }
        // An ancestor has children: a coordinator without any cannot be one (no walk up the tree).
        if child === self || (!child.children.isEmpty && isDescendant(of: child)) {
            throw NavigationError(.cycle, "cannot add \(child.name) under \(name): it is \(child === self ? "the same coordinator" : "an ancestor")")
        }
        if let other = child.parent {
            throw NavigationError(.alreadyHasParent, "\(child.name) already runs under \(other.name)")
        }
        if child.status == .finished || child.status == .finishing {
            throw NavigationError(.alreadyFinished, "\(child.name) has finished; create a new coordinator")
        }
        appendChild(child)
    }

    /// Removes a child and its whole subtree from the tree, without finishing them.
    public func removeChild(_ child: Coordinator) {
        guard let index = children.lastIndex(where: { $0 === child }) else { return }
        removeChild(at: index)
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

    /// Every coordinator of its subtree, itself first, depth first (walked without recursion: a chain of
    /// any depth is fine).
    public var subtree: [Coordinator] {
        var result: [Coordinator] = []
        var pending: [Coordinator] = [self]
        while let node = pending.popLast() {
            result.append(node)
            pending.append(contentsOf: node.children.reversed())
        }
        return result
    }

    /// Its depth in the tree (the root's is 0), kept by the writers that set `parent` (`Change.swift`): a
    /// child is attached fresh or put back where it was, never moved, so its subtree's depths stay right.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var depth = 0

    /// The number of the window whose flows it belongs to (``Window/number``): its root's, set as it starts.
    package internal(set) var windowNumber = 1

    // MARK: Flow

    /// Adds `child`, gives it a router (this coordinator's, or one on a new navigation stack that this
    /// coordinator's router presents modally, as `presentation` says, with the host's custom animation
    /// named `animation`, if any) and starts it. If its start fails, everything is undone.
    public func run(_ child: Coordinator, with args: FlowValue? = nil, modal: Bool = false,
                    presentation: Presentation = Presentation(), animation: String? = nil) throws {
        let app = try runningApp()
        try app.atomically {
            try app.lifecycle.run(child, under: self, args: args,
                                  modal: modal ? (presentation, animation) : nil, in: app)
        }
    }

    /// Finishes this coordinator with a result. A second finish is an error.
    public func finish(_ result: FlowValue? = nil) throws {
        guard let app else {
            throw NavigationError(.notRunning, "\(name) has not started, so it cannot finish")
        }
        try app.atomically { try app.lifecycle.finish(self, result: result, reason: .finished, in: app) }
    }

    /// Finishes its children, removes its screens, and starts again (the application coordinator does
    /// this when the gateway's state changes).
    public func restart(_ args: FlowValue? = nil) throws {
        let app = try runningApp()
        try app.atomically { try app.lifecycle.restart(self, args: args, in: app) }
    }

    /// Sends a signal through the tree from here (with `everyWindow`, through every window's tree too). See ``Signal``.
    @discardableResult
    public func send(_ name: String, payload: FlowValue? = nil, everyWindow: Bool = false) throws -> Signal {
        let app = try runningApp()
        return try app.atomically {
            try app.signals.send(Signal(name: name, payload: payload, from: .coordinator(self)), in: app, everyWindow: everyWindow)
        }
    }

    /// Its application, when it may act: a coordinator that has not started or has finished gets a
    /// ``NavigationError`` saying so.
    func runningApp() throws -> Application {
        guard let context else { throw NavigationError(.notRunning, "\(name) has not started") }
        let app = try context.liveApplication(name)
        guard status == .running else {
            throw NavigationError(status == .idle ? .notRunning : .alreadyFinished,
                                  "\(name) has \(status == .idle ? "not started" : "finished"); it cannot navigate")
        }
        return app
    }

    /// Its router, when it may navigate (see `runningApp()`).
    public func activeRouter() throws -> any Router {
        _ = try runningApp()
        guard let router else { throw NavigationError(.notRunning, "\(name) has no router") }
        return router
    }
}
