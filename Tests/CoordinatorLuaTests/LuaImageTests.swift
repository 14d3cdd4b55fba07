import Foundation
import Testing
import TestSupport
@testable import CoordinatorLua

/// A state whose heap is one arena (`LuaImage.state(arenaBytes:)`): an image taken between calls and put back is
/// the heap byte for byte, whatever the code did in between; the same code run again from it makes the same
/// state; the memory limit's accounting and the string cache come back with it.
@Suite struct LuaImageTests {
    /// Code that writes every kind of value into every place it can reach: globals, the registry through a
    /// module, upvalues, coroutines (one suspended, one dead), metatables, long and short strings, a table
    /// grown past its array part, a closure's upvalue shared with another, a collection on the way.
    static let mutate = """
        counter = (counter or 0) + 1
        local shared = { n = counter }
        package.loaded.extra = { shared = shared, text = ("x"):rep(1000) .. counter }
        local function bump() shared.n = shared.n + 1 return shared.n end
        held = { bump = bump, co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b end) }
        coroutine.resume(held.co, counter)
        local done = coroutine.create(function() return 1 end)
        coroutine.resume(done)
        held.done = done
        setmetatable(held, { __index = function(_, k) return "missing " .. k end })
        for i = 1, 200 do held[i] = { i, tostring(i), i * 0.5 } end
        string.format("%d %s", counter, "interned")
        collectgarbage("step", 10)
        return bump()
        """

    func state(limit: Int? = nil) throws -> LuaState {
        let lua = try LuaImage.state(arenaBytes: 64 << 20)
        try lua.run("base = { 1, 2, 3, name = 'base' } local t = {} for i = 1, 100 do t[i] = i end keep = t")
        if let limit { lua.memoryLimit = limit }
        return lua
    }

    @Test func aRestoreIsTheImageByteForByte() throws {
        let lua = try state()
        let before = try LuaFingerprint(in: lua, of: [lua.globals], registry: true)
        let image = try LuaImage(of: lua)
        #expect(image.changedLines == 0)
        for round in 1...50 {
            #expect(try lua.evaluate(Self.mutate, as: Int.self) == 2) // the same every time: from the image
            #expect(image.changedLines > 0)
            try image.restore()
            #expect(image.changedLines == 0, "round \(round)")
        }
        #expect(try LuaFingerprint(in: lua, of: [lua.globals], registry: true) == before)
        #expect(try lua.run("return counter, held, package.loaded.extra") == [.nil, .nil, .nil])
        // A full collection of the restored heap, then more work: the heap is sound.
        try lua.run("collectgarbage() collectgarbage()")
        #expect(try lua.evaluate("return #keep + base[3]", as: Int.self) == 103)
    }

    /// The same code from the same image makes the same state: a branch is the state a replay would make.
    /// (Not always the same bytes: a Lua stack's slots above its top keep what calls from Swift left there,
    /// which no code reads.)
    @Test func theSameStepFromTheSameImageMakesTheSameState() throws {
        let lua = try state()
        let start = try LuaImage(of: lua)
        _ = try lua.evaluate(Self.mutate, as: Int.self)
        let after = try LuaFingerprint(in: lua, of: [lua.globals], registry: true)
        for _ in 1...20 {
            try start.restore()
            _ = try lua.evaluate(Self.mutate, as: Int.self)
            #expect(try LuaFingerprint(in: lua, of: [lua.globals], registry: true) == after)
        }
    }

    /// Swift's cache of short Lua strings comes back with the image: a string cached in one branch is not
    /// served in the next for another string made at the same address.
    @Test func stringsReadInABranchAreNotServedInTheNext() throws {
        let lua = try state()
        let make = try lua.load("local prefix = ... local t = {} for i = 1, 50 do t[i] = prefix .. i end return t", name: "make")
        let image = try LuaImage(of: lua) // after `make`: a value Swift holds across restores is made before
        for prefix in ["alpha", "beta", "gamma", "alpha"] {
            let strings = try make.call(prefix, as: [String].self)
            #expect(strings == (1...50).map { prefix + String($0) })
            try image.restore()
        }
    }

