import CCoordinatorLua
import CCoordinatorLuaGlue

/// Chunks and modules: compiling Lua text (strings and files, text only), running it, the main script of an
/// application, and where `require` finds the modules next to it.
extension LuaState {
    /// Compiles a chunk without running it. `name` appears in messages (`name:line: ...`). A name in
    /// brackets (`"[mylib]"`) marks library code: errors that Swift callbacks raise are located at the
    /// first caller outside such chunks, the way `[C]` frames are passed over.
    ///
    /// With `cached`, the compiled chunk is kept in the process's ``LuaChunkCache`` and a later load of the
    /// same text under the same name, in this state or any other, takes it from there instead of parsing
    /// again: for code every new state loads (a library's Lua half). Files are always cached.
    public func load(_ code: String, name: String = "chunk", cached: Bool = false) throws -> LuaFunction {
        let L = try core.thread()
        var code = code
        try code.withUTF8 { buffer in
            try core.load(L, bytes: UnsafeRawBufferPointer(buffer), chunkName: chunkName(name), mode: "t", cached: cached)
        }
        defer { lua_settop(L, -2) }
        return LuaFunction(reference: core.reference(at: -1, in: L))
    }

    /// Compiles a file without running it. Messages name the file as given (`scripts/app.lua:3: ...`).
    /// A path in ``sourceOverrides`` compiles that text instead of the file's. The compiled chunk is shared
    /// with the process's other states through the ``LuaChunkCache`` (keyed by the file's text, so an
    /// edited file compiles again).
    public func loadFile(_ path: String) throws -> LuaFunction {
        if let text = core.sourceOverrides[path] { return try load(text, name: "@" + path, cached: true) }
        let L = try core.thread()
        core.drainUnrefs()
        let status = coordlua_loadfile_shared(L, path)
        if status != LUA_OK {
            let error = core.popError(L, status: status)
            // Lua names the file in syntax errors and unreadable files, not for a binary chunk refused.
            if error.location == nil && !error.message.hasPrefix(path) && !error.message.contains(path) {
                throw LuaError(error.kind, "\(path): \(error.message)", traceback: error.traceback)
            }
            throw error
        }
        defer { lua_settop(L, -2) }
        return LuaFunction(reference: core.reference(at: -1, in: L))
    }

    /// Runs a chunk and returns its results.
    @discardableResult
    public func run(_ code: String, name: String = "chunk") throws -> [LuaValue] {
        try load(code, name: name).callValues()
    }

    /// Runs a chunk and converts its first result.
    public func evaluate<R: LuaReadable>(_ code: String, name: String = "chunk", as type: R.Type = R.self) throws -> R {
        try load(code, name: name).call(as: R.self)
    }

    /// Runs a file and returns its results.
    @discardableResult
    public func runFile(_ path: String) throws -> [LuaValue] {
        try loadFile(path).callValues()
    }

    /// Runs an application's main script: `require "flows"` finds `flows.lua` (or `flows/init.lua`) next to
    /// it first, wherever the process was started (``allowModules(in:)``; `package.path` stays as Lua set it).
    /// `arguments` are the chunk's `...` (a command line's script arguments).
    @discardableResult
    public func runMainScript(_ path: String, arguments: [LuaValue] = []) throws -> [LuaValue] {
        try allowModules(in: [Self.directory(of: path)])
        return try loadFile(path).callValues(arguments: arguments)
    }

    /// Puts `directory/?.lua;directory/?/init.lua` first on `package.path` (once).
    public func addModuleDirectory(_ directory: String) throws {
        let package: LuaTable
        do { package = try globals.get("package") } catch {
            throw LuaError(.misuse, "the package library is not open, so modules cannot be found")
        }
        let prefix = directory.isEmpty || directory == "." ? "./" : directory.hasSuffix("/") ? directory : directory + "/"
        let entries = "\(prefix)?.lua;\(prefix)?/init.lua"
        let path: String = try package.get("path")
        if path.split(separator: ";").prefix(2).joined(separator: ";") == entries { return }
        try package.set("path", "\(entries);\(path)")
    }

