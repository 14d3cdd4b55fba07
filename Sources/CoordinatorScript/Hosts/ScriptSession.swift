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
        runtime = try .hosted(state: state, sandbox: sandbox, setUp: setUp)
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

    /// Runs `body` with the runtime, on the session's actor, under the same cancellation and time limit as
    /// the other calls (``AppDriving``): for what they do not cover (reading the window, registering
    /// functions, reloading). The runtime never leaves the actor.
    public func withRuntime<R: Sendable>(_ body: @Sendable (ScriptRuntime) throws -> R) async throws -> R {
        try await runtime.hostedCall(timeLimit: timeLimit, body)
    }
}
