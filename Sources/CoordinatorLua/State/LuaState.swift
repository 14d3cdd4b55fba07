import CCoordinatorLua
import CCoordinatorLuaGlue

/// The standard libraries to open in a state.
public struct LuaLibraries: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The basic functions (`print`, `pairs`, `pcall`, `load`, ...).
    public static let base = LuaLibraries(rawValue: 1 << 0)
    /// `require` and `package` (module loading from files).
    public static let package = LuaLibraries(rawValue: 1 << 1)
    /// `coroutine`.
    public static let coroutine = LuaLibraries(rawValue: 1 << 2)
    /// `table`.
    public static let table = LuaLibraries(rawValue: 1 << 3)
    /// `io` (files and standard streams).
    public static let io = LuaLibraries(rawValue: 1 << 4)
    /// `os` (time, environment, files, `os.exit`).
    public static let os = LuaLibraries(rawValue: 1 << 5)
    /// `string`.
    public static let string = LuaLibraries(rawValue: 1 << 6)
    /// `math`.
    public static let math = LuaLibraries(rawValue: 1 << 7)
    /// `utf8`.
    public static let utf8 = LuaLibraries(rawValue: 1 << 8)
    /// `debug` (introspection that can break any rule a host sets: keep it from untrusted code).
    public static let debug = LuaLibraries(rawValue: 1 << 9)

    /// Every standard library, as `luaL_openlibs` opens them.
    public static let all: LuaLibraries = [.base, .package, .coroutine, .table, .io, .os, .string, .math, .utf8, .debug]
    /// Libraries that cannot reach the file system, the process or Lua's internals: base (without
    /// `dofile` and `loadfile`, and with `load` limited to text chunks), coroutine, table, string, math,
    /// utf8. Use it for scripts you do not trust; the debug library in particular can break any invariant.
    public static let safe: LuaLibraries = [.base, .coroutine, .table, .string, .math, .utf8]
}

/// One Lua 5.4 state: the entry point of the safe Swift layer over Lua.
///
/// ```swift
/// let lua = try LuaState()
/// try lua.globals.set("greeting", "hello")
/// try lua.globals.set("shout", lua.function(name: "shout") { (s: String) in s.uppercased() })
/// let result: String = try lua.evaluate("return shout(greeting) .. '!'")   // "HELLO!"
/// ```
///
/// **Errors.** Every failure is a thrown ``LuaError`` carrying the message, `chunk:line` and a traceback;
/// the state stays usable afterwards.
///
/// **Resources.** ``memoryLimit`` caps the bytes Lua code may allocate (exceeding it is an ordinary
/// `not enough memory` error); ``instructionBudget`` caps the instructions of each call made from Swift;
/// ``interrupt()`` stops running code. Hooks are installed only while a budget or an interrupt needs them.
///
/// **Isolation.** A state is not thread-safe and not `Sendable`: it belongs to the isolation domain that
/// created it (an actor, the main actor, or one task), and every value it hands out (``LuaTable``,
/// ``LuaFunction``, ...) belongs there too. An async host keeps the state inside one actor and calls it
/// from that actor's methods.
///
/// **Lifetime.** ``close()`` (or the state going away) closes the `lua_State` exactly once, running every
/// `__gc`: Swift objects held by Lua are released then. Values still held in Swift become invalid and
/// throw a `.misuse` error when used.
public final class LuaState {
    let core: LuaCore

    /// Creates a state with the given standard libraries open. With `ignoringEnvironment` (`lua -E`),
    /// `package.path` and `package.cpath` take Lua's defaults, not `LUA_PATH` and `LUA_CPATH`.
    public convenience init(libraries: LuaLibraries = .all, ignoringEnvironment: Bool = false) throws {
        try self.init(core: LuaCore(), libraries: libraries, ignoringEnvironment: ignoringEnvironment)
    }
    /// A state whose heap is one arena of `arenaBytes` bytes of address space when given, so that it can be
    /// imaged (``LuaImage``).
    package convenience init(libraries: LuaLibraries, ignoringEnvironment: Bool, arenaBytes: Int?) throws {
        try self.init(core: LuaCore(arenaBytes: arenaBytes), libraries: libraries, ignoringEnvironment: ignoringEnvironment)
    }
    /// A state over `core`: a pooled heap, or one in an arena (``LuaImage``).
    init(core: LuaCore, libraries: LuaLibraries, ignoringEnvironment: Bool = false) throws {
        self.core = core
        core.owner = self
        if ignoringEnvironment {
            let L = try core.thread()
            lua_pushboolean(L, 1)
            lua_setfield(L, coordlua_registryindex(), "LUA_NOENV")
        }
        try openLibraries(libraries)
    }

