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
    package static let builtIn = [EventDeclaration("background"), EventDeclaration("foreground")]

    /// Whether it is one of the app's own lifecycle events (``builtIn``).
    package var isBuiltIn: Bool { Self.builtIn.contains { $0.name == name } }

    /// The payloads a sending may carry, as exploration tries them: each example, or none.
    package var payloads: [FlowValue?] { takesPayload ? examples.map { $0 } : [nil] }
}

/// The events an app's outside world may send it (``Application/eventCatalog``): its own lifecycle events and
/// those declared; and their delivery, to every running coordinator that listens, from the root down.
package final class EventCatalog {
    /// The events, by name.
    package private(set) var declarations: [String: EventDeclaration] =
        Dictionary(uniqueKeysWithValues: EventDeclaration.builtIn.map { ($0.name, $0) })
    let context: AppContext

    init(context: AppContext) { self.context = context }

    /// Declares an event (a declaration of that name again replaces it). Undone with the operation.
    func declare(_ event: EventDeclaration) {
        let old = declarations[event.name]
        declarations[event.name] = event
        context.journal.recordAlways(.custom(born: 0) { [weak self] in self?.declarations[event.name] = old })
    }

    /// An undeclared event's error, listing those declared.
    func unknown(_ name: String) -> NavigationError {
        NavigationError(.unknownEvent, "no event '\(name)' (events: \(declarations.keys.sorted().joined(separator: ", ")); declare one with flow.event)")
    }

    /// Delivers an event to every running coordinator of `app` that listens, in every window (in order),
    /// root first, parents before children; how many heard it.
    func deliver(_ name: String, payload: FlowValue?, in app: Application) throws -> Int {
        guard let declaration = declarations[name] else { throw unknown(name) }
        if declaration.takesPayload, payload == nil {
            throw NavigationError(.unknownEvent, "event '\(name)' carries a payload: send it with one")
        }
        if !declaration.takesPayload, payload != nil {
            throw NavigationError(.unknownEvent, "event '\(name)' carries no payload")
        }
        var receivers = 0
        // The tree as it was when the event came: a handler that starts or finishes flows changes who
        // hears it only by finishing them first.
        for coordinator in app.roots.flatMap(\.subtree) where coordinator.status == .running { // every window's
            guard let handler = coordinator.handlers.events[name] else { continue }
            try handler(payload, name)
            receivers += 1
        }
        app.emit(.eventReceived(name, receivers: receivers))
        return receivers
    }
}
