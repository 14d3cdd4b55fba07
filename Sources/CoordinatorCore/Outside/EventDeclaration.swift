/// An event the world outside the flows sends the app: a push notification, a preference that changed, the
/// app going to the background. Declared by name with what it carries and the example payloads exploration
/// sends; flows hear it with ``Coordinator/onEvent(_:_:)``, from the root through the whole tree; the user's
/// side (a host, a test, a REPL) sends it with ``Application/send(event:payload:)``.
///
/// ```swift
/// app.declare(EventDeclaration("pushReceived", takesPayload: true, examples: [["thread": 7]]))
/// try main.onEvent("pushReceived") { payload, _ in try main.selectTab(titled: "Inbox") }
/// try app.send(event: "pushReceived", payload: ["thread": 7])
/// ```
public struct EventDeclaration: Sendable, Equatable {
    /// Its name (`pushReceived`).
    public let name: String
    /// Whether it carries a payload (then every sending gives one); else it carries none.
    public let takesPayload: Bool
    /// The payloads exploration sends it with (none for an event without payload: it is sent bare).
    public let examples: [FlowValue]

    /// An event named `name`, carrying a payload when `takesPayload`, tried by exploration with `examples`.
    public init(_ name: String, takesPayload: Bool = false, examples: [FlowValue] = []) {
        (self.name, self.takesPayload, self.examples) = (name, takesPayload, examples)
    }

    /// The app's own lifecycle events, declared in every app: `background` (the app left the screen) and
    /// `foreground` (it came back).
    public static let builtIn = [EventDeclaration("background"), EventDeclaration("foreground")]

    /// Whether it is one of the app's own lifecycle events (``builtIn``).
    public var isBuiltIn: Bool { Self.builtIn.contains { $0.name == name } }

    /// The payloads a sending may carry, as exploration tries them: each example, or none.
    public var payloads: [FlowValue?] { takesPayload ? examples.map { $0 } : [nil] }
}
