/// A message that spreads through the coordinator tree (the sources' Transmitter/Receiver).
///
/// Sent from a coordinator or a screen, a signal travels to parents, children and their screens, reaching
/// each node once, nearest first. A receiver may read it, change its ``payload`` before it travels on,
/// ``reply(_:)`` to it, or ``stop()`` it. A coordinator whose ``Coordinator/signalIsolation`` is
/// `.only([...])` passes signals down to those children only. Coordinators without screens (storage,
/// notifications) take part like any other.
///
/// ```swift
/// storage.onSignal("noteCreated") { signal in try save(signal.payload) ; signal.reply("saved") }
/// let signal = try newNoteScreen.send("noteCreated", payload: note)
/// signal.replies   // ["saved"]
/// ```
public final class Signal {
    /// Where a signal starts, or a node it reaches.
    public enum Node {
        /// A coordinator.
        case coordinator(Coordinator)
        /// A screen.
        case screen(Screen)

        func mark(_ round: Int) {
            switch self {
            case .coordinator(let c): c.signalMark = round
            case .screen(let s): s.signalMark = round
            }
        }

        /// `Name#id`.
        public var description: String {
            switch self {
            case .coordinator(let c): c.info.description
            case .screen(let s): s.info.description
            }
        }
    }

    /// Its name (`"noteCreated"`).
    public let name: String
    /// The payload; receivers may change it for the receivers after them.
    public var payload: FlowValue?
    /// Who sent it.
    public let sender: Node
    /// What receivers answered, in order.
    public private(set) var replies: [FlowValue] = []
    /// The nodes that received it (handlers ran), in order, as `Name#id`.
    public var receivers: [String] { receivedBy.map { "\($0.name)#\($0.id)" } }
    private var receivedBy: [(name: String, id: Int)] = []
    /// Whether a handler stopped it (it goes no further up).
    public private(set) var isStopped = false

    init(name: String, payload: FlowValue?, from sender: Node) {
        self.name = name
        self.payload = payload
        self.sender = sender
    }

    func received(by name: String, id: Int) { receivedBy.append((name, id)) }

    /// Answers the sender.
    public func reply(_ value: FlowValue) { replies.append(value) }

    /// Stops the signal: no further node receives it.
    public func stop() { isStopped = true }
}

extension Screen {
    /// Sends a signal through the tree from this screen (it reaches the owner first).
    @discardableResult
    public func send(_ name: String, payload: FlowValue? = nil) throws -> Signal {
        let app = try liveApp()
        return try app.atomically { try app.signals.send(Signal(name: name, payload: payload, from: .screen(self)), in: app) }
    }
}
