import CCoordinatorLua
import CCoordinatorLuaGlue

/// A 128-bit fingerprint of the data reachable from a list of roots (``init(in:of:views:registry:materializing:excluding:)``):
/// equal for states whose reachable data is the same, tables' key order, reference numbers and addresses
/// aside; different otherwise, but for a hash collision (about one in 2^64 for a pair of states).
package struct LuaFingerprint: Hashable, Sendable {
    /// The two halves.
    package let high: UInt64, low: UInt64

    /// The fingerprint as 32 hexadecimal digits.
    package var hex: String {
        func digits(_ x: UInt64) -> String { let s = String(x, radix: 16); return String(repeating: "0", count: 16 - s.count) + s }
        return digits(high) + digits(low)
    }
}

extension LuaFingerprint {
    /// The fingerprint of everything `lua` reaches from `roots`, walked in order, and from the registry when
    /// `registry` (coordlua_fingerprint.h says what counts and how). `views` maps objects to the values that
    /// stand for them; `lazy` is the `__index` of stores whose fields are made on first read, called to make
    /// them all before such a store is walked; `caches` are objects the registry's references hold that are
    /// no part of a state (tables a host makes once, on first need). Runs no other code (no metamethod, no hook); throws for data
    /// nested too deep to walk.
    ///
    /// With the registry, the walk begins with the stable roots (the standard library, `package`, the basic
    /// types' metatables, the loaded modules, the globals, the coordinator module); `cached` keeps their walk
    /// between calls and takes every root whose objects are all as it left them from the cache (the same
    /// fingerprint, computed in a fraction of the time; coordlua_fingerprint.h says why it is the same).
    /// `randomState` false leaves out the state of Lua's random generator (which differs in every state).
    package init(in lua: LuaState, of roots: [any LuaPushable], views: LuaTable? = nil, registry: Bool,
                 materializing lazy: LuaValue? = nil, excluding caches: [any LuaPushable] = [], cached: Bool = false,
                 randomState: Bool = true) throws {
        let core = lua.core
        core.drainUnrefs() // references Swift let go of are not part of the state
        self = try lua.withStack { stack in
            let L = stack.L
            let top = lua_gettop(L)
            defer { lua_settop(L, top) }
            guard lua_checkstack(L, 10) != 0 else { throw LuaError(.runtime, "stack overflow (nesting too deep)") }
            lua_pushcclosure(L, coordlua_fingerprint, 0)
            lua_createtable(L, Int32(clamping: roots.count), 0)
            for (i, root) in roots.enumerated() {
                try stack.push(root)
                lua_rawseti(L, -2, lua_Integer(i) + 1)
            }
            if let views { try stack.push(views) } else { lua_pushnil(L) }
            lua_pushboolean(L, registry ? 1 : 0)
            // The host's caches and the runtime's own (the string cache's anchors) are no part of any state.
            // So are the tables only an undo entry keeps (``LuaUndoHold``), and the callbacks whose holders
            // left the app (``LuaCallback/isKept``).
            let letGo = core.slotsLetGoOnCommit()
            lua_createtable(L, 0, Int32(clamping: caches.count + letGo.count + 2))
            for slot in letGo {
                coordlua_rawgetref(L, slot)
                lua_pushboolean(L, 1)
                lua_rawset(L, -3)
            }
            for cache in caches {
                try stack.push(cache)
                lua_pushboolean(L, 1)
                lua_rawset(L, -3)
            }
            // The runtime's own caches: the string cache's anchors, and the map that finds the table Lua
            // already has for data coming back from Swift (made when first needed: reading data, as a
            // property does, must not make another state).
            for ref in [core.strings.anchorsRef, core.viewsRef] where ref != LUA_NOREF {
                coordlua_rawgetref(L, ref)
                lua_pushboolean(L, 1)
                lua_rawset(L, -3)
            }
            if let lazy { try stack.push(lazy) } else { lua_pushnil(L) }
            lua_pushboolean(L, cached ? 1 : 0)
            lua_pushboolean(L, randomState ? 0 : 1)
            guard lua_pcallk(L, 7, 2, 0, 0, nil) == LUA_OK else {
                throw LuaError(.runtime, (try? stack.read(String.self, at: -1)) ?? "the state could not be fingerprinted")
            }
            return LuaFingerprint(high: UInt64(bitPattern: lua_tointegerx(L, -2, nil)), low: UInt64(bitPattern: lua_tointegerx(L, -1, nil)))
        }
    }

    /// Of `functions` (a list), one for each distinct list of upvalue cells, in order: fingerprinting those instead
    /// of all of them covers whatever all of them reach through their upvalues, when their code is known
    /// not to change (functions declared once, such as a test file's tests).
    package static func upvalueSharers(of functions: LuaTable, in lua: LuaState) throws -> LuaTable {
        try lua.withStack { stack in
            let L = stack.L
            let top = lua_gettop(L)
            defer { lua_settop(L, top) }
            guard lua_checkstack(L, 4) != 0 else { throw LuaError(.runtime, "stack overflow (nesting too deep)") }
            lua_pushcclosure(L, coordlua_upvalue_sharers, 0)
            try stack.push(functions)
            guard lua_pcallk(L, 1, 1, 0, 0, nil) == LUA_OK else {
                throw LuaError(.runtime, (try? stack.read(String.self, at: -1)) ?? "the functions' upvalues could not be read")
            }
            return try stack.read(LuaTable.self, at: -1)
        }
    }
}