    /// An image leaves out what the heap holds free: a large block freed before the image is not copied, and
    /// a branch that allocates into it (long strings, a grown table) is undone exactly by the restore, the
    /// free block reused the same way in the next branch.
    @Test func anImageLeavesOutTheHeapsLargeFreeBlocks() throws {
        let lua = try state()
        try lua.run("local t = {} for i = 1, 64 do t[i] = ('z'):rep(4000) .. i end t = nil collectgarbage() collectgarbage()")
        let image = try LuaImage(of: lua)
        #expect(image.keptBytes + 200_000 < image.bytes, "kept \(image.keptBytes) of \(image.bytes)")
        let before = try LuaFingerprint(in: lua, of: [lua.globals], registry: true)
        for round in 1...20 {
            let made = try lua.evaluate("""
                grown = {} for i = 1, 40 do grown[i] = ('w'):rep(3000) .. i end
                local big = {} for i = 1, 700 do big[i] = i end grown.big = big
                return #grown[40] + #big
                """, as: Int.self)
            #expect(made == 3002 + 700)
            #expect(image.changedLines > 0)
            try image.restore()
            #expect(image.changedLines == 0, "round \(round)")
            #expect(try LuaFingerprint(in: lua, of: [lua.globals], registry: true) == before)
        }
        try lua.run("collectgarbage() collectgarbage()")
        #expect(try lua.evaluate("return grown == nil and #keep + base[3]", as: Int.self) == 103)
    }

    /// Branching back and forth keeps the heap's size: what a branch allocated is gone with it.
    @Test func restoresDoNotGrowTheHeap() throws {
        let lua = try state()
        let image = try LuaImage(of: lua)
        for _ in 1...1_000 {
            _ = try lua.evaluate(Self.mutate, as: Int.self)
            try image.restore()
        }
        #expect(try LuaImage(of: lua).bytes == image.bytes)
    }

    /// The memory limit counts the restored heap: what a branch allocated is no longer counted after it.
    @Test func theMemoryLimitsAccountingComesBackWithTheImage() throws {
        let lua = try state(limit: 16 << 20)
        let image = try LuaImage(of: lua)
        let used = lua.memoryUsed
        try lua.run("big = ('y'):rep(6 << 20)")
        #expect(lua.memoryUsed > used + (5 << 20))
        #expect(throws: LuaError.self) { try lua.run("again = ('z'):rep(6 << 20)") } // over the limit, with big held
        try image.restore()
        #expect(lua.memoryUsed == used)
        try lua.run("again = ('z'):rep(6 << 20)") // room again
    }

    /// An arena that is full is "not enough memory", as a limit is, and the state goes on.
    @Test func aFullArenaIsNotEnoughMemory() throws {
        let lua = try LuaImage.state(arenaBytes: 4 << 20)
        let error = #expect(throws: LuaError.self) { try lua.run("x = ('a'):rep(16 << 20)") }
        #expect(error?.message.contains("not enough memory") == true, "\(error?.message ?? "")")
        #expect(try lua.evaluate("return 1 + 1", as: Int.self) == 2)
    }

    /// Images are taken and put back between calls only, of a state with an arena.
    @Test func imagesAreTakenAndPutBackOnlyBetweenCalls() throws {
        let lua = try state()
        let image = try LuaImage(of: lua)
        let inside = lua.function(name: "inside") { (_: Int) -> String in
            do { try image.restore(); return "restored" } catch { return "\(error)" }
        }
        try lua.globals.set("inside", inside)
        #expect(try lua.evaluate("return inside(1)", as: String.self).contains("between calls"))
        #expect(throws: LuaError.self) { _ = try LuaImage(of: LuaState()) } // a pooled heap has no image
    }

