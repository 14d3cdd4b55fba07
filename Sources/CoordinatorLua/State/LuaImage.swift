import CCoordinatorLua
import CCoordinatorLuaGlue

/// An image of a Lua state's whole heap: every byte in use, taken in microseconds (``init(of:)``, ``take()``)
/// and put back (``restore()``), after which the state is, byte for byte where anything reads (the insides
/// of large free blocks are left out), what it was (every table, string, closure, coroutine and upvalue,
/// the registry, the collector's own state), at the same addresses. For a state made with an arena
/// (``state(libraries:arenaBytes:)``: `coordlua_arena.h`).
///
/// What is not the heap is put right around it (``LuaImages``): the memory limit's accounting and the
/// state's string cache come back with the heap; a registry reference Swift took after the image is dead
/// after a restore (its slot is free in the restored heap: never released there, and an error if used);
/// one taken before and let go of since is released again; a Swift object a box made since holds is
/// released, and one whose box was collected since keeps its retain, the box being back. So Swift values
/// made before the image stay right, and those made after are dead, not wrong.
///
/// Images form a stack: restoring one discards every image taken after it. Images are taken and put back
/// between calls only: never while Lua code of the state runs.
package final class LuaImage {
    private let core: LuaCore
    private let image: UnsafeMutablePointer<coordlua_ArenaImage> // SAFETY[c-owned-memory]
    private var strings: LuaStringCache.Saved
    private var mark: LuaImages.Mark?

    /// A state whose heap is one arena of `arenaBytes` bytes of address space (reserved, not taken: the heap
    /// grows into it a megabyte at a time), so that it can be imaged. Running out of the arena is "not enough
    /// memory", as the memory limit is.
    package static func state(libraries: LuaLibraries = .all, arenaBytes: Int) throws -> LuaState {
        try LuaState(core: LuaCore(arenaBytes: arenaBytes), libraries: libraries)
    }

    /// Whether `lua`'s heap can be imaged (it was made with an arena).
    package static func canImage(_ lua: LuaState) -> Bool { lua.core.runtime.pointee.arena.base != nil }

    /// An image of `lua`'s heap now.
    package init(of lua: LuaState) throws {
        core = lua.core
        guard Self.canImage(lua) else {
            throw LuaError(.misuse, "a Lua state without an arena has no image (LuaImage.state(arenaBytes:))")
        }
        image = .allocate(capacity: 1)
        image.initialize(to: coordlua_ArenaImage())
        strings = core.strings.save()
        try take()
    }

    deinit {
        if let mark, !core.isClosed, core.images.discard(mark.serial) {
            coordlua_ledger_settle(core.runtime) // no image is kept: the collections deferred are released
        }
        coordlua_arena_image_free(image)
        image.deinitialize(count: 1)
        image.deallocate()
    }

    /// Takes the image again: the heap as it is now, in the same storage (it becomes the newest image).
    package func take() throws {
        try checkBetweenCalls()
        core.drainUnrefs()
        guard coordlua_checkpoint(core.runtime, image) != 0 else { throw LuaError(.memory, "not enough memory for an image of the Lua state") }
        strings = core.strings.save()
        let ledger = core.runtime.pointee.ledger
        coordlua_ledger_start(core.runtime)
        mark = core.images.took(image: mark?.serial, made: ledger.made.count, collected: ledger.collected.count)
    }

    /// Puts the heap back as the image holds it, and what Swift keeps about it (see above). Fails, changing
    /// nothing, when the image was discarded by a restore to an older one.
    package func restore() throws {
        try checkBetweenCalls()
        guard let mark, core.images.isKept(mark.serial) else {
            throw LuaError(.misuse, "this image was discarded: a restore to an image taken before it came since")
        }
        guard core.runtime.pointee.ledger.lost == 0 else {
            throw LuaError(.memory, "not enough memory to note the Swift objects Lua held since the image: it cannot be restored exactly")
        }
        coordlua_restore(core.runtime, image)
        core.runtime.pointee.current = core.mainThread
        core.strings.restore(strings)
        core.images.restored(to: mark, pending: &core.pendingUnrefs)
        // Last: releasing the objects of the boxes made since runs their deinitialisers.
        _ = coordlua_ledger_rewind(core.runtime, mark.made, mark.collected)
    }

    /// Stops the collector until the next restore (which brings back the collector the image holds): in a
    /// branch that is restored, garbage dies with the restore, and collecting it is wasted. A branch that
    /// runs out of memory still collects (Lua's emergency collection), and the memory limit holds.
    package func pauseCollector() {
        guard !core.isClosed else { return }
        _ = coordlua_gc_stop(core.L)
    }

    /// The heap's bytes when the image was taken (its top).
    package var bytes: Int { image.pointee.size }

    /// The bytes the image copied: ``bytes`` but for the insides of the heap's large free blocks, which
    /// nothing reads before writing them.
    package var keptBytes: Int { image.pointee.kept }

    /// How many of the heap's 64-byte lines differ from the image's: 0 exactly when the heap is the image's.
    package var changedLines: Int { core.isClosed ? 0 : coordlua_arena_changed(&core.runtime.pointee.arena, image, nil, 0) }

    private func checkBetweenCalls() throws {
        guard !core.isClosed else { throw LuaError(.misuse, "the Lua state is closed") }
        guard core.callDepth == 0 else { throw LuaError(.misuse, "a Lua state is imaged and restored between calls, not while Lua code runs") }
    }
}
