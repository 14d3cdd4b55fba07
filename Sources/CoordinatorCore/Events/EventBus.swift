/// The observers of an app's events. An event is built only when someone observes, and reported only when
/// the operation that caused it succeeds (queued in the ``Journal`` until then).
final class EventBus {
    /// Read on every event (delivery iterates a copy, so an observer that adds or removes observers does
    /// not overlap it).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private var observers: [(id: Int, handler: (NavigationEvent) -> Void)] = []
    private var nextToken = 0

    /// Whether anyone observes.
    var isObserved: Bool { !observers.isEmpty }

    func add(_ handler: @escaping (NavigationEvent) -> Void) -> Int {
        nextToken &+= 1
        observers.append((nextToken, handler))
        return nextToken
    }

    func remove(_ token: Int) {
        observers.removeAll { $0.id == token }
        endings.removeAll { $0.id == token }
    }

    /// What runs when the app goes (an event stream finishes), by the token of its observer.
    private var endings: [(id: Int, action: () -> Void)] = []

    /// Runs `action` when the app goes, unless the observer `token` is removed first.
    func onEnd(of token: Int, _ action: @escaping () -> Void) { endings.append((token, action)) }

    /// The app goes: every ending runs, once.
    func end() {
        let actions = endings
        endings.removeAll()
        observers.removeAll()
        for ending in actions { ending.action() }
    }

    /// Reports an event at once (outside operations) or queues it in the running operation.
    @inline(__always)
    func emit(_ event: @autoclosure () -> NavigationEvent, in journal: Journal) {
        guard !observers.isEmpty else { return }
        if journal.isRunning { journal.queue(event()) } else { deliver(event()) }
    }

    /// Reports events of an operation that succeeded, in order. Delivery goes over a copy: an observer
    /// may add or remove observers.
    func deliver(_ event: NavigationEvent) {
        for observer in observers { observer.handler(event) }
    }
}
