#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CoordinatorCore
import CoordinatorLua

/// The calls that drive a hosted app as its user would, the same on both fronts: ``ScriptSession`` (an
/// actor, for tool and server hosts) and ``ScriptHost`` (the main actor, for app hosts).
///
/// Each call is one atomic operation on the front's isolation: when it fails, the app is as before it.
/// Cancelling the task that awaits a call stops the Lua code it runs at its next instruction (a runaway
/// `while true do end` included), with a `LuaError` whose message ends in "cancelled";
/// the front's time limit ends a call that runs longer ("timed out").
public protocol AppDriving: AnyObject, Sendable {
    /// Runs `body` with the runtime, on the front's isolation, under the same cancellation and time limit
    /// as the other calls: for what they do not cover (reading the window, registering functions, reloading).
    func withRuntime<R: Sendable>(_ body: @Sendable (ScriptRuntime) throws -> R) async throws -> R
}

extension AppDriving {
    /// Runs the app's main script, with `arguments` as its `...`.
    public func load(script url: URL, arguments: [FlowValue] = []) async throws {
        try await withRuntime { try $0.load(script: url, arguments: HostedRuntime.luaValues(arguments, in: $0)) }
    }

    /// Does what the user did (`Application.perform(_:)`): a tap, Back, a swipe-down, a tab, a link.
    public func perform(_ step: UserStep) async throws {
        try await withRuntime { try $0.app.perform(step) }
    }

    /// Taps an output of the visible screen, as the user would.
    public func tap(_ output: String, payload: FlowValue? = nil) async throws { try await perform(.tap(output, payload: payload)) }

    /// Goes back, as the system's back button or gesture would.
    public func back() async throws { try await perform(.back) }

    /// Dismisses the topmost modal, as a swipe down would.
    public func dismiss() async throws { try await perform(.dismiss) }

    /// Selects the tab with this title on the visible tab bar.
    public func selectTab(titled title: String) async throws {
        try await withRuntime { try $0.app.perform(.selectTab($0.app.tabIndex(titled: title))) }
    }

    /// Opens a deep link the scripts route (`flow.route`): see ``ScriptRuntime/open(_:)``. A link whose
    /// route requires a gateway state the app is not in is held (``LinkOutcome/held``) until it is.
    @discardableResult
    public func open(_ link: String) async throws -> LinkOutcome { try await withRuntime { try $0.open(link) } }

    /// Keeps the app's storage in the store `make` makes, on the front's isolation (where the runtime lives):
    /// its values are loaded now and saved after every step that changes one. Call it before the scripts
    /// load (they may read the storage): see ``ScriptRuntime/useStorage(_:)``.
    public func useStorage(_ make: @Sendable () throws -> any ScriptStorage) async throws {
        try await withRuntime { try $0.useStorage(make()) }
    }

    /// The app's storage: its values by key (the secret ones too).
    public func storage() async throws -> FlowRecord { try await withRuntime { $0.app.storage.values } }

    /// The app closes and launches again, as a new process would: its scripts run again, and only its
    /// storage and clock carry over (see ``ScriptRuntime/relaunch()``).
    public func relaunch() async throws { try await perform(.relaunch) }

    /// Sends an event from outside the flows (a push notification, `background`): see
    /// `Application.send(event:payload:)`. Returns how many flows heard it.
    @discardableResult
    public func send(event name: String, payload: FlowValue? = nil) async throws -> Int {
        try await withRuntime { try $0.app.send(event: name, payload: payload) }
    }

    /// Answers the oldest pending request of `kind` (or its `nth`) with `outcome` and `value` (nil: the
    /// outcome's example): see `Application.answer(_:nth:outcome:value:)`.
    public func answer(_ kind: String, nth: Int = 0, outcome: String, value: FlowValue? = nil) async throws {
        try await perform(.answer(kind, nth: nth, outcome: outcome, value: value))
    }

    /// Moves the app's clock `seconds` on, firing the timers due by then (a host drives it from real time:
    /// the seconds since it last did). Returns how many fired.
    @discardableResult
    public func advance(by seconds: Double) async throws -> Int { try await withRuntime { try $0.app.advance(by: seconds) } }

    /// The seconds until the app's next timer fires, or nil when none is pending: when a host that drives
    /// the clock from real time should call ``advance(by:)`` next.
    public func untilNextTimer() async throws -> Double? { try await withRuntime { $0.app.clock.untilNext } }

    /// Runs a Lua chunk as one atomic operation and gives its first result as data (nil for none or nil).
    @discardableResult
    public func run(_ code: String) async throws -> FlowValue? { try await withRuntime { try HostedRuntime.evaluate(code, name: "host", in: $0) } }

    /// The app's state as a snapshot document (JSON): see ``ScriptRuntime/snapshot()``.
    public func snapshot() async throws -> String { try await withRuntime { try $0.snapshot() } }

    /// Brings the app to a snapshot's state: see ``ScriptRuntime/restore(_:)``.
    @discardableResult
    public func restore(_ json: String) async throws -> RestoreWarning? { try await withRuntime { try $0.restore(json) } }

    /// Brings the app to a snapshot's state, asking `secrets` for the secrets its steps need: see
    /// ``ScriptRuntime/restore(_:secrets:)``. `secrets` runs on the front's isolation, during the restore.
    @discardableResult
    public func restore(_ json: String, secrets: @Sendable (SnapshotSecret) throws -> FlowValue) async throws -> RestoreWarning? {
        try await withRuntime { try $0.restore(json, secrets: secrets) }
    }

    /// The visible stack's screen names, bottom first.
    public func visibleStack() async throws -> [String] { try await withRuntime { $0.app.window.visibleStack.map(\.name) } }
}
