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
            try core.load(L, bytes: UnsafeRawBufferPointer(buffer), chunkName: chunkName(name), mode: "t", cached: cached) // SAFETY[c-buffer]
        }
        defer { lua_settop(L, -2) }
        return LuaFunction(reference: core.reference(at: -1, in: L))
    }

    /// Compiles a file without running it. Messages name the file as given (`scripts/app.lua:3: ...`).
    /// A path in ``sourceOverrides`` compiles that text instead of the file's. The compiled chunk is shared
    /// with the process's other states through the ``LuaChunkCache`` (keyed by the file's text, so an
    /// edited file compiles again).
    public func loadFile(_ path: String) throws -> LuaFunction {
        if let text = core.modules.overrides[path] { return try load(text, name: "@" + path, cached: true) }
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
        return try program(loadFile(path)).callValues(arguments: arguments)
    }

    /// A chunk as the program runs it: under a C frame where ``chunksRunAsPrograms`` (as `lua` runs its
    /// chunks), else as it is.
    package func program(_ chunk: LuaFunction) throws -> LuaFunction {
        chunksRunAsPrograms ? try chunk.asProgram() : chunk
    }

    /// The folder of a file path (`.` for a bare name).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private func chunkName(_ name: String) -> String {
        name.hasPrefix("=") || name.hasPrefix("@") ? name : "=" + name
    }

    /// Puts `directory/?.lua;directory/?/init.lua` first on `package.path` (once).
    public func addModuleDirectory(_ directory: String) throws { try core.modules.addDirectory(directory, in: self) }

    /// Lets `require` find Lua modules in `directories`. In a sandboxed state or one whose modules are
    /// restricted (by the runtime that owns it): those and the ones allowed before, nowhere else. In any other
    /// state: those first, then where Lua looks (`package.path`, which stays as Lua set it, as scripts
    /// that print or change it expect): a searcher of its own goes before Lua's.
    public func allowModules(in directories: [String]) throws { try core.modules.allow(directories, in: self) }

    /// Texts that stand for files, by path as it is given to ``loadFile(_:)`` and as `require` finds it: the
    /// file is not read, the text is compiled under its name (`@path`), so messages and debug information
    /// are the same. For a host that brings an app back to a point of its past (the REPL's time travel runs
    /// the scripts as they were then), or ships its scripts inside itself.
    public var sourceOverrides: [String: String] {
        get { core.modules.overrides }
        set { core.modules.setOverrides(newValue, in: self) }
    }

    /// The file `require(name)` loads: from the folders ``allowModules(in:)`` allowed, else along
    /// `package.path`; nil when it is neither (or `package` is not open).
    package func moduleFile(_ name: String) throws -> String? { try core.modules.file(for: name, in: self) }
}
