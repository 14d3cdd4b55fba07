/// Work a coordinator asks to run right after the operation it runs in (``Coordinator/later(_:)``, what iOS
/// code does with `DispatchQueue.main.async` from the main thread): before the user can act again, as part
/// of the same step.
///
/// Each runs in an operation of its own at the end of the operation that made it, inside it (before it
/// commits), in the order made; one made by a later runs in the same round. Inside a link, the laters a
/// route step made run after that step and before the next. A later that fails is undone alone: the step
/// stands, the failure is counted (``Application/failedLaters``, so that the tools say so: a REPL line, a
/// flow test's step, an exploration's transition) and an event says why. A later is its coordinator's:
/// cancelled, its action released, when that coordinator finishes. Every change (one made, run or
/// cancelled) is undone with a failed operation, so a later is never pending between steps.
final class LaterQueue {
    /// The laters waiting, in the order made.
    private(set) var pending: [Later] = []
    /// The laters that failed, counted with the last (owner and message): a report, not the app's state.
    var failures = Tally<(owner: String, message: String)>()
    /// How many laters one round runs at most: a later that makes another each time would never end.
    static let maximumRuns = 10_000
    let context: AppContext

    init(context: AppContext) { self.context = context }

    /// Queues `action` for `owner`.
    func schedule(owner: Coordinator, action: @escaping () throws -> Void) -> Later {
        record()
        let later = Later(id: context.nextID(), owner: owner, action: action, queue: self)
        pending.append(later)
        return later
    }

    /// Takes `later` out, its action released; nothing when it is not pending.
    func cancel(_ later: Later) {
        guard let index = pending.firstIndex(where: { $0 === later }) else { return }
        record()
        pending.remove(at: index)
        later.action = nil
    }

    /// Cancels every later `owner` made (it finished).
    func cancelLaters(of owner: Coordinator) {
        guard pending.contains(where: { $0.owner === owner }) else { return }
        record()
        for later in pending where later.owner === owner { later.action = nil }
        pending.removeAll { $0.owner === owner }
    }

    /// Runs the laters waiting, each in an operation of its own inside the running one, until none waits;
    /// then what they did settles. One that fails is undone alone and counted; an error the scripting
    /// layer says stops everything (the user's Ctrl-C, a memory limit) fails the running operation, as
    /// does a round past ``maximumRuns``.
    func run(in app: Application) throws {
        guard !pending.isEmpty else { return }
        let isFatal = app.scripting.isFatal
        var runs = 0
        while let next = pending.first {
            guard runs < Self.maximumRuns else {
                throw NavigationError(.badTime, "more than \(Self.maximumRuns) laters ran in one step: a later that makes another each time never ends")
            }
            runs += 1
            record()
            pending.removeFirst()
            let action = next.action
            next.action = nil
            do {
                try app.atomically { try action?() }
            } catch {
                if isFatal?(error) == true { throw error }
                let owner = next.owner.map { "\($0.name)#\($0.id)" } ?? "a finished flow"
                failures.note((owner, "\(error)"))
                app.emit(.laterFailed(owner: owner, reason: "\(error)"))
            }
        }
        try app.lifecycle.settleOperation(in: app)
    }

    /// Notes the queue as it is, for the running operation's undo (a few laters: copied whole).
    private func record() {
        guard context.journal.isOpen else { return }
        let saved = pending.map { ($0, $0.action) }
        context.journal.recordAlways(.custom(born: 0) { [weak self] in
            guard let self else { return }
            pending = saved.map(\.0)
            for (later, action) in saved { later.action = action }
        })
    }
}

/// Work a coordinator asked to run right after the operation it runs in (``Coordinator/later(_:)``): it
/// runs once, or never when cancelled (or its coordinator finished first).
public final class Later {
    /// A number that identifies it in the app.
    public let id: Int
    /// The coordinator that made it (it goes when that one finishes).
    public private(set) weak var owner: Coordinator?
    /// What it runs; nil once it ran or was cancelled.
    var action: (() throws -> Void)?
    private weak var queue: LaterQueue?

    init(id: Int, owner: Coordinator, action: @escaping () throws -> Void, queue: LaterQueue) {
        (self.id, self.owner, self.action, self.queue) = (id, owner, action, queue)
    }

    /// Whether it will still run.
    public var isPending: Bool { queue?.pending.contains { $0 === self } ?? false }

    /// Cancels it (its action released): it never runs. Cancelling one that is not pending does nothing.
    /// Undone with a failed operation.
    public func cancel() { queue?.cancel(self) }
}
