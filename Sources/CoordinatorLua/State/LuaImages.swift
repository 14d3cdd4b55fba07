/// A registry slot whose Swift owner went away, released at the state's next safe point: its number and the
/// era it was taken in (``LuaImages``).
struct PendingUnref {
    let slot: Int32
    let era: Int
}

/// What a state keeps about its images (``LuaImage``) outside its heap: which images are kept, in the
/// order taken, and the rules that keep Swift's registry references right across a restore.
///
/// Time is counted in eras: every image taken and every restore starts a new one, and each registry slot
/// Swift takes notes the era it was taken in. A restore to an image taken in era `e` from era `n` frees, in
/// the heap it puts back, every slot taken in eras `e+1 ... n`: references taken then are dead (never
/// released into the restored registry, where their slot is free or another's; used, they fail). Slots
/// taken before the image and released while it is kept are released again after a restore to it (the
/// restored heap holds them). So the
/// registry after a restore is the image's exactly, less what Swift let go of since.
///
/// Images form a stack: a restore discards every image taken after the one restored (their heaps never
/// were), and a discarded image cannot be restored.
final class LuaImages {
    /// One kept image: its number, the era it was taken in, and the box ledger's marks then
    /// (`coordlua_Ledger`).
    struct Mark {
        let serial: Int
        let era: Int
        let made: Int
        let collected: Int
    }

    // `era` is read whenever Swift takes a slot, `dead` whenever it uses one.
    /// The era now.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private(set) var era = 1
    /// The kept images, oldest first.
    private var kept: [Mark] = []
    private var serials = 0
    /// The eras whose slots are free in the heap: sorted, disjoint ranges `after+1 ... upTo`.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private var dead: [(after: Int, upTo: Int)] = []
    /// Releases done while an image taken after their slot is kept: done again after a restore to it.
    private var held: [PendingUnref] = []

    /// Whether no image is kept (and no release is held).
    var isEmpty: Bool { kept.isEmpty && held.isEmpty && dead.isEmpty }

    /// Whether a slot taken in `era` was freed by a restore.
    @inline(__always) func isDead(_ era: Int) -> Bool {
        guard let last = dead.last, era <= last.upTo, era > dead[0].after else { return false }
        return isDeadSearching(era)
    }

    private func isDeadSearching(_ era: Int) -> Bool {
        var low = 0, high = dead.count // the last range whose `after` is below `era`
        while high - low > 1 {
            let middle = (low + high) / 2
            if dead[middle].after < era { low = middle } else { high = middle }
        }
        return era <= dead[low].upTo
    }

    /// Whether a released slot may be given back to the registry now: not when the slot is free in the heap
    /// already (taken after the image restored last). One the newest image holds is noted, to be given
    /// back again after a restore.
    func mayRelease(_ unref: PendingUnref) -> Bool {
        if isDead(unref.era) { return false }
        if let newest = kept.last, unref.era <= newest.era { held.append(unref) }
        return true
    }

    /// An image was taken: its mark (it becomes the newest kept).
    func took(image serial: Int?, made: Int, collected: Int) -> Mark {
        if let serial { kept.removeAll { $0.serial == serial } }
        serials += 1
        let mark = Mark(serial: serials, era: era, made: made, collected: collected)
        kept.append(mark)
        era += 1
        return mark
    }

    /// Whether the image numbered `serial` is kept (not discarded by a restore to an older one).
    func isKept(_ serial: Int) -> Bool { kept.contains { $0.serial == serial } }

    /// The heap was put back as `mark`'s image holds it: the images after it are discarded, the slots taken
    /// since are dead, and the releases pending or held are sorted again (`pending`: those now due).
    func restored(to mark: Mark, pending: inout [PendingUnref]) {
        if let index = kept.firstIndex(where: { $0.serial == mark.serial }) { kept.removeSubrange((index + 1)...) }
        var after = mark.era
        while let last = dead.last, last.after >= after { dead.removeLast() }
        if let last = dead.last, last.upTo >= after {
            after = last.after
            dead.removeLast()
        }
        dead.append((after, era))
        era += 1
        // Releases of slots the restored heap holds are due again; the rest were taken after the image.
        pending.removeAll { $0.era > mark.era }
        for unref in held where unref.era <= mark.era { pending.append(unref) }
        held.removeAll()
    }

    /// The image numbered `serial` is no longer kept. Returns whether none is kept now (the ledger settles).
    func discard(_ serial: Int) -> Bool {
        kept.removeAll { $0.serial == serial }
        let newest = kept.last?.era ?? 0
        held.removeAll { $0.era > newest } // no image kept holds their slots
        return kept.isEmpty
    }
}
