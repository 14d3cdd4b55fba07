import CCoordinatorLua
import CCoordinatorLuaGlue

/// An image of a Lua state's whole heap: every byte of it, taken in microseconds by ``LuaState/checkpoint(into:)``
/// and put back by ``LuaState/restore(_:)``, after which the state is, byte for byte, what it was (every
/// table, string, closure, coroutine and upvalue, the registry, the collector's own state), at the same
/// addresses. For a state made with an arena (``LuaState/init(libraries:arenaBytes:)``: `coordlua_arena.h`).
///
/// What is not the heap is not in the image, and a restore is exact only under this contract, which the
/// caller keeps: no Swift value made after the checkpoint (a ``LuaTable``, a ``LuaFunction``, a callback,
/// a class registered) is used after the restore, and none is released after it either (the registry slots
/// they held are free again in the restored heap; the restore drops the releases that were pending). The
/// memory limit's accounting and the state's string cache are put back with the heap.
package final class LuaImage {
    fileprivate let core: LuaCore
    fileprivate let image: UnsafeMutablePointer<coordlua_ArenaImage> // SAFETY[c-owned-memory]
    fileprivate var strings: LuaStringCache.Saved?

    fileprivate init(core: LuaCore) {
        self.core = core
        image = .allocate(capacity: 1)
        image.initialize(to: coordlua_ArenaImage())
    }

    deinit {
        coordlua_arena_image_free(image)
        image.deinitialize(count: 1)
        image.deallocate()
    }

    /// The heap's bytes the image holds.
    package var bytes: Int { image.pointee.size }
}

extension LuaState {
    /// A state whose heap is one arena of `arenaBytes` bytes of address space (reserved, not taken: the heap
    /// grows into it a megabyte at a time), so that it can be imaged (``checkpoint(into:)``) and restored.
    /// Running out of the arena is "not enough memory", as the memory limit is.
    package convenience init(libraries: LuaLibraries = .all, arenaBytes: Int) throws {
        try self.init(core: LuaCore(arenaBytes: arenaBytes), libraries: libraries)
    }

    /// Whether the heap is in an arena (``init(libraries:arenaBytes:)``).
    package var hasArena: Bool { core.runtime.pointee.arena.base != nil }

    /// An image of the heap now, written into `image` when given (its storage reused), else a new one.
    /// Only between calls, in a state with an arena.
    package func checkpoint(into image: LuaImage? = nil) throws -> LuaImage {
        let core = self.core
        guard !core.isClosed else { throw LuaError(.misuse, "the Lua state is closed") }
        guard hasArena else { throw LuaError(.misuse, "a Lua state without an arena has no image (LuaState(arenaBytes:))") }
        guard core.callDepth == 0 else { throw LuaError(.misuse, "a Lua state is imaged between calls, not while Lua code runs") }
        let target = image ?? LuaImage(core: core)
        guard target.core === core else { throw LuaError(.misuse, "an image belongs to the Lua state it was taken of") }
        core.drainUnrefs()
        guard coordlua_checkpoint(core.runtime, target.image) != 0 else { throw LuaError(.memory, "not enough memory for an image of the Lua state") }
        target.strings = core.strings.save()
        return target
    }

    /// Puts the heap back as `image` holds it (see ``LuaImage`` for what the caller keeps). Only between
    /// calls, with an image of this state.
    package func restore(_ image: LuaImage) throws {
        let core = self.core
        guard !core.isClosed else { throw LuaError(.misuse, "the Lua state is closed") }
        guard image.core === core, let strings = image.strings else { throw LuaError(.misuse, "an image belongs to the Lua state it was taken of") }
        guard core.callDepth == 0 else { throw LuaError(.misuse, "a Lua state is restored between calls, not while Lua code runs") }
        coordlua_restore(core.runtime, image.image)
        core.runtime.pointee.current = core.mainThread
        core.pendingUnrefs.removeAll()
        core.strings.restore(strings)
    }

    /// How many of the heap's 64-byte lines differ from `image`'s: 0 exactly when the heap is the image's.
    package func changedLines(since image: LuaImage) -> Int {
        guard image.core === core, !core.isClosed else { return 0 }
        return coordlua_arena_changed(&core.runtime.pointee.arena, image.image, nil, 0)
    }

}
