import CCoordinatorLua
import CCoordinatorLuaGlue

extension LuaCore {
    /// The registry slots that hold values only for a branch the app's journal will roll back, which the
    /// branch's commit would let go of: the tables only an undo entry keeps (``LuaUndoHold``) and the
    /// callbacks whose holders left the app (``LuaCallback/isKept``). A state reached in a branch holds
    /// these beyond what the same state reached for good holds: its fingerprint leaves them out
    /// (``LuaFingerprint``), and a collection as committed empties them (``BranchCollections/asCommitted()``).
    func slotsLetGoOnCommit() -> [Int32] {
        var slots: [Int32] = []
        for entry in callbacks {
            let callback = entry.takeUnretainedValue()
            guard let isKept = callback.isKept, callback.isAlive, !isKept() else { continue }
            slots.append(callback.slot)
        }
        for hold in undoHolds {
            let reference = hold.takeUnretainedValue().reference
            guard reference.isValid else { continue }
            slots.append(reference.ref)
        }
        return slots
    }
}

extension LuaState {
    /// The collections a branch makes (``BranchCollections``).
    package var branchCollections: BranchCollections { BranchCollections(state: self) }
}

/// The collections of a state's heap that a branch makes, for exploration and the lifecycle oracle: as the
/// branch's commit would leave the heap, or without running a finalizer, and whether Lua still holds a
/// Swift object's userdata after one.
package struct BranchCollections {
    let state: LuaState
    private var core: LuaCore { state.core }

    /// Collects the heap in full as the running branch's commit would leave it: first the registry's slots
    /// that only the branch holds (``LuaCore/slotsLetGoOnCommit()``) are emptied. Then whether the
    /// userdata of a Swift object survived (``holdsUserdata(of:)``) says whether the object would still be
    /// held by Lua once the branch's steps committed and their garbage was collected.
    ///
    /// Only in a branch whose heap an image brings back (``LuaImage``): the slots emptied and everything
    /// collected come back with the restore. No finalizer runs (``withoutFinalizers()``): the Swift
    /// object of a userdata it finds unreachable keeps its retain, the userdata waiting in the heap for a
    /// finalizer the restore takes back.
    package func asCommitted() throws {
        guard LuaImage.canImage(state), !core.images.isEmpty else {
            throw LuaError(.misuse, "a collection as committed runs in a branch an image brings back")
        }
        let L = try core.thread()
        core.drainUnrefs()
        for slot in core.slotsLetGoOnCommit() {
            lua_pushnil(L)
            coordlua_rawsetref(L, slot)
        }
        // No finalizer runs: what one would do outside the heap (close a file, release a Swift object)
        // the restore could not take back, and the object it finalized would come back with the heap.
        guard coordlua_collect_without_finalizers(L) != 0 else { throw LuaError(.memory, "not enough memory") }
    }

    /// Collects the heap in full without running a finalizer (Lua's emergency collection): what is
    /// unreachable and has none is freed; what has one stays until a collection that runs finalizers. For a
    /// branch an image brings back, where a finalizer's effects outside the heap could not be taken back.
    /// Throws when the state is out of memory (nothing was freed then but what a collection frees).
    package func withoutFinalizers() throws {
        let L = try core.thread()
        core.drainUnrefs()
        guard coordlua_collect_without_finalizers(L) != 0 else { throw LuaError(.memory, "not enough memory") }
    }

    /// Whether Lua holds the userdata of `object` (the one ``LuaObject`` pushes): made, not collected.
    package func holdsUserdata(of object: AnyObject) -> Bool {
        guard let L = try? core.thread(), lua_checkstack(L, 3) != 0 else { return false }
        let address = Unmanaged.passUnretained(object).toOpaque() // SAFETY[boxed-object]
        guard coordlua_weakmap_get(L, core.objectCacheRef, address) != 0 else { return false }
        defer { lua_settop(L, -2) }
        // A userdata being finalized has let go of its object already.
        guard lua_type(L, -1) == LUA_TUSERDATA, let block = lua_touserdata(L, -1) else { return false }
        return block.load(as: UnsafeMutableRawPointer?.self) != nil // SAFETY[boxed-object]
    }
}
