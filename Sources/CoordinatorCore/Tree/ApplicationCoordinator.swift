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
    /// The gateway state whose flow it started last (nil before it starts one).
    public private(set) var runningState: AppState?

    override open func start(_ args: FlowValue?) throws {
        guard let app else { return }
        let state = app.gateway.state
        guard let make = flows[state] else {
            throw NavigationError(.unknownState, "\(name) has no flow for the gateway state '\(state)'" +
                " (flows: \(flows.keys.map(\.rawValue).sorted().joined(separator: ", ")))")
        }
        let old = runningState
        app.undoLog.record(born: 0) { [weak self] in self?.runningState = old }
        runningState = state
        try run(make(), with: args)
    }

    /// The flow finished: the next one starts with its result (the gateway says which).
    override open func childDidFinish(_ child: Coordinator, result: FlowValue?, reason: FinishReason) throws {
        if reason == .finished { try restart(result) }
    }
}
