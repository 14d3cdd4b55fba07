import CCoordinatorLua
import CCoordinatorLuaGlue

/// Where `require` finds a state's Lua modules: the folders allowed (``LuaState/allowModules(in:)``),
/// whether only those are searched (a sandbox, or a state whose modules a runtime restricted), and the
/// texts that stand for files (``LuaState/sourceOverrides``). A state's core owns one.
final class ModuleSearch {
    /// The folders ``LuaState/allowModules(in:)`` allowed, in order.
    private(set) var directories: [String] = []
    /// Whether `package.searchers` has the searcher for ``directories``.
    private var hasSearcher = false
    /// Texts that stand for files, by path.
    private(set) var overrides: [String: String] = [:]
    /// Whether `require` has the searcher for ``overrides``.
    private var hasOverrideSearcher = false
    /// Whether `require` only loads preloaded modules and Lua files from ``directories``.
    var restricted = false

    /// Makes `require` in `lua` load only preloaded modules and Lua files from ``directories``
    /// (``LuaState/restrictModules()``).
    func restrict(in lua: LuaState) throws {
        guard !restricted else { return }
        let L = try lua.core.thread()
        lua_getglobal(L, "package")
        lua_pushcclosure(L, coordlua_searcher_sandboxed, 0)
        let searcher = lua_gettop(L)
        lua_createtable(L, 2, 0)
        lua_getfield(L, -3, "searchers")
        lua_rawgeti(L, -1, 1) // the preload searcher
        lua_rawseti(L, -3, 1)
        lua_settop(L, -2)
        lua_pushvalue(L, searcher)
        lua_rawseti(L, -2, 2)
        lua_setfield(L, -3, "searchers")
        lua_settop(L, -2)
        for field in ["loadlib", "searchpath"] { lua_pushnil(L); lua_setfield(L, -2, field) }
        lua_pushstring(L, ""); lua_setfield(L, -2, "cpath")
        lua_pushstring(L, ""); lua_setfield(L, -2, "path")
        lua_settop(L, -2)
        restricted = true
    }

    func addDirectory(_ directory: String, in lua: LuaState) throws {
        let package: LuaTable
        do { package = try lua.globals.get("package") } catch {
            throw LuaError(.misuse, "the package library is not open, so modules cannot be found")
        }
        let prefix = directory.isEmpty || directory == "." ? "./" : directory.hasSuffix("/") ? directory : directory + "/"
        let entries = "\(prefix)?.lua;\(prefix)?/init.lua"
        let path: String = try package.get("path")
        if path.split(separator: ";").prefix(2).joined(separator: ";") == entries { return }
        try package.set("path", "\(entries);\(path)")
    }

    func allow(_ directories: [String], in lua: LuaState) throws {
        let L = try lua.core.thread()
        for directory in directories where !self.directories.contains(directory) { self.directories.append(directory) }
        let path = self.directories.flatMap { ["\($0)/?.lua", "\($0)/?/init.lua"] }.joined(separator: ";")
        lua_pushstring(L, path)
        lua_setfield(L, coordlua_registryindex(), "coordlua.modulePath")
        // The folders themselves, for the sandbox's searcher (coordlua_modules.h).
        lua_createtable(L, Int32(clamping: self.directories.count), 0)
        for (i, directory) in self.directories.enumerated() {
            lua_pushstring(L, directory)
            lua_rawseti(L, -2, lua_Integer(i + 1))
        }
        lua_setfield(L, coordlua_registryindex(), "coordlua.moduleFolders")
        guard !restricted, !hasSearcher else { return }
        // package.searchers: preload, then this one, then Lua's own.
        lua_getglobal(L, "package")
        defer { lua_settop(L, -2) }
        guard lua_type(L, -1) == LUA_TTABLE, lua_getfield(L, -1, "searchpath") == LUA_TFUNCTION else {
            lua_settop(L, -2)
            return
        }
        lua_pushcclosure(L, coordlua_searcher_folders, 1)
        guard lua_getfield(L, -2, "searchers") == LUA_TTABLE else { lua_settop(L, -3); return }
        let count = lua_rawlen(L, -1)
        var i = lua_Integer(count)
        while i >= 2 { // shift 2... up by one
            lua_rawgeti(L, -1, i)
            lua_rawseti(L, -2, i + 1)
            i -= 1
        }
        lua_pushvalue(L, -2)
        lua_rawseti(L, -2, 2)
        lua_settop(L, -3)
        hasSearcher = true
    }

    func setOverrides(_ texts: [String: String], in lua: LuaState) {
        overrides = texts
        if !texts.isEmpty, !hasOverrideSearcher { try? installOverrideSearcher(in: lua) }
    }

    /// A searcher before the others: a module whose file has an override loads from that text.
    private func installOverrideSearcher(in lua: LuaState) throws {
        guard let package = try lua.globals.get("package", as: LuaTable?.self),
              let searchers = try package.get("searchers", as: LuaTable?.self) else { return }
        let searcher = lua.function(name: "searcher") { [weak self, weak lua] call in
            guard let self, let lua else { return }
            let name = try call.string(1)
            guard let path = try self.file(for: name, in: lua), let text = self.overrides[path] else {
                return try call.push("\n\tno override for '\(name)'")
            }
            try call.push(lua.load(text, name: "@" + path))
            try call.push(path)
        }
        var i = searchers.count
        while i >= 1 {
            try searchers.rawSet(i + 1, searchers.rawGet(i, as: LuaValue.self))
            i -= 1
        }
        try searchers.rawSet(1, searcher)
        hasOverrideSearcher = true
    }

    func file(for name: String, in lua: LuaState) throws -> String? {
        let relative = String(name.map { $0 == "." ? "/" : $0 })
        for directory in directories {
            for candidate in ["\(directory)/\(relative).lua", "\(directory)/\(relative)/init.lua"] where coordlua_readable(candidate) != 0 {
                return candidate
            }
        }
        guard let package = try lua.globals.get("package", as: LuaTable?.self),
              let search = try package.get("searchpath", as: LuaFunction?.self),
              let path = try package.get("path", as: String?.self) else { return nil }
        return try search.callValues(name, path).first?.stringValue
    }
}
