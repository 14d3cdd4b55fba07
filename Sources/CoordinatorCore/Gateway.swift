/// An application state that decides the starting flow. `authorization` and `main` are predefined; any
/// other name works too (`AppState("onboarding")`).
public struct AppState: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    public static let authorization = AppState("authorization")
    public static let main = AppState("main")
}

/// Tells the application coordinator which flow to run (the sources' `Gateway`: authorization or main).
///
/// ```swift
/// app.gateway.state = .main        // e.g. after a successful login
/// try app.root?.restart()          // the application coordinator now runs the main flow
/// ```
public final class Gateway {
    /// The operation level that last recorded it (see `Application.needsRecord`).
    var journalMark = 0
    weak var app: Application?
    private var current: AppState

    init(app: Application, state: AppState) {
        self.app = app
        self.current = state
    }

    /// The current state; changing it is reported as ``NavigationEvent/gatewayChanged(from:to:)``.
    public var state: AppState {
        get { current }
        set {
            guard newValue != current else { return }
            let old = current
            if let app, app.needsRecord(self) { app.addUndo { self.current = old } }
            current = newValue
            app?.emit(.gatewayChanged(from: old, to: newValue))
        }
    }
}
