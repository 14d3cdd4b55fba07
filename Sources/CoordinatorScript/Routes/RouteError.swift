import CoordinatorCore

/// A link that cannot be opened; the app is exactly as it was.
public typealias RouteError = CodedError<RouteErrorCode>

/// The codes of ``RouteError``: what went wrong, for code that reacts to particular cases.
public enum RouteErrorCode: String, Sendable {
    /// No declared route matches the link.
    case noMatch
    /// A step of the matching route cannot be taken from where the app is.
    case stepFailed
    /// The route expects a screen or flow to be showing, and another is.
    case notShowing
    /// The route starts at a coordinator class (`from = "Browser"`) and no coordinator of it runs.
    case notRunning
}
