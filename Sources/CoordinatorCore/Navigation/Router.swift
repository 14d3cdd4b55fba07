/// What a coordinator navigates with (the sources' `Routable`): it performs ``Transition``s on a
/// navigation stack on behalf of a coordinator, which owns the screens it shows.
///
/// The core gives every coordinator a router: the application's root gets the router passed to
/// ``Application/start(_:with:router:)`` (a ``HeadlessRouter`` by default), a child run on its parent's
/// stack shares its parent's, and a child run modally, or a tab's flow, gets ``router(on:)`` of its
/// parent's. A host plugs in its own router by passing it to `start`; it usually wraps the headless one,
/// which keeps the window model (and so system back, auto-finishing and undo) right, and adds what the
/// host needs: logging, or mirroring onto a real `UINavigationController` once an operation has
/// succeeded (``Application/afterCommit(_:)``).
///
/// ```swift
/// final class LoggingRouter: Router {
///     let base: any Router
///     var log: [String] = []
///     init(_ base: any Router) { self.base = base }
///     var stack: NavigationStack { base.stack }
///     func perform(_ transition: Transition, for coordinator: Coordinator, animated: Bool) throws {
///         try base.perform(transition, for: coordinator, animated: animated)
///         log.append("\(coordinator.name): \(transition)")
///     }
///     func router(on stack: NavigationStack) -> any Router { LoggingRouter(base.router(on: stack)) }
/// }
/// try app.start(root, router: LoggingRouter(app.headlessRouter()))
/// ```
public protocol Router: AnyObject {
    /// The navigation stack it pushes onto.
    var stack: NavigationStack { get }
    /// Performs `transition` for `coordinator` as one atomic operation: all of it happens, or nothing
    /// (and the error says why).
    func perform(_ transition: Transition, for coordinator: Coordinator, animated: Bool) throws
    /// A router of the same kind on another stack: for a child flow presented modally, or a tab's flow.
    func router(on stack: NavigationStack) -> any Router
}

/// The core's router: it performs transitions on the headless ``Window`` model.
///
/// Pushing while a modal is up goes where UIKit puts it: onto this router's stack, under the modal.
public final class HeadlessRouter: Router {
    /// The navigation stack it pushes onto.
    public let stack: NavigationStack

    /// A router on `stack` (``Application/headlessRouter()`` gives the one on the window's root stack).
    public init(stack: NavigationStack) { self.stack = stack }

    public func perform(_ transition: Transition, for coordinator: Coordinator, animated: Bool) throws {
        let app = try coordinator.runningApp()
        guard app.context === stack.context else {
            throw NavigationError(.containerNotShown, "this router's stack belongs to another app")
        }
        try app.atomically { try app.navigator(for: coordinator).navigate(transition, on: stack, by: coordinator, animated: animated) }
    }

    public func router(on stack: NavigationStack) -> any Router { HeadlessRouter(stack: stack) }
}
