import CCoordinatorLuaGlue

/// The compiled chunks every Lua state of the process shares.
///
/// A host that makes a new state per session (a bot, a server-driven flow, a test runner) loads the same
/// scripts again and again; parsing them is most of a new state's cost. Each file a state loads
/// (``LuaState/loadFile(_:)``, `require` of a module next to the app) and each chunk loaded with
/// `cached: true` is kept here, compiled, under its name and text; the next state that loads the same text
/// under the same name undumps it instead, about four times faster, with the same line numbers and names in
/// messages and debug information. An edited file has another text, so it compiles again.
///
/// Only chunks this process compiled from text are kept and loaded: scripts still cannot load binary
/// chunks of their own. The cache is thread-safe and bounded (``limit``): a chunk that would pass the limit
/// empties it first.
public enum LuaChunkCache {
    /// What the cache holds and how it served loads.
    public struct Statistics: Sendable, Equatable {
        /// Chunks kept.
        public var chunks: Int
        /// Bytes held: texts (compared whole on every lookup) and compiled chunks.
        public var bytes: Int
        /// Loads served from the cache.
        public var hits: Int
        /// Loads that compiled (and stored what they compiled).
        public var misses: Int
    }

    /// How many chunks `lua` took already compiled from the store.
    package static func sharedLoads(of lua: LuaState) -> Int { Int(lua.core.runtime.pointee.sharedChunkLoads) }

    /// The cache's figures now.
    public static var statistics: Statistics {
        let s = coordlua_chunks_stats()
        return Statistics(chunks: Int(s.chunks), bytes: Int(s.bytes), hits: Int(s.hits), misses: Int(s.misses))
    }

    /// The most bytes the cache holds (64 MiB unless set); 0 turns it off and empties it. A negative value
    /// counts as 0.
    public static var limit: Int {
        get { Int(clamping: coordlua_chunks_stats().limit) }
        set { _ = coordlua_chunks_limit(max(0, newValue)) }
    }

    /// Drops every kept chunk (states that use one keep their functions: a loaded chunk is the state's own).
    public static func removeAll() { coordlua_chunks_clear() }
}