    /// The Lua release and its copyright line (liblua's `LUA_COPYRIGHT`), as `lua -v` prints them.
    public static var copyright: String { String(cString: coordlua_copyright()) }

    /// Whether `warn` messages are printed (to standard error, or to ``onWarning(_:)``'s handler). On by
    /// default; the stand-alone `lua` starts with them off (`-W` and `warn("@on")` turn them on).
    public var warningsEnabled: Bool {
        get { core.warnings.enabled }
        set { core.warnings.enabled = newValue }
    }

    deinit { core.close() }

    /// Closes the state now. Safe to call more than once.
    public func close() { core.close() }

    /// Whether ``close()`` has run.
    public var isClosed: Bool { core.isClosed }

    /// Every ``LuaCallback`` of this state that is still held somewhere: what a reload gives new code.
    package var liveCallbacks: [LuaCallback] { core.callbacks.map { $0.takeUnretainedValue() } }

    /// Every ``LuaFunctionSlots`` of this state that is still held somewhere: the other functions a reload
    /// gives new code.
    package var liveFunctionSlots: [LuaFunctionSlots] { core.functionSlots.map { $0.takeUnretainedValue() } }

    // MARK: Libraries

    /// Opens more standard libraries.
    public func openLibraries(_ libraries: LuaLibraries) throws { try StandardLibraries.open(libraries, in: self) }

    // MARK: Values

    /// The global table.
    public var globals: LuaTable {
        guard let L = try? core.thread() else { return LuaTable(reference: LuaReference(core: core, ref: LUA_NOREF, era: 0, pointer: nil)) }
        coordlua_pushglobaltable(L)
        defer { lua_settop(L, -2) }
        return LuaTable(reference: core.reference(at: -1, in: L))
    }

    /// Makes a new empty table.
    public func newTable() throws -> LuaTable {
        let L = try core.thread()
        lua_createtable(L, 0, 0)
        defer { lua_settop(L, -2) }
        return LuaTable(reference: core.reference(at: -1, in: L))
    }

    /// Converts a Swift value into a Lua value: arrays and dictionaries become tables, nested.
    public func value(_ value: some LuaPushable) throws -> LuaValue {
        let L = try core.thread()
        let stack = LuaStack(L, core)
        try stack.reserve(1)
        try stack.push(value)
        defer { lua_settop(L, -2) }
        return stack.value(at: -1)
    }

    // MARK: Resources

    /// Bytes currently allocated by this state.
    public var memoryUsed: Int { core.isClosed ? 0 : Int(core.runtime.pointee.used) }

    /// The bytes of the pages the state's small-block pool took from the system (they go back when the
    /// state closes): what its small blocks cost, used or free.
    package var pooledBytes: Int { core.isClosed ? 0 : Int(core.runtime.pointee.pool.pageCount) * Int(COORDLUA_POOL_PAGE) }

    /// The most bytes this state has had allocated at once.
    public var peakMemoryUsed: Int { Int(core.runtime.pointee.peak) }

    /// The most bytes Lua code may have allocated, or `nil` for no limit.
    ///
    /// Reaching it makes the allocation fail with Lua's `not enough memory` error (a ``LuaError`` of kind
    /// `.memory` in Swift), after a full collection has been tried; the state stays usable. The limit
    /// applies while Lua code runs; values pushed by Swift code are always allocated.
    public var memoryLimit: Int? {
        get { limits.memory }
        set { limits.memory = newValue }
    }

    /// For tests of running out of memory: the bytes the system gives this state (what it holds, its
    /// reserve included), or `nil` for whatever the system gives. Beyond it every allocation fails as
    /// `malloc` would, whoever makes it, Lua code or Swift code.
    package var systemMemory: Int? {
        get { limits.systemMemory }
        set { limits.systemMemory = newValue }
    }

    /// How many allocations failed while Swift code ran with the reserve already spent: each raised Lua's
    /// memory error over Swift frames. Stays 0 unless the system is out of memory past the reserve.
    package var unprotectedAllocationFailures: Int { Int(core.runtime.pointee.unprotectedFailures) }

    /// The most VM instructions each call from Swift may run (nested calls count toward the outer call), or
    /// `nil` for no limit. Running out is a ``LuaError`` of kind `.budgetExhausted`; Lua code cannot catch
    /// it for good, since every later instruction of the same call fails again.
    public var instructionBudget: Int? {
        get { limits.instructionBudget }
        set { limits.instructionBudget = newValue }
    }

