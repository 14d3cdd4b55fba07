import CoordinatorCore

/// The host's own router: where an iOS app would drive a `UINavigationController`, this one logs every
/// transition a coordinator asks for, then lets the headless router keep the runtime's window model in step.
///
/// Screens that leave without a coordinator asking (a flow that finished takes its screens with it, the
/// system's back) are changes of the model, not transitions: a host that mirrors a real navigation
/// controller follows those through the app's events (`app.observe`, `app.navigationEvents()`).
final class LoggingRouter: Router {
    private let base: any Router
    private let log: (String) -> Void

    init(wrapping base: any Router, log: @escaping (String) -> Void) {
        self.base = base
        self.log = log
    }

    var stack: NavigationStack { base.stack }

    func perform(_ transition: Transition, for coordinator: Coordinator, animated: Bool) throws {
        log("router: \(transition)\(animated ? "" : " (not animated)")")
        try base.perform(transition, for: coordinator, animated: animated)
    }

    /// Modals and tabs get a logging router of their own.
    func router(on stack: NavigationStack) -> any Router {
        LoggingRouter(wrapping: base.router(on: stack), log: log)
    }
}
