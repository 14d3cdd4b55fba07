import CoordinatorScript

/// The most recent navigation events, for `:events`: made before the app starts (by the front that starts
/// it), it has the start's events too.
package final class EventLog {
    private var ring: [String] = []
    private var next = 0
    private var total = 0
    let capacity = 200

    /// How many signals were sent since the log began.
    private(set) var signals = 0

    package init(app: Application) {
        _ = app.observe { [weak self] event in
            if case .signal = event { self?.signals += 1 }
            self?.append(event.description(notation: \.luaLiteral))
        }
    }

    func append(_ text: String) {
        total += 1
        let line = "\(total). " + text
        if ring.count < capacity { ring.append(line) } else { ring[next] = line }
        next = (next + 1) % capacity
    }

    func recent(_ count: Int) -> [String] {
        let ordered = ring.count < capacity ? ring : Array(ring[next...] + ring[..<next])
        return Array(ordered.suffix(max(0, count)))
    }
}
