/// Atomic operations: every operation runs in ``Application/atomically(_:)``, which either completes it or
/// puts everything back through the ``Journal``.
extension Application {
    /// Runs `body` as one operation: if it throws, everything it changed is restored and its events are
    /// dropped; if it succeeds, its events are reported (when no outer operation is running). When the
    /// outermost operation succeeds, the coordinators that lost their screens during it finish first
    /// (`Lifecycle.swift`), inside it.
    public func atomically<T>(_ body: () throws -> T) throws -> T {
        let journal = context.journal
        journal.begin()
        let result: T
        do {
            result = try body()
            if journal.isOutermost {
                try lifecycle.settleOperation(in: self)
                try laters.run(in: self)
                try lifecycle.followGateway(in: self) // several windows: each root flow in the gateway's state
                if let beforeCommit = scripting.beforeCommit {
                    try beforeCommit()
                    try lifecycle.settleOperation(in: self) // what it did settles too
                }
                try storage.persistIfChanged() // last: a store that cannot take the values fails the operation
            }
        } catch {
            journal.rollback()
            lifecycle.operationFailed(outermost: !journal.isRunning)
            throw error
        }
        let events = journal.commit()
        if !journal.isRunning {
            for event in events { context.events.deliver(event) }
            runCommitActions()
        }
        return result
    }

    /// Runs `action` once the outermost running operation has succeeded (at once outside operations); if
    /// it fails, `action` is dropped. Where a host mirrors the headless model onto a real UI: only what
    /// happened reaches the screen.
    ///
    /// ```swift
    /// app.afterCommit { navigationController.setViewControllers(controllers(for: stack), animated: true) }
    /// ```
    public func afterCommit(_ action: @escaping () -> Void) {
        guard context.journal.isRunning else { return action() }
        context.journal.queueCommitAction(action)
    }

    private func runCommitActions() {
        while let actions = context.journal.takeCommitActions() {
            for action in actions { action() }
        }
    }

    /// Runs `body` as a branch the app comes back from: each operation `body` runs is an outermost one (the
    /// flows that lost their screens finish, its events are reported, its `afterCommit` work runs), and
    /// once `body` returns or throws, everything they and `body` changed is put back, newest first, a
    /// bridge's own state included: the app is as before, object for object, and what the branch made is
    /// dropped. For tools that try a step and come back (exploration). Branches nest; one cannot begin
    /// while an operation runs.
    package func branch<T>(_ body: () throws -> T) throws -> T {
        let journal = context.journal
        guard !journal.isRunning else { throw NavigationError(.operationRunning, "a branch begins between operations, not inside one") }
        journal.beginSavepoint()
        defer {
            journal.rollbackSavepoint()
            lifecycle.operationFailed(outermost: !journal.isRunning)
        }
        return try body()
    }

    /// The operation log as a bridge records its own state in it (see ``UndoLog``).
    package var undoLog: UndoLog { UndoLog(journal: context.journal) }
}

/// The app's operation log, for a bridge whose own state follows the app's atomic operations (a script's
/// handlers, a coordinator's Lua instance). It holds the log, not the application: an object keeping one
/// never keeps the app alive, and once the app is gone no operation runs, so nothing is recorded.
package struct UndoLog {
    let journal: Journal

    /// Whether the app is in a branch (``Application/branch(_:)``), whose log keeps what its entries hold
    /// until it rolls back; outside one, an entry lives only while its operation runs.
    package var isBranching: Bool { journal.isBranching }

    /// Call it *before* every change of the state `mark` guards, which belongs to an object made in the
    /// operation level `born` (a screen's or a coordinator's `born`, 0 for anything older). The first call in
    /// an operation level takes the snapshot (`snapshot` returns the closure that restores it), later ones
    /// cost a comparison; nothing is recorded while the object is new in the running level (it goes with the
    /// level if that fails), and the entry leaves the log once the object is new to the level around (see
    /// `Journal`). Outside an operation it does nothing.
    package func record(_ mark: inout UndoMark, born: Int, snapshot: () -> () -> Void) {
        guard journal.shouldLog(born), mark.serial != journal.born else { return }
        mark.serial = journal.born
        journal.record(.custom(born: born, snapshot()))
    }

    /// Records one change of a bridge's state, with `undo` the closure that takes it back exactly: for a
    /// change too small to take a snapshot for (one item removed from a long list). Nothing is recorded
    /// while the object (made in level `born`) is new in the running level, or outside an operation.
    package func record(born: Int, undo: @escaping () -> Void) {
        guard journal.shouldLog(born) else { return }
        journal.record(.custom(born: born, undo))
    }

    /// Says that the state `mark` guards was made in the running operation level, before anything could
    /// see it: ``record(_:born:snapshot:)`` records nothing more for it in this level.
    package func madeInOperation(_ mark: inout UndoMark) {
        if journal.isOpen { mark.serial = journal.born }
    }
}
