import CCoordinatorLua
import CCoordinatorLuaGlue

/// Lua's standard libraries as this bridge opens them: binary chunks loaded only where the debug library
/// is open (elsewhere `load`, `loadfile`, `dofile` and `require` take text only), coroutines followed (an
/// interrupt or an instruction budget reaches code inside them), and pattern matching counted (a limit
/// stops a match that backtracks).
enum StandardLibraries {
    /// Opens `libraries` in `lua`, each as this bridge needs it.
    static func open(_ libraries: LuaLibraries, in lua: LuaState) throws {
        let L = try lua.core.thread()
        let table: [(LuaLibraries, String, lua_CFunction)] = [
            (.base, "_G", luaopen_base), (.package, "package", luaopen_package),
            (.coroutine, "coroutine", luaopen_coroutine), (.table, "table", luaopen_table),
            (.io, "io", luaopen_io), (.os, "os", luaopen_os), (.string, "string", luaopen_string),
            (.math, "math", luaopen_math), (.utf8, "utf8", luaopen_utf8), (.debug, "debug", luaopen_debug),
        ]
        for (option, name, open) in table where libraries.contains(option) {
            coordlua_requiref(L, name, open)
        }
        if libraries.contains(.coroutine) { try followCoroutines(in: lua) }
        if libraries.contains(.string) { coordlua_install_patterns(L) }
        if libraries.contains(.os) { stopCommands(in: L) }
        // With the debug library open, the scripts can break any rule already: binary chunks load, as in
        // lua.c. Without it (a sandbox, `.safe`), they never do.
        let binary = libraries.contains(.debug)
        lua.core.runtime.pointee.binaryChunks = binary ? 1 : 0
        if libraries.contains(.base) {
            if !binary { try loadTextOnly(filesToo: libraries.contains(.io), in: lua) }
            try guardMessageHandlers(in: lua)
        }
        if libraries.contains(.package) { try requireTextOnly(in: lua) }
        if libraries.contains(.io), LuaImage.canImage(lua) { closeStreamsThroughTheLedger(in: L) }
    }

    /// In a state whose heap is imaged, the streams the io library opens close through the box ledger
    /// (coordlua_io_opening): a restore brings back no handle whose stream was closed since, and closes
    /// the streams opened since.
    private static func closeStreamsThroughTheLedger(in L: OpaquePointer) {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard lua_getglobal(L, "io") == LUA_TTABLE else { return }
        for (name, pipe) in [("open", false), ("popen", true), ("tmpfile", false), ("lines", false), ("input", false), ("output", false)] {
            lua_getfield(L, -1, name)
            guard lua_type(L, -1) == LUA_TFUNCTION else { lua_settop(L, -2); continue }
            lua_pushboolean(L, pipe ? 1 : 0)
            lua_pushcclosure(L, coordlua_io_opening, 2)
            lua_setfield(L, -2, name)
        }
    }

    /// Where the debug library is not open, binary chunks are never loaded: a crafted one crashes Lua's VM
    /// (its bytecode is not verified). `load` and (with file access) `loadfile` and `dofile` take text only,
    /// in C, whatever the script changes (`string.gsub` included); without io, `loadfile` and `dofile` are
    /// gone.
    private static func loadTextOnly(filesToo: Bool, in lua: LuaState) throws {
        let L = try lua.core.thread()
        lua_getglobal(L, "load")
        lua_pushcclosure(L, coordlua_load_text, 1)
        lua_setglobal(L, "load")
        if filesToo {
            lua_getglobal(L, "loadfile")
            lua_pushcclosure(L, coordlua_loadfile_text, 1)
            lua_setglobal(L, "loadfile")
            lua_pushcclosure(L, coordlua_dofile_text, 0)
            lua_setglobal(L, "dofile")
        } else {
            lua_pushnil(L); lua_setglobal(L, "loadfile")
            lua_pushnil(L); lua_setglobal(L, "dofile")
        }
    }

    /// `xpcall`'s Lua message handlers run only while no limit stops the code: Lua calls the handler of an
    /// error a limit raised from inside the hook, with hooks off, where a handler that loops could not be
    /// stopped (`xpcall(error, function() while true do end end)` under a time limit). The guard tail-calls
    /// the handler, so `debug.traceback(msg, 2)` inside it sees the levels it would see without it.
    private static func guardMessageHandlers(in lua: LuaState) throws {
        let guardFactory = try lua.load(
            """
            local stopping = ...
            return function(handler)
              return function(e) if stopping() then return e end return handler(e) end
            end
            """, name: "=[xpcall]", cached: true)
        let L = try lua.core.thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        try LuaStack(L, lua.core).push(guardFactory)
        lua_pushcclosure(L, coordlua_stopping, 0)
        guard lua_pcallk(L, 1, 1, 0, 0, nil) == LUA_OK else { throw LuaError(.misuse, "the message handlers' guard did not load") }
        lua_getglobal(L, "xpcall")
        guard let library = lua_tocfunction(L, -1) else { throw LuaError(.misuse, "xpcall is not the base library's") }
        lua_settop(L, -2)
        lua_pushcclosure(L, library, 0)
        lua_pushcclosure(L, coordlua_xpcall, 2)
        lua_setglobal(L, "xpcall")
    }

    /// `os.execute` under a time limit runs its command where the limit can stop it (a process group of
    /// its own, killed when the limit passes).
    private static func stopCommands(in L: OpaquePointer) {
        guard lua_getglobal(L, "os") == LUA_TTABLE else { lua_settop(L, -2); return }
        lua_getfield(L, -1, "execute")
        lua_pushcclosure(L, coordlua_os_execute, 1)
        lua_setfield(L, -2, "execute")
        lua_settop(L, -2)
    }

    /// `require` finds Lua modules as text only (its file searcher replaced by one that loads with mode "t").
    private static func requireTextOnly(in lua: LuaState) throws {
        let L = try lua.core.thread()
        lua_getglobal(L, "package")
        defer { lua_settop(L, -2) }
        guard lua_type(L, -1) == LUA_TTABLE, lua_getfield(L, -1, "searchers") == LUA_TTABLE else { return }
        lua_pushvalue(L, -2)
        lua_pushcclosure(L, coordlua_searcher_text, 1)
        lua_rawseti(L, -2, 2)
        lua_settop(L, -2)
    }

    /// Makes `coroutine.resume` and `coroutine.wrap` tell the runtime which coroutine runs, so that an
    /// interrupt (Ctrl-C, a timeout) reaches code inside a coroutine and an instruction budget counts it:
    /// the library's own functions in C with that one addition.
    private static func followCoroutines(in lua: LuaState) throws {
        let L = try lua.core.thread()
        coordlua_follow_coroutines(L)
    }
}
