/// Weak references to every coordinator and screen an app makes, for a lifecycle check (the flow tests'
/// oracle: no finished coordinator and no screen that left may stay alive). Off unless asked for
/// (``Application/trackObjects()``); then each coordinator and screen made costs one append.
package final class ObjectTracker {
    /// A weak reference.
    package struct Weak<T: AnyObject> {
        package weak var object: T?
    }

    package private(set) var coordinators: [Weak<Coordinator>] = []
    package private(set) var screens: [Weak<Screen>] = []

    init() {}

    func add(_ coordinator: Coordinator) { coordinators.append(Weak(object: coordinator)) }
    func add(_ screen: Screen) { screens.append(Weak(object: screen)) }

    /// The entries ``compact()`` last kept.
    private var keptByCompact = 0

    /// Forgets the objects that are gone (their entries), keeping the list as long as what lives.
    package func compact() {
        coordinators.removeAll { $0.object == nil }
        screens.removeAll { $0.object == nil }
        keptByCompact = coordinators.count + screens.count
    }

    /// Whether a coordinator made since tracking began, still alive, satisfies `predicate`.
    package func containsCoordinator(where predicate: (Coordinator) throws -> Bool) rethrows -> Bool {
        for i in coordinators.indices { if let c = coordinators[i].object, try predicate(c) { return true } }
        return false
    }

    /// Whether a screen made since tracking began, still alive, satisfies `predicate`.
    package func containsScreen(where predicate: (Screen) throws -> Bool) rethrows -> Bool {
        for i in screens.indices { if let s = screens[i].object, try predicate(s) { return true } }
        return false
    }

    /// ``compact()`` once the lists have grown to twice what the last one kept: a caller that looks often
    /// (each branch of an exploration) walks lists as long as what lives, give or take a factor of two,
    /// for amortised constant work per object made.
    package func compactIfGrown() {
        if coordinators.count + screens.count > 2 * keptByCompact + 64 { compact() }
    }
}

extension Application {
    /// Starts keeping weak references to the coordinators and screens made from now on (once; the same
    /// tracker after that).
    package func trackObjects() -> ObjectTracker {
        if let tracker = context.tracker { return tracker }
        let tracker = ObjectTracker()
        context.tracker = tracker
        return tracker
    }
}