    /// Runs `body` so that the Lua code it runs on this state stops with a "timed out" error (kind
    /// `.interrupted`) once `seconds` have passed; `nil` runs it without a limit. Nested limits keep the
    /// earlier deadline. The limit costs nothing until it passes: a timer of this thread's then signals it
    /// (`SIGRTMIN + 5`, a signal the bridge keeps for itself) and the running code stops at its next
    /// instruction, so states on other threads keep theirs. Like the instruction budget it cannot stop a
    /// single long C call (`string.rep` of a huge string); the pattern matcher and `os.execute` watch it.
    ///
    /// ```swift
    /// try lua.withTimeLimit(0.5) { try lua.run("while true do end") }   // LuaError: "…: timed out"
    /// ```
    public func withTimeLimit<R>(_ seconds: Double?, _ body: () throws -> R) rethrows -> R {
        guard let seconds else { return try body() }
        return try limits.withDeadline(seconds, body)
    }

    /// Stops the Lua code that is running now with an `interrupted` error (kind `.interrupted`) at its next
    /// instruction. Call it from a Swift callback or a hook on the thread that runs Lua.
    public func interrupt() { limits.interrupt() }

    /// What bounds the code this state runs (``LuaLimits``).
    var limits: LuaLimits { LuaLimits(core: core) }

    /// Whether errors carry a traceback (on by default; taking one costs about 2 µs per error).
    public var tracebacks: Bool {
        get { core.runtime.pointee.tracebacks != 0 }
        set { core.runtime.pointee.tracebacks = newValue ? 1 : 0 }
    }

    /// Runs a full garbage collection, and compacts the bridge's own tables (the cache that maps Swift
    /// objects to their userdata keeps the capacity it once needed until it is rebuilt), so that the heap
    /// after a collection depends on what is alive, not on history.
    ///
    /// Finalizers can free more: a collected userdata releases its Swift object, whose references to Lua
    /// values are released in turn, and those values are only garbage at the next collection. So this
    /// collects again while that chain frees something (a few rounds at most).
    public func collectGarbage() { collectGarbage(compacting: true) }

    /// ``collectGarbage()``; without `compacting`, the bridge's tables keep their capacity and the heap is
    /// collected as few times as what is alive needs: for a check of what is still reachable (the
    /// lifecycle oracle, after every test), whose cost then does not double.
    package func collectGarbage(compacting: Bool) {
        guard let L = try? core.thread() else { return }
        for _ in 0..<8 {
            core.drainUnrefs()
            _ = coordlua_gc_collect(L)
            if core.pendingUnrefs.isEmpty { break }
        }
        guard compacting else { return }
        core.compactObjectCache(L)
        _ = coordlua_gc_collect(L)
    }

    /// Whether the main script, a chunk a program runs and a REPL line run under a C frame, as the
    /// stand-alone `lua` runs them (under its `pmain`): their tracebacks end with `[C]: in ?`, as `lua`'s do.
    package var chunksRunAsPrograms = false

    /// Puts the collector in generational mode, as the stand-alone `lua` does before it runs anything
    /// (incremental, Lua's default, otherwise). For a host that runs scripts as `lua` would.
    public func useGenerationalCollector() {
        guard let L = try? core.thread() else { return }
        _ = coordlua_gc_generational(L)
    }

    /// Runs `body` with the stack of the thread that runs now, for code that builds or reads Lua values
    /// with ``LuaStack``'s primitives; whatever `body` leaves on the stack is removed when it returns or
    /// throws. Check room with `LuaStack.reserve(_:)` before pushing. Throws if the state is closed.
    package func withStack<R>(_ body: (borrowing LuaStack) throws -> R) throws -> R {
        let L = try core.thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        return try body(LuaStack(L, core))
    }

    /// Runs `body` with the raw `lua_State` of the thread that runs now, for code that uses Lua's C API
    /// directly (import `CCoordinatorLua`). Leave the stack as you found it, and do not keep the pointer: it is valid
    /// only during the call. Throws if the state is closed.
    ///
    /// ```swift
    /// let depth = try lua.withUnsafeState { L in lua_gettop(L) }
    /// ```
    public func withUnsafeState<R>(_ body: (OpaquePointer) throws -> R) throws -> R { // SAFETY[unsafe-state]
        try body(core.thread())
    }

    /// Per-state storage for a library built on CoordinatorLua (see ``LuaStack/attachment(_:)``): the object of
    /// class `T` kept with this state, made by `make` the first time.
    package func attachment<T: AnyObject>(_ make: () -> T) -> T {
        LuaStack(core.L, core).attachment(make)
    }

    /// Receives Lua warnings: `warn(...)` from scripts and errors raised inside `__gc` metamethods. By
    /// default they go to standard error as `Lua warning: ...`. Scripts can switch them off and on with
    /// `warn("@off")` and `warn("@on")`.
    public func onWarning(_ handler: @escaping (String) -> Void) { core.warnings.handler = handler }
}
