/// The log of the running operation: what it changed, as typed entries (``Change``), and the events it
/// will report. An operation that fails is undone by applying its entries' inverses newest first; one that
/// succeeds drops its log and reports its events (an inner operation leaves both to the one around it).
///
/// Costs do not grow with the app: an entry records one change (a screen appended to a stack is the stack
/// alone, undone by removing the last screen), not a copy of the state it changed, so a push costs the
/// same at depth 10 and 10,000. An object made inside an operation is logged nowhere in it: if the
/// operation fails, the object goes with it (``shouldLog(_:)``), and when it succeeds the log is dropped,
/// so a loop of a million pushes and pops inside one operation leaves nothing behind once it ends.
final class Journal {
    private struct Level {
        /// Numbers the level; objects made while it runs are marked with it (``born``).
        let serial: Int
        /// Where its entries start in the log.
        let logStart: Int
        /// Where its events start in ``pending``.
        let eventStart: Int
        /// Where its commit actions start.
        let actionStart: Int
        /// Where the objects it made start in ``made``.
        let madeStart: Int
        /// Whether an object was made in it (or in a level inside it that succeeded): only then can the
        /// level around drop entries when this one succeeds.
        var madeObjects = false
    }

    // Every operation and every change goes through these (undo closures run on a copied entry, and commit
    // hands the events out before they are delivered).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private var levels: [Level] = []
    /// The running operation's changes, oldest first.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private var log: [Entry] = []

    /// A change with the levels of the objects it is about, read once when it is logged: compaction and
    /// rollback decide on these numbers without opening the change.
    private struct Entry {
        /// The level the changed object was made in (``Change/subjectBorn``).
        let subjectBorn: Int
        /// The newest level among the objects a removal keeps to put back (``Change/referencedBorn``).
        let referencedBorn: Int
        var change: Change

        init(_ change: Change) {
            self.change = change
            subjectBorn = change.subjectBorn
            referencedBorn = change.referencedBorn
        }
    }
    /// The running operation's events, reported when the outermost level succeeds.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private(set) var pending: [NavigationEvent] = []
    private var serialCounter = 0
    /// What runs once the outermost level succeeds (``Application/afterCommit(_:)``).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private var commitActions: [() -> Void] = []
    /// The objects the running levels made that link to others (dropped with a level that fails).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private var made = MadeObjects()

    /// How many of the outermost levels are savepoints (``beginSavepoint()``).
    private var savepoints = 0

    /// Whether changes are logged: an operation runs, or a savepoint is open.
    var isOpen: Bool { !levels.isEmpty }
    /// Whether an operation is running (a savepoint alone is none).
    var isRunning: Bool { levels.count > savepoints }
    /// Whether a savepoint is open: what an undo entry keeps lives until the savepoint rolls back.
    var isBranching: Bool { savepoints > 0 }
    /// Whether the running level is the outermost operation (the first above the savepoints).
    var isOutermost: Bool { levels.count == savepoints + 1 }

    /// The serial of the innermost running level (0 outside operations).
    var born: Int { levels.last?.serial ?? 0 }

    /// The mark of an object made now (``born``), noting that the running level made one.
    func markNew() -> Int {
        guard !levels.isEmpty else { return 0 }
        levels[levels.count - 1].madeObjects = true
        return levels[levels.count - 1].serial
    }

    /// Notes an object made now that links to others; the index of its entry (-1 outside operations:
    /// nothing can fail then).
    @inline(__always)
    func noteMade(_ object: AnyObject) -> Int {
        levels.isEmpty ? -1 : made.note(object)
    }

    /// An object noted with ``noteMade(_:)`` at `index` is going away.
    func forgetMade(_ object: AnyObject, at index: Int) { made.forget(object, at: index) }

    /// Whether a change to an object marked `born` must be logged: an operation is running and the object
    /// existed before its innermost level began (if that level fails, an object made inside it is dropped
    /// with it, so nothing about it needs putting back).
    @inline(__always)
    func shouldLog(_ born: Int) -> Bool {
        changes &+= 1 // asked before every change to a journaled object, logged or not
        guard let level = levels.last else { return false }
        return born < level.serial
    }

    /// Logs a change (the caller asked ``shouldLog(_:)``, or the change has no object of its own).
    @inline(__always)
    func record(_ change: Change) {
        changes &+= 1
        log.append(Entry(change))
    }

    /// Logs a change to state that belongs to no journaled object (a host's own), when an operation runs.
    func recordAlways(_ change: Change) {
        changes &+= 1
        if isOpen { log.append(Entry(change)) }
    }

