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

    /// Forgets the objects that are gone (their entries), keeping the list as long as what lives.
    package func compact() {
        coordinators.removeAll { $0.object == nil }
        screens.removeAll { $0.object == nil }
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
