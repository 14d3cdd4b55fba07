#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CoordinatorCore
import CoordinatorLua

/// The runtime of an app host, on the main actor: the app's coordinators, router and screens live where
/// UIKit, AppKit or SwiftUI can use them, and the host drives them from its views and tasks.
///
/// Calls are the same as ``ScriptSession``'s: one atomic operation each; cancelling the task that awaits a
/// call stops its Lua code (the main thread is given back at once rather than frozen by a runaway script);
/// ``timeLimit`` bounds each call. ``runtime`` is there for everything else, on the main actor.
///
/// ```swift
/// @MainActor final class AppModel {
///     let host: ScriptHost
///     init() throws {
///         host = try ScriptHost(timeLimit: 0.5) { runtime in
///             runtime.registerCoordinator("Storage") { Storage(name: "Storage") }
///         }
///     }
///     func launch(in window: UIWindow, flows: URL) async throws {
///         try await host.load(script: flows)   // Bundle.main.url(forResource: "app", withExtension: "lua")
///         try await host.start { app in NavigationRouter(window: window, app: app) }
///     }
/// }
/// ```
@MainActor
public final class ScriptHost: AppDriving {
    /// The runtime, for what the calls below do not cover: the window, registering functions, reloading.
    public let runtime: ScriptRuntime
    /// The most seconds one call may run Lua code (nil: no limit). Exceeding it is a "timed out" error.
    public var timeLimit: Double?

    /// A host whose gateway starts in `state`; `sandbox` for scripts you do not trust (docs/Security.md).
    /// `setUp` runs first, on the new runtime: register Swift screens and coordinators there.
    public init(state: AppState = .authorization, sandbox: Bool = false, timeLimit: Double? = nil,
                setUp: (ScriptRuntime) throws -> Void = { _ in }) throws {
        runtime = try HostedRuntime.make(state: state, sandbox: sandbox, setUp: setUp)
        self.timeLimit = timeLimit
    }

    /// Starts the app the scripts declare, navigating through the router `router` makes for it (the host's
    /// own, e.g. one over a `UINavigationController`; a headless one when nil): see
    /// ``ScriptRuntime/start(router:)``.
    public func start(router: ((Application) -> any Router)? = nil) async throws {
        try await HostedRuntime.call(runtime, timeLimit: timeLimit) { try $0.start(router: router) }
        dispatchRequests()
    }

    /// Runs `body` with ``runtime`` under the same cancellation and time limit as the other calls
    /// (``AppDriving``).
    public func withRuntime<R: Sendable>(_ body: @Sendable (ScriptRuntime) throws -> R) async throws -> R {
        let result = try await HostedRuntime.call(runtime, timeLimit: timeLimit, body)
        dispatchRequests() // what the call started, a registered handler answers
        return result
    }

    /// Answers requests of `kind` from Swift, as ``ScriptSession/registerRequest(_:_:)`` does: the handler
    /// runs in a task of its own with the request's payload, and its answer comes back on the main actor as
    /// a step, dropped when the request's flow finished meanwhile.
    public func registerRequest(_ kind: String,
                                _ handler: @escaping @Sendable (FlowValue?) async throws -> (outcome: String, value: FlowValue?)) {
        answering.register(kind, handler)
        dispatchRequests()
    }

    /// Why handlers registered with ``registerRequest(_:_:)`` answered nothing (each error, in order).
    public var requestErrors: [String] { answering.errors }

    /// Waits until every registered handler's answer so far has been given (or dropped).
    public func answersSettled() async {
        while let task = answering.anyInFlight { await task.value }
    }

    private let answering = RequestAnswering()

    private func dispatchRequests() {
        answering.dispatch(runtime.app.pendingRequests,
                           answer: { @MainActor [weak self] id, outcome, value in
                               try await self?.withRuntime { _ = try $0.app.answer(request: id, outcome: outcome, value: value) }
                           },
                           settled: { @MainActor [weak self] id, error in self?.answering.settle(id, error: error) })
    }

    /// The app's events from now on (see `Application.navigationEvents(bufferingNewest:)`).
    public func events(bufferingNewest limit: Int = 1_000) -> AsyncStream<NavigationEvent> {
        runtime.app.navigationEvents(bufferingNewest: limit)
    }
}