    /// Queues an event of the running operation.
    func queue(_ event: NavigationEvent) {
        changes &+= 1
        pending.append(event)
    }

    /// A count of the changes (and events) since the app began, undone ones included, which grows with
    /// every change: a front that compares it before and after a step knows whether the step changed
    /// anything, in O(1).
    private(set) var changes = 0

    /// Opens a level.
    func begin() {
        serialCounter &+= 1
        levels.append(Level(serial: serialCounter, logStart: log.count, eventStart: pending.count, actionStart: commitActions.count,
                            madeStart: made.count))
    }

    /// Opens a savepoint: a level under the operations to come, each of which then runs as the outermost
    /// one (its commit-time work runs, its events are reported) while everything it changes stays logged,
    /// until ``rollbackSavepoint()`` puts all of it back. Only between operations; savepoints nest.
    func beginSavepoint() {
        begin()
        savepoints += 1
    }

    /// Puts back everything changed since the innermost savepoint opened, and closes it.
    func rollbackSavepoint() {
        savepoints -= 1
        rollback()
    }

    /// Closes the innermost level successfully. Returns the events to report: all of them when it was the
    /// outermost operation, none otherwise (they stay queued for the level around it). Above a savepoint,
    /// the outermost operation's log stays for the savepoint.
    func commit() -> [NavigationEvent] {
        let level = levels.removeLast()
        if let outer = levels.last {
            if level.madeObjects || outer.madeObjects {
                compact(from: level.logStart, into: outer.serial)
                levels[levels.count - 1].madeObjects = true
            }
            guard levels.count == savepoints else { return [] }
            let events = Array(pending[level.eventStart...])
            pending.removeSubrange(level.eventStart...)
            return events
        }
        log.removeAll(keepingCapacity: log.capacity <= 1024)
        made.removeAll()
        let events = pending
        pending.removeAll(keepingCapacity: pending.capacity <= 1024)
        return events
    }

    /// Closes the innermost level by undoing everything it changed, newest first, and dropping its events.
    /// Entries about objects made inside the level are skipped: those objects are dropped with it, their
    /// links cut (``MadeObject``).
    func rollback() {
        let level = levels.removeLast()
        var i = log.count
        while i > level.logStart {
            i -= 1
            if log[i].subjectBorn < level.serial { log[i].change.undo(inLevel: level.serial) }
        }
        log.removeSubrange(level.logStart...)
        pending.removeSubrange(level.eventStart...)
        commitActions.removeSubrange(level.actionStart...)
        // What the level made goes with it: the links among those objects are cut (outside the level, so
        // nothing about it is logged), or they would keep each other alive.
        // Newest first; each access to `made` ends before the links are cut, since cutting them frees
        // objects that clear their own entries (read after that).
        var entry = made.count
        while entry > level.madeStart {
            entry -= 1
            (made.object(at: entry) as? any MadeObject)?.dropLinks()
        }
        made.removeAll(from: level.madeStart)
        if levels.isEmpty {
            log.removeAll(keepingCapacity: log.capacity <= 1024)
            pending.removeAll(keepingCapacity: pending.capacity <= 1024)
        }
    }

    /// Keeps, of the entries from `start` on, what the level `outer` still needs (``Change/need(inLevel:)``):
    /// the objects a succeeded level made and dropped leave the log with it.
    private func compact(from start: Int, into outer: Int) {
        var kept = start
        for i in start..<log.count {
            if log[i].subjectBorn >= outer { continue }
            if log[i].referencedBorn >= outer {
                switch log[i].change.need(inLevel: outer) {
                case .none: continue
                case .whole: break
                case .part(let change): log[i] = Entry(change)
                }
            }
            if i != kept { log.swapAt(i, kept) } // moves without copying (no retain or release)
            kept += 1
        }
        if kept < log.count { log.removeSubrange(kept...) }
    }

    /// Queues what runs once the outermost level succeeds.
    func queueCommitAction(_ action: @escaping () -> Void) { commitActions.append(action) }

    /// The actions of an outermost level that succeeded, taken out (nil when there are none).
    func takeCommitActions() -> [() -> Void]? {
        guard !isRunning, !commitActions.isEmpty else { return nil }
        defer { commitActions.removeAll() }
        return commitActions
    }
}

/// Which operation level last recorded some state of a bridge's own (see
/// ``UndoLog/record(_:born:snapshot:)``).
package struct UndoMark: Sendable {
    var serial = 0
    /// A mark that has recorded nothing.
    package init() {}
}
