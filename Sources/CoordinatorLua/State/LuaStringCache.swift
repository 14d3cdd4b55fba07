import CCoordinatorLua
import CCoordinatorLuaGlue

/// Swift strings for the short Lua strings Swift reads again and again (field names, screen and output
/// names), found by the address of the Lua string's bytes instead of being decoded on every read.
///
/// An address stands for its content only while the Lua string lives, so every cached string is anchored
/// in a registry table (`anchorsRef`) for as long as the cache keeps it: a live string's bytes never move,
/// and no other string can take their address. Only short strings are cached (Lua interns them, so equal
/// short strings share one address); at most `size` entries, placed by address with a short probe, and
/// a string finding no free place is decoded as usual. The anchors are the cache's whole memory cost:
/// under `size` strings of at most 40 bytes.
///
/// A value of plain pointers: reading through it changes no stored property of its owner (so a read
/// neither retains the owner nor claims exclusive access to it).
struct LuaStringCache {
    static let size = 256
    static let longest = 40
    private static let probes = 4

    /// An address and its string side by side: a hit reads one cache line.
    private struct Entry {
        var address: UnsafeRawPointer? // SAFETY[identity-address]
        var string: String
        /// When it was cached: the count of insertions then (``Saved``).
        var stamp = 0
    }

    private let entries: UnsafeMutablePointer<Entry> // SAFETY[c-owned-memory]
    /// The registry slot of the table that anchors the cached Lua strings (made on the first insert), and
    /// how many strings were cached so far.
    private struct Bookkeeping {
        var anchorsRef = LUA_NOREF
        var inserted = 0
    }
    private let book: UnsafeMutablePointer<Bookkeeping> // SAFETY[c-owned-memory]

    /// Registry slot of the table that anchors the cached Lua strings (made on the first insert).
    var anchorsRef: Int32 { book.pointee.anchorsRef }

    init() {
        entries = .allocate(capacity: Self.size)
        entries.initialize(repeating: Entry(address: nil, string: ""), count: Self.size)
        book = .allocate(capacity: 1)
        book.initialize(to: Bookkeeping())
    }

    /// What an image of the heap keeps of the cache (``LuaImage``): how many strings were cached then, and
    /// the anchors' slot. An entry is only ever added to a free place, never replaced, so the entries of
    /// then are the ones cached by then; their strings are anchored in the heap the image holds.
    struct Saved {
        fileprivate let inserted: Int
        fileprivate let anchorsRef: Int32
    }

    func save() -> Saved { Saved(inserted: book.pointee.inserted, anchorsRef: book.pointee.anchorsRef) }

    /// The cache as it was when `saved` was taken, with the heap of the same image back: the entries cached
    /// since (whose strings that heap does not hold) are dropped.
    func restore(_ saved: Saved) {
        for i in 0..<Self.size where entries[i].stamp > saved.inserted { entries[i] = Entry(address: nil, string: "") }
        book.pointee = Bookkeeping(anchorsRef: saved.anchorsRef, inserted: saved.inserted)
    }

    /// Frees the storage (the anchors go with the state).
    func deallocate() {
        entries.deinitialize(count: Self.size)
        entries.deallocate()
        book.deallocate()
    }

    /// The string for the Lua string at `index` whose bytes are `bytes` (`length` of them, at most
    /// `longest`): the cached one, or `decode()`'s, cached when there is room.
    @inline(__always)
    func string(at index: Int32, in L: OpaquePointer, bytes: UnsafeRawPointer, decode: () -> String) -> String { // SAFETY[c-buffer]
        var slot = Int(truncatingIfNeeded: UInt(bitPattern: bytes) >> 4) & (Self.size - 1)
        for _ in 0..<Self.probes {
            guard let address = entries[slot].address else { return insert(at: index, in: L, bytes: bytes, slot: slot, decode()) }
            if address == bytes { return entries[slot].string }
            slot = (slot + 1) & (Self.size - 1)
        }
        return decode()
    }

    private func insert(at index: Int32, in L: OpaquePointer, bytes: UnsafeRawPointer, slot: Int, _ string: String) -> String { // SAFETY[c-buffer]
        guard lua_checkstack(L, 3) != 0 else { return string }
        let value = lua_absindex(L, index)
        if book.pointee.anchorsRef == LUA_NOREF {
            lua_createtable(L, 0, 0)
            book.pointee.anchorsRef = coordlua_ref(L)
        }
        coordlua_rawgetref(L, book.pointee.anchorsRef)
        lua_pushvalue(L, value)
        lua_pushboolean(L, 1)
        lua_rawset(L, -3)
        lua_settop(L, -2)
        book.pointee.inserted += 1
        entries[slot] = Entry(address: bytes, string: string, stamp: book.pointee.inserted)
        return string
    }
}
