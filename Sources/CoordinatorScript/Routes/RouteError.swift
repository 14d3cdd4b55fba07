import CoordinatorCore

/// A link that cannot be opened; the app is exactly as it was.
public struct RouteError: CoordinatorError, Equatable {
    /// What went wrong, for code that reacts to particular cases.
    public enum Code: String, Sendable {
        /// No declared route matches the link.
        case noMatch
        /// A step of the matching route cannot be taken from where the app is.
        case stepFailed
        /// The route expects a screen or flow to be showing, and another is.
        case notShowing
        /// The route starts at a coordinator class (`from = "Browser"`) and no coordinator of it runs.
        case notRunning
    }

    /// What went wrong.
    public var code: Code
    /// A sentence a person understands (the link, the route and its step).
    public var message: String

    /// An error with its code and the sentence that explains it.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
