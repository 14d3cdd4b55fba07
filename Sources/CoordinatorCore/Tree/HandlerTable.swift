/// Listeners by name, for the handful a screen or a coordinator has: a short array searched in order. An
/// output or a signal looks its listener up on every delivery, and comparing a few short names is cheaper
/// than hashing one (a signal crossing 10,000 coordinators without receivers finds each table empty at once).
struct HandlerTable<Handler> {
    private var entries: [(name: String, handler: Handler)] = []

    var isEmpty: Bool { entries.isEmpty }

    /// The names listened to, in the order first set.
    var names: [String] { entries.map(\.name) }

    subscript(name: String) -> Handler? {
        get {
            // By index: comparing names copies no entry (and retains no handler but the one returned).
            for i in entries.indices where entries[i].name == name { return entries[i].handler }
            return nil
        }
        set {
            let index = entries.firstIndex { $0.name == name }
            switch (index, newValue) {
            case (let index?, let handler?): entries[index].handler = handler
            case (let index?, nil): entries.remove(at: index)
            case (nil, let handler?): entries.append((name, handler))
            case (nil, nil): break
            }
        }
    }

    mutating func removeAll() { entries.removeAll() }
}
