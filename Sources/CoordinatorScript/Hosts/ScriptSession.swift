#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CoordinatorCore
import CoordinatorLua

/// One app in its own runtime, isolated to an actor: for tool and server hosts that run an app per session
/// (a bot, a server-driven flow, a test runner), from any task.
///
/// Every call is one atomic operation on the session's actor: when it fails, the app is as before it.
/// Cancelling the task that awaits a call stops the Lua code it runs within microseconds (a runaway
/// `while true do end` included), and ``timeLimit`` bounds each call. The runtime itself never leaves the
/// actor: ``withRuntime(_:)`` runs code that needs the whole API there.
///
/// ```swift
/// let session = try ScriptSession(timeLimit: 1)
/// try await session.load(script: URL(filePath: "scripts/app.lua"))
/// try await session.start()
/// try await session.tap("login", payload: ["name": "Ann", "password": "secret"])
/// let stack = try await session.visibleStack()   // ["UserEdit"]
/// ```
public actor ScriptSession: AppDriving {
    let runtime: ScriptRuntime
    /// The most seconds one call may run Lua code (nil: no limit). Exceeding it is a "timed out" error.
    public var timeLimit: Double?

    /// A session whose gateway starts in `state`; `sandbox` for scripts you do not trust (docs/Security.md).
    /// `setUp` runs first, on the new runtime: register Swift screens and coordinators there. It is
    /// `@Sendable` (it runs in the session's domain, not the caller's), so a closure written in a main-actor
    /// or `async` function compiles as it is.
    public init(state: AppState = .authorization, sandbox: Bool = false, timeLimit: Double? = nil,
                setUp: @Sendable (ScriptRuntime) throws -> Void = { _ in }) throws {
        runtime = try HostedRuntime.make(state: state, sandbox: sandbox, setUp: setUp)
        self.timeLimit = timeLimit
    }

    /// Sets ``timeLimit``.
    public func setTimeLimit(_ seconds: Double?) { timeLimit = seconds }

    /// Starts the app the scripts declare, navigating through the router `router` makes for it (the host's
    /// own, usually wrapping `app.headlessRouter()`; a headless one when nil). The session keeps `router`
    /// and calls it again whenever it starts the app anew (a link opened from the start, a restored
    /// snapshot): see ``ScriptRuntime/start(router:)``.
    public func start(router: (@Sendable (Application) -> any Router)? = nil) async throws {
        try await withRuntime { try $0.start(router: router) }
    }

    /// The app's events from now on (see `Application.navigationEvents(bufferingNewest:)`).
    public func events(bufferingNewest limit: Int = 1_000) -> AsyncStream<NavigationEvent> {
        runtime.app.navigationEvents(bufferingNewest: limit)
    }

    /// Answers requests of `kind` from Swift (a real API call in a server): whenever a flow starts one (and
    /// the operation that started it succeeded), `handler` runs in a task of its own with the request's
    /// payload, and what it returns (an outcome the kind declares, and a value: nil for the outcome's
    /// example) answers it on the session's actor, unless it was cancelled meanwhile (its flow finished):
    /// then the answer is dropped. A handler that throws answers nothing; ``requestErrors`` keeps why.
    public func registerRequest(_ kind: String,
                                _ handler: @escaping @Sendable (FlowValue?) async throws -> (outcome: String, value: FlowValue?)) {
        answering.register(kind, handler)
        dispatchRequests()
    }

    /// Why handlers registered with ``registerRequest(_:_:)`` answered nothing (each error, in order).
    public var requestErrors: [String] { answering.errors }

    /// How many answers the registered handlers are still working on.
    public var answersInFlight: Int { answering.inFlightCount }

    /// Waits until every registered handler's answer so far has been given (or dropped).
    public func answersSettled() async {
        while let task = answering.anyInFlight { await task.value }
    }

    private let answering = RequestAnswering()

    /// Hands the requests a registered handler answers to it: after every call, once its operation
    /// succeeded (a request of a failed one was never started).
    private func dispatchRequests() {
        answering.dispatch(runtime.app.pendingRequests,
                           answer: { [weak self] id, outcome, value in
                               try await self?.withRuntime { _ = try $0.app.answer(request: id, outcome: outcome, value: value) }
                           },
                           settled: { [weak self] id, error in await self?.settle(id, error: error) })
    }

    private func settle(_ id: Int, error: String?) { answering.settle(id, error: error) }

    /// Runs `body` with the runtime, on the session's actor, under the same cancellation and time limit as
    /// the other calls (``AppDriving``): for what they do not cover (reading the window, registering
    /// functions, reloading). The runtime never leaves the actor.
    public func withRuntime<R: Sendable>(_ body: @Sendable (ScriptRuntime) throws -> R) async throws -> R {
        let result = try await HostedRuntime.call(runtime, timeLimit: timeLimit, body)
        dispatchRequests() // what the call started, a registered handler answers
        return result
    }
}
