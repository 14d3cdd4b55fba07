/// An application state that decides the starting flow. `authorization` and `main` are predefined; any
/// other name works too (`AppState("onboarding")`).
public struct AppState: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The state's name.
    public let rawValue: String
    /// A state named `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// A state written as a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    /// The user has to sign in.
    public static let authorization = AppState("authorization")
    /// The user is signed in.
    public static let main = AppState("main")
}

/// Tells the application coordinator which flow to run (the sources' `Gateway`: authorization or main).
///
/// ```swift
/// app.gateway.state = .main        // e.g. after a successful login
/// try app.root?.restart()          // the application coordinator now runs the main flow
/// ```
public final class Gateway {
    let context: AppContext
    let born = 0
    var current: AppState

    init(context: AppContext, state: AppState) {
        self.context = context
        self.current = state
    }

    /// The current state; changing it is reported as ``NavigationEvent/gatewayChanged(from:to:)`` and undone
    /// with the operation that changed it.
    public var state: AppState {
        get { current }
        set {
            guard newValue != current else { return }
            let old = current
            set(newValue)
            context.events.emit(.gatewayChanged(from: old, to: newValue), in: context.journal)
        }
    }
}