    /// The folder of a file path (`.` for a bare name).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private func chunkName(_ name: String) -> String {
        name.hasPrefix("=") || name.hasPrefix("@") ? name : "=" + name
    }

    /// Lets `require` find Lua modules in `directories`. In a sandboxed state or one whose modules are
    /// restricted (by the runtime that owns it): those and the ones allowed before, nowhere else. In any other
    /// state: those first, then where Lua looks (`package.path`, which stays as Lua set it, as scripts
    /// that print or change it expect): a searcher of its own goes before Lua's.
    public func allowModules(in directories: [String]) throws {
        let L = try core.thread()
        for directory in directories where !core.moduleDirectories.contains(directory) { core.moduleDirectories.append(directory) }
        let path = core.moduleDirectories.flatMap { ["\($0)/?.lua", "\($0)/?/init.lua"] }.joined(separator: ";")
        lua_pushstring(L, path)
        lua_setfield(L, coordlua_registryindex(), "coordlua.modulePath")
        guard !core.modulesRestricted, !core.hasModuleSearcher else { return }
        // package.searchers: preload, then this one, then Lua's own.
        lua_getglobal(L, "package")
        defer { lua_settop(L, -2) }
        guard lua_type(L, -1) == LUA_TTABLE, lua_getfield(L, -1, "searchpath") == LUA_TFUNCTION else {
            lua_settop(L, -2)
            return
        }
        lua_pushcclosure(L, coordlua_searcher_sandboxed, 1)
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
        core.hasModuleSearcher = true
    }

    /// Texts that stand for files, by path as it is given to ``loadFile(_:)`` and as `require` finds it: the
    /// file is not read, the text is compiled under its name (`@path`), so messages and debug information
    /// are the same. For a host that brings an app back to a point of its past (the REPL's time travel runs
    /// the scripts as they were then), or ships its scripts inside itself.
    public var sourceOverrides: [String: String] {
        get { core.sourceOverrides }
        set {
            core.sourceOverrides = newValue
            if !newValue.isEmpty, !core.hasOverrideSearcher { try? installOverrideSearcher() }
        }
    }

    /// A searcher before the others: a module whose file has an override loads from that text.
    private func installOverrideSearcher() throws {
        guard let package = try globals.get("package", as: LuaTable?.self),
              let searchers = try package.get("searchers", as: LuaTable?.self) else { return }
        let searcher = function(name: "searcher") { [weak self] call in
            guard let self else { return }
            let name = try call.string(1)
            guard let path = try self.moduleFile(name), let text = self.core.sourceOverrides[path] else {
                return try call.push("\n\tno override for '\(name)'")
            }
            try call.push(self.load(text, name: "@" + path))
            try call.push(path)
        }
        var i = searchers.count
        while i >= 1 {
            try searchers.rawSet(i + 1, searchers.rawGet(i, as: LuaValue.self))
            i -= 1
        }
        try searchers.rawSet(1, searcher)
        core.hasOverrideSearcher = true
    }

    /// The file `require(name)` loads: from the folders ``allowModules(in:)`` allowed, else along
    /// `package.path`; nil when it is neither (or `package` is not open).
    package func moduleFile(_ name: String) throws -> String? {
        let relative = String(name.map { $0 == "." ? "/" : $0 })
        for directory in core.moduleDirectories {
            for candidate in ["\(directory)/\(relative).lua", "\(directory)/\(relative)/init.lua"] where coordlua_readable(candidate) != 0 {
                return candidate
            }
        }
        guard let package = try globals.get("package", as: LuaTable?.self),
              let search = try package.get("searchpath", as: LuaFunction?.self),
              let path = try package.get("path", as: String?.self) else { return nil }
        return try search.callValues(name, path).first?.stringValue
    }
}
