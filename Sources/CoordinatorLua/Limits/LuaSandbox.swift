import CCoordinatorLua
import CCoordinatorLuaGlue

/// A state for scripts you do not trust (``LuaState/init(sandbox:)``): what they can and cannot reach.
///
/// Open: base (text-only `load`; no `dofile`, `loadfile`), `require` of Lua modules from the folders the
/// host allows (``LuaState/allowModules(in:)``), coroutine, table, string, math, utf8. Gone: `io`, `os`,
/// `debug`, `package.loadlib`, C modules, `package.searchpath`, binary chunks. Locked: the string
/// metatable (`getmetatable("")` gives `"string"`), the metatables of Swift objects. Refused: metatables
/// with `__gc` (finalizers run with hooks off, so an endless one could not be stopped by an instruction
/// budget, a timeout or Ctrl-C), and `collectgarbage` other than `"collect"`, `"count"`, `"step"` and
/// `"isrunning"` (a script cannot stop the collector or tune it to grow without bound).
public struct LuaSandbox: Sendable {
    /// The libraries a sandbox opens.
    public static let libraries: LuaLibraries = [.base, .package, .coroutine, .table, .string, .math, .utf8]

    /// The sandbox: the only one there is (a value, so that `LuaState(sandbox: LuaSandbox())` reads as what it makes).
    public init() {}
}

extension LuaState {
    /// Creates a state for untrusted scripts (see ``LuaSandbox``).
    public convenience init(sandbox: LuaSandbox) throws {
        try self.init(sandbox: sandbox, arenaBytes: nil)
    }

    /// A state for untrusted scripts whose heap is one arena of `arenaBytes` bytes of address space when
    /// given, so that it can be imaged (``LuaImage``).
    package convenience init(sandbox: LuaSandbox, arenaBytes: Int?) throws {
        try self.init(core: LuaCore(arenaBytes: arenaBytes), libraries: LuaSandbox.libraries)
        try restrict()
        isSandboxed = true
    }

    private func restrict() throws {
        try restrictModules()
        try load(#"getmetatable("").__metatable = "string""#, name: "=[sandbox]", cached: true).call()
        let L = try core.thread()
        lua_getglobal(L, "collectgarbage")
        lua_pushcclosure(L, coordlua_collectgarbage_sandboxed, 1)
        lua_setglobal(L, "collectgarbage")
        try refuseFinalizers()
    }

    /// Makes `require` load only preloaded modules and Lua modules from the folders ``allowModules(in:)``
    /// allows, as text: no C modules, no `package.loadlib` or `package.searchpath`, whatever a script puts in
    /// `package.path`; only regular files inside those folders, never through a symbolic link as the file
    /// itself, never a FIFO or a device, read under the line's limits (`coordlua_modules.h`). What a sandbox does to
    /// `package`; for a host that needs `require` (a library that
    /// preloads its module) in a state opened without `package` (``LuaLibraries/safe``).
    package func restrictModules() throws { try core.modules.restrict(in: self) }

    /// Makes `setmetatable` refuse metatables with `__gc`: Lua runs finalizers with hooks off, so an
    /// instruction budget, a time limit or Ctrl-C could not stop one that never ends. A sandbox does this,
    /// and so should any host that sets limits on scripts it does not trust.
    public func refuseFinalizers() throws {
        guard !core.refusesFinalizers else { return }
        let L = try core.thread()
        guard coordlua_refuse_finalizers(L) != 0 else { throw LuaError(.misuse, "setmetatable is not the base library's") }
        core.refusesFinalizers = true
    }

    /// Whether the state was made with ``init(sandbox:)``.
    public internal(set) var isSandboxed: Bool {
        get { core.isSandboxed }
        set { core.isSandboxed = newValue }
    }
}