    /// A reference Swift takes after the image is dead once the heap goes back: its slot is free in the
    /// restored registry, so using it fails and letting go of it gives nothing back twice (the registry's
    /// free list stays the image's: the references taken next are all distinct and right).
    @Test func aReferenceTakenAfterTheImageIsDeadAfterARestore() throws {
        let lua = try state()
        let image = try LuaImage(of: lua)
        var late: LuaTable? = try lua.evaluate("return { 'late' }", as: LuaTable.self)
        try image.restore()
        #expect(throws: LuaError.self) { try late?.get(1, as: String.self) }
        late = nil
        let fresh = try (1...20).map { i in try lua.evaluate("return { \(i) }", as: LuaTable.self) }
        for (i, table) in fresh.enumerated() { #expect(try table.get(1, as: Int.self) == i + 1) }
    }

    /// A reference taken before the image and let go of in a branch is let go of again after the restore
    /// (the restored registry holds its slot): what only it held is collected.
    @Test func aReferenceLetGoOfInABranchIsReleasedAfterTheRestore() throws {
        let lua = try state()
        var early: LuaTable? = try lua.evaluate("probe = setmetatable({}, { __mode = 'v' }) probe[1] = {} return probe[1]", as: LuaTable.self)
        #expect(early != nil)
        let image = try LuaImage(of: lua)
        early = nil
        try lua.run("collectgarbage()") // the release is taken at this call
        try image.restore()
        lua.collectGarbage()
        #expect(try lua.evaluate("return probe[1] == nil", as: Bool.self))
    }

    /// A Swift object held by a box made after the image is released by the restore (the box is gone); one
    /// whose box a collection took in a branch keeps its retain (the box is back) and is released once no
    /// image is kept and the box is collected for good.
    @Test func swiftObjectsHeldByBoxesFollowTheRestoredHeap() throws {
        final class Probe {}
        let lua = try state()
        weak var early: Probe?, late: Probe?
        do {
            let probe = Probe()
            early = probe
            try lua.globals.set("early", lua.function { _ in _ = probe })
        }
        var image: LuaImage? = try LuaImage(of: lua)
        do {
            let probe = Probe()
            late = probe
            try lua.globals.set("late", lua.function { _ in _ = probe })
        }
        try lua.run("early = nil late = nil")
        lua.collectGarbage()
        #expect(early != nil) // its box may come back: the release waits
        #expect(late != nil)
        try image?.restore()
        #expect(late == nil) // its box is gone with the restore
        #expect(early != nil)
        try lua.run("early()") // the box is back, its object alive
        try lua.run("early = nil")
        lua.collectGarbage()
        #expect(early != nil) // collected while the image is kept: deferred again
        image = nil
        #expect(early == nil) // no image kept: the deferred release is done
    }

    /// A restore discards the images taken after the one restored: they cannot be restored.
    @Test func aRestoreDiscardsTheImagesTakenAfterIt() throws {
        let lua = try state()
        let first = try LuaImage(of: lua)
        try lua.run("step = 1")
        let second = try LuaImage(of: lua)
        try lua.run("step = 2")
        try second.restore()
        #expect(try lua.evaluate("return step", as: Int.self) == 1)
        try first.restore()
        #expect(throws: LuaError.self) { try second.restore() }
        #expect(try lua.evaluate("return step", as: Int?.self) == nil)
    }

    /// How many descriptors this process has open on files in `folder` (other tests run beside).
    static func openDescriptors(in folder: TemporaryDirectory) -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { fd in
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) ?? "").hasPrefix(folder.path + "/")
        }.count
    }

    /// A file the scripts opened before an image and close in a branch is open again after the restore (its
    /// stream was never closed: the close waits until no image is kept), and one they open in the branch is
    /// closed by the restore: no handle comes back with its stream freed, and no descriptor is left behind.
    @Test func filesClosedOrOpenedInABranchFollowTheRestoredHeap() throws {
        let folder = try TemporaryDirectory()
        let lua = try state()
        try lua.globals.set("folder", folder.path)
        try lua.run("log = io.open(folder .. '/log.txt', 'w') log:write('before ')")
        let open = Self.openDescriptors(in: folder)
        var image: LuaImage? = try LuaImage(of: lua)
        try lua.run("log:write('in the branch ') log:close() other = io.open(folder .. '/other.txt', 'w') other:write('x')")
        #expect(try lua.evaluate("return io.type(log)", as: String.self) == "closed file")
        try image?.restore()
        #expect(Self.openDescriptors(in: folder) == open) // the stream opened in the branch is closed
        #expect(try lua.evaluate("return io.type(log)", as: String.self) == "file")
        try lua.run("log:write('after') log:flush()")
        try lua.run("log:close()")
        #expect(Self.openDescriptors(in: folder) == open) // closed while the image is kept: not yet
        image = nil
        #expect(Self.openDescriptors(in: folder) == open - 1) // no image kept: closed now
        #expect(try String(contentsOfFile: folder.path + "/log.txt", encoding: .utf8) == "before in the branch after")
    }

    /// A file handle the collector finalizes while an image is kept closes its stream only once none is (the
    /// restore may bring the handle back); the emergency collection runs no finalizer at all.
    @Test func aFileFinalizedWhileAnImageIsKeptClosesOnceNoneIs() throws {
        let folder = try TemporaryDirectory()
        let lua = try state()
        try lua.globals.set("folder", folder.path)
        try lua.run("kept = io.open(folder .. '/kept.txt', 'w')")
        let open = Self.openDescriptors(in: folder)
        var image: LuaImage? = try LuaImage(of: lua)
        try lua.run("kept = nil")
        try lua.branchCollections.withoutFinalizers()
        #expect(Self.openDescriptors(in: folder) == open) // unreachable, not finalized
        try lua.run("collectgarbage()")
        #expect(Self.openDescriptors(in: folder) == open) // finalized: the close waits
        try image?.restore()
        try lua.run("kept:write('still open')")
        try lua.run("kept = nil collectgarbage()")
        image = nil
        #expect(Self.openDescriptors(in: folder) == open - 1)
        #expect(try String(contentsOfFile: folder.path + "/kept.txt", encoding: .utf8) == "still open")
    }
}
