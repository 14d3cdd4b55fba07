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
/// same line) clears its own slot in `deinit` (``forget(_:)``), so a loop that makes a million screens in
/// one line holds 16 bytes per screen until the line ends, not the screens. The references are
/// `unowned(unsafe)`, which is safe because of that: an entry is either nil or names an object whose
/// `deinit` has not run (it clears the entry first), and it is only followed after checking it is not nil,
/// into a strong reference taken while the object is alive. (A weak reference would allocate a side table
/// per object, on every push.)
struct MadeObjects {
    struct Entry {
        unowned(unsafe) let object: any MadeObject
        let id: ObjectIdentifier
    }
    /// Where an object's entry is, for its `deinit`.
    struct Slot {
        let index: Int
    }

    private(set) var entries: [Entry?] = []

    var count: Int { entries.count }

    /// Notes `object` (made now); its slot.
    mutating func note(_ object: any MadeObject) -> Slot {
        entries.append(Entry(object: object, id: ObjectIdentifier(object)))
        return Slot(index: entries.count - 1)
    }

    /// The object with identity `id` is going away: its entry goes (if the list still has it; a later
    /// operation may have reused the slot for another object, which the identity tells apart).
    mutating func forget(_ slot: Slot, id: ObjectIdentifier) {
        guard slot.index < entries.count, entries[slot.index]?.id == id else { return }
        entries[slot.index] = nil
    }

    /// Cuts the links of the objects from `start` on, newest first, then forgets them.
    mutating func drop(from start: Int) {
        var i = entries.count
        while i > start {
            i -= 1
            guard let entry = entries[i] else { continue }
            let object = entry.object // a strong reference: the entry is set, so the object is alive
            object.dropLinks() // may free others, which clear their entries (read after this)
        }
        if start < entries.count { entries.removeSubrange(start...) }
    }

    /// Forgets every object (the outermost operation succeeded: they live on).
    mutating func removeAll() {
        entries.removeAll(keepingCapacity: entries.capacity <= 1024)
    }
}
