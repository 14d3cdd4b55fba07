import CoordinatorCore

/// A host's router for tests: it writes down each transition it performs (`Coordinator: transition`, screen
/// ids left out), then lets the headless router it wraps perform it. Its routers on other stacks share the
/// log.
public final class RecordingRouter: Router {
    /// What every router of the family performed, in order.
    public final class Log { public var lines: [String] = []; public init() {} }

    private let base: any Router
    public let log: Log

    public init(_ base: any Router, log: Log = Log()) { (self.base, self.log) = (base, log) }

    public var stack: NavigationStack { base.stack }

    public func perform(_ transition: Transition, for coordinator: Coordinator, animated: Bool) throws {
        log.lines.append("\(coordinator.name): " + "\(transition)".replacing(/#\d+/, with: "") + (animated ? "" : " unanimated"))
        try base.perform(transition, for: coordinator, animated: animated)
    }

    public func router(on stack: NavigationStack) -> any Router { RecordingRouter(base.router(on: stack), log: log) }
}
