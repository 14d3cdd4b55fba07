/// An object made inside an operation that links to others (a coordinator and its screens, a screen and its
/// stack, handlers that hold both): if the operation fails, the object is dropped with it, and
/// ``dropLinks()`` cuts those links so that it and the objects it links to are freed. Without it, what a
/// failed line made (a flow whose start failed, a screen whose rendering failed) kept itself alive in a
/// cycle.
protocol MadeObject: AnyObject {
    /// Cuts the links a failed operation would leave: its place in the tree, its screens, its handlers.
    func dropLinks()
}

/// The objects made by the running operation's levels, oldest first (``Journal/rollback()`` drops those of
/// the failing level, newest first).
///
/// The list does not retain them: an object that goes away inside the operation (made and popped in the
/// same line) clears its own entry in `deinit` (``forget(_:at:)``), so a loop that makes a million screens
/// in one line holds 8 bytes per screen until the line ends, not the screens. An entry is an object's
/// address, which is safe to follow because of that: an entry is either nil or the address of an object
/// whose `deinit` has not run (it clears the entry first), and it is followed only after checking it is
/// not nil, into a strong reference taken while the object is alive. Addresses (a trivial element type)
/// rather than references keep the cost of a push small: the list costs the journey of scripts/bench-
/// instructions about 1,300 instructions for 3 objects made (a weak reference would also allocate a
/// side table per object).
struct MadeObjects {
    private(set) var entries: [UnsafeMutableRawPointer?] = [] // SAFETY[identity-address]

    var count: Int { entries.count }

    /// Notes `object` (made now); the index of its entry.
    mutating func note(_ object: AnyObject) -> Int {
        entries.append(Unmanaged.passUnretained(object).toOpaque()) // SAFETY[unretained-list]
        return entries.count - 1
    }

    /// `object` is going away: its entry at `index` goes (if the list still has it: a later operation may
    /// have reused the index for another object, which the address tells apart, `object` being alive).
    mutating func forget(_ object: AnyObject, at index: Int) {
        guard index < entries.count, entries[index] == Unmanaged.passUnretained(object).toOpaque() else { return } // SAFETY[unretained-list]
        entries[index] = nil
    }

    /// The object of entry `index`, while it is alive (a strong reference: the entry is set, so the object
    /// has not gone; see above).
    func object(at index: Int) -> AnyObject? {
        guard let address = entries[index] else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(address).takeUnretainedValue() // SAFETY[unretained-list]
    }

    /// Forgets the objects from `start` on.
    mutating func removeAll(from start: Int) {
        if start < entries.count { entries.removeSubrange(start...) }
    }

    /// Forgets every object (the outermost operation succeeded: they live on).
    mutating func removeAll() {
        entries.removeAll(keepingCapacity: entries.capacity <= 1024)
    }
}

extension Coordinator: MadeObject {
    /// Started in an operation that failed: out of the tree, without screens, children or handlers, and idle
    /// again, as it was made (whoever kept it may start it again); a bridge lets go of its own state.
    func dropLinks() {
        (self as? DroppedObjectsListener)?.releaseWhenDropped()
        dropAfterFailedLevel()
    }
}

extension Screen: MadeObject {
    /// Made in an operation that failed: no owner, stack or handlers any more (the handlers' Lua closures
    /// hold the screen, and the owner holds its handlers' coordinator).
    func dropLinks() {
        removeAllHandlers()
        outputReceiver = nil
        (owner as? DroppedObjectsListener)?.forgetDroppedScreen(self)
        takeOutOfFailedLevel()
    }
}

/// A coordinator of a scripting bridge that keeps state of its own about what it made (a Lua instance
/// that holds it, a list of its screens with script handlers): told when an operation that failed drops
/// it or one of its screens. Asked for only when an operation fails (a cast), so it costs nothing per push.
package protocol DroppedObjectsListener: AnyObject {
    /// The operation that started this coordinator failed: let go of what holds it.
    func releaseWhenDropped()
    /// A screen it pushed in an operation that failed was dropped.
    func forgetDroppedScreen(_ screen: Screen)
}
