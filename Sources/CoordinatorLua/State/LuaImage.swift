import CCoordinatorLua
import CCoordinatorLuaGlue

/// An image of a Lua state's whole heap: every byte of it, taken in microseconds (``init(of:)``, ``take()``)
/// and put back (``restore()``), after which the state is, byte for byte, what it was (every table, string,
/// closure, coroutine and upvalue, the registry, the collector's own state), at the same addresses. For a
/// state made with an arena (``state(libraries:arenaBytes:)``: `coordlua_arena.h`).
///
/// What is not the heap is not in the image, and a restore is exact only under this contract, which the
/// caller keeps: no Swift value made after the image was taken (a ``LuaTable``, a ``LuaFunction``, a
/// callback, a class registered) is used after the restore, and none is released after it either (the
/// registry slots they held are free again in the restored heap; the restore drops the releases that were
/// pending). The memory limit's accounting and the state's string cache are put back with the heap.
///
/// Images are taken and put back between calls only: never while Lua code of the state runs.
package final class LuaImage {
    private let core: LuaCore
    private let image: UnsafeMutablePointer<coordlua_ArenaImage> // SAFETY[c-owned-memory]
    private var strings: LuaStringCache.Saved

    /// A state whose heap is one arena of `arenaBytes` bytes of address space (reserved, not taken: the heap
    /// grows into it a megabyte at a time), so that it can be imaged. Running out of the arena is "not enough
    /// memory", as the memory limit is.
    package static func state(libraries: LuaLibraries = .all, arenaBytes: Int) throws -> LuaState {
        try LuaState(core: LuaCore(arenaBytes: arenaBytes), libraries: libraries)
    }

    /// An image of `lua`'s heap now.
    package init(of lua: LuaState) throws {
        core = lua.core
        guard core.runtime.pointee.arena.base != nil else {
            throw LuaError(.misuse, "a Lua state without an arena has no image (LuaImage.state(arenaBytes:))")
        }
        image = .allocate(capacity: 1)
        image.initialize(to: coordlua_ArenaImage())
        strings = core.strings.save()
        try take()
    }

    deinit {
        coordlua_arena_image_free(image)
        image.deinitialize(count: 1)
        image.deallocate()
    }

    /// Takes the image again: the heap as it is now, in the same storage.
    package func take() throws {
        try checkBetweenCalls()
        core.drainUnrefs()
        guard coordlua_checkpoint(core.runtime, image) != 0 else { throw LuaError(.memory, "not enough memory for an image of the Lua state") }
        strings = core.strings.save()
    }

    /// Puts the heap back as the image holds it (see the contract above).
    package func restore() throws {
        try checkBetweenCalls()
        coordlua_restore(core.runtime, image)
        core.runtime.pointee.current = core.mainThread
        core.pendingUnrefs.removeAll()
        core.strings.restore(strings)
    }

    /// The heap's bytes the image holds.
    package var bytes: Int { image.pointee.size }

    /// How many of the heap's 64-byte lines differ from the image's: 0 exactly when the heap is the image's.
    package var changedLines: Int { core.isClosed ? 0 : coordlua_arena_changed(&core.runtime.pointee.arena, image, nil, 0) }

    private func checkBetweenCalls() throws {
        guard !core.isClosed else { throw LuaError(.misuse, "the Lua state is closed") }
        guard core.callDepth == 0 else { throw LuaError(.misuse, "a Lua state is imaged and restored between calls, not while Lua code runs") }
    }
}

