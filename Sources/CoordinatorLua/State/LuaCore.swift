import CCoordinatorLua
import CCoordinatorLuaGlue

/// The shared, reference-counted owner of one `lua_State`.
///
/// ``LuaState`` is the public face; references (``LuaTable`` and friends) keep the core alive so that they
/// can tell, after ``LuaState/close()``, that the state is gone instead of touching freed memory.
///
/// Isolation: the core is not `Sendable`. It lives in the isolation domain of whoever created the
/// ``LuaState`` and is only ever reached from there (Swift callbacks run synchronously inside calls made from
/// that domain).
@usableFromInline final class LuaCore {
    /// The runtime record shared with the C side; freed when the core goes away.
    @usableFromInline let runtime: UnsafeMutablePointer<coordlua_Runtime> // SAFETY[c-owned-memory]
    /// The main thread; `nil` once closed.
    private(set) var mainThread: OpaquePointer?
    /// The owning state, for callbacks that need it.
    weak var owner: LuaState?

    /// Swift classes registered as userdata types.
    let classes = LuaClassRegistry()
    /// Registry references whose Swift owners went away; released at the next safe point.
    ///
    /// `pendingUnrefs` and `callDepth` are read on every call from Swift (the drain loop pops one slot at a
    /// time and releases it after the access).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var pendingUnrefs: [PendingUnref] = []
    /// Every live ``LuaUndoHold``, unretained, kept as ``callbacks`` are: what undo entries keep is no part
    /// of a state.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var undoHolds: [Unmanaged<LuaUndoHold>] = [] // SAFETY[unretained-list]
    /// The images kept of the heap, and what a restore must settle outside it (``LuaImages``).
    let images = LuaImages()
    /// Objects that libraries keep with the state (`LuaStack.attachment`), by their class. Read on every
    /// data conversion.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    @usableFromInline var attachments: [(ObjectIdentifier, AnyObject)] = []

    /// Registry slot of the state's views (``LuaStack/pushView(for:)``), once one was set. Read on every
    /// data conversion.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    @usableFromInline var viewsRef: Int32 = LUA_NOREF

    /// The attachment stored under `key`, if any.
    @usableFromInline func attachment(_ key: ObjectIdentifier) -> AnyObject? {
        for i in attachments.indices where attachments[i].0 == key { return attachments[i].1 }
        return nil
    }
    /// Every live ``LuaCallback`` of the state, unretained: a callback adds itself when made and removes
    /// itself in its `deinit` (each knows its position), so every entry is a live object.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var callbacks: [Unmanaged<LuaCallback>] = [] // SAFETY[unretained-list]
    /// Short strings read from Lua, by address (see ``LuaStringCache``): a `let` of pointers, read without
    /// retaining the core or an exclusive access.
    let strings = LuaStringCache()
    /// Every live ``LuaFunctionSlots`` of the state, kept the same way.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var functionSlots: [Unmanaged<LuaFunctionSlots>] = [] // SAFETY[unretained-list]
    /// Registry slots of the shared metatables.
    var boxMetatableRef: Int32 = LUA_NOREF
    var objectCacheRef: Int32 = LUA_NOREF
    /// What a callback's error leaves for the call that catches it.
    let errorRelay = LuaErrorRelay()
    /// Nesting of protected calls made from Swift; 0 means no Lua code is running.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var callDepth = 0
    /// Maximum instructions for each top-level call, or nil.
    var instructionBudget: Int?
    /// The state's warnings.
    let warnings = LuaWarnings()

    /// A core whose heap is pooled, or in an arena of `arenaBytes` bytes of address space (``LuaImage``).
    init(arenaBytes: Int? = nil) throws(LuaError) {
        runtime = .allocate(capacity: 1)
        runtime.initialize(to: coordlua_Runtime())
        guard arenaBytes.map({ coordlua_arena_open(&runtime.pointee.arena, max(0, $0)) != 0 }) ?? true, let L = coordlua_newstate(runtime) else {
            coordlua_release_memory(runtime)
            runtime.deallocate()
            throw LuaError(.memory, "cannot create a Lua state: not enough memory")
        }
        mainThread = L
        runtime.pointee.current = L
        runtime.pointee.tracebacks = 1
        runtime.pointee.hookCount = 1000
        runtime.pointee.owner = Unmanaged.passUnretained(self).toOpaque() // SAFETY[boxed-object]
        runtime.pointee.dispatch = { L, box in
            guard let L, let box else { return 0 }
            return LuaCore.dispatchFunction(L, box)
        }
        runtime.pointee.methodDispatch = { L, box, object in
            guard let L, let box, let object else { return 0 }
            return LuaCore.dispatchMethod(L, box, object)
        }
        runtime.pointee.release = { box in
            guard let box else { return }
            Unmanaged<AnyObject>.fromOpaque(box).release() // SAFETY[boxed-object]
        }
        runtime.pointee.warn = { owner, message, toContinue in
            guard let owner, let message else { return }
            let core = Unmanaged<LuaCore>.fromOpaque(owner).takeUnretainedValue() // SAFETY[boxed-object]
            core.warnings.receive(String(cString: message), continues: toContinue != 0)
        }
        coordlua_setwarnf(L, runtime)
        setUpRegistry(L)
    }

    deinit {
        close()
        strings.deallocate()
        runtime.deinitialize(count: 1)
        runtime.deallocate()
    }

    var isClosed: Bool { mainThread == nil }
    /// Whether the state was made for untrusted scripts (`LuaState(sandbox:)`).
    var isSandboxed = false
    /// Whether `setmetatable` refuses metatables with `__gc` (`LuaState.refuseFinalizers()`).
    var refusesFinalizers = false
    /// Where `require` finds modules.
    let modules = ModuleSearch()

    /// The thread Swift code must use now: the main thread, or the thread that called the running callback.
    var L: OpaquePointer { runtime.pointee.current }

    /// The current thread, or `.misuse` after close.
    @usableFromInline func thread() throws(LuaError) -> OpaquePointer {
        guard mainThread != nil else { throw LuaError(.misuse, "the Lua state is closed") }
        return runtime.pointee.current
    }

    func close() {
        guard let L = mainThread else { return }
        coordlua_ledger_settle(runtime) // no image is restored any more: what a collection deferred is released
        lua_close(L) // runs every __gc: Swift objects held by Lua are released here
        coordlua_release_memory(runtime) // every block is free now: the pages go at once
        coordlua_free_reserve(runtime)
        mainThread = nil
        runtime.pointee.owner = nil
        runtime.pointee.current = nil
        classes.removeAll()
        pendingUnrefs.removeAll()
        // What Swift values the core still holds go too: an error kept for its `underlying` value can hold
        // objects that hold references to this core (a coordinator and its Lua tables), a cycle that would
        // keep the closed core and its buffers alive for good.
        errorRelay.clear()
        attachments.removeAll()
    }

    private func setUpRegistry(_ L: OpaquePointer) {
        // Metatable for boxes that hold a retained Swift object: __gc releases it.
        lua_createtable(L, 0, 2)
        coordlua_pushboxgc(L)
        lua_setfield(L, -2, "__gc")
        lua_pushstring(L, "Swift object")
        lua_setfield(L, -2, "__metatable")
        boxMetatableRef = coordlua_ref(L)
        // Weak-valued cache: one userdata per live Swift object, so identity survives round trips (a map of
        // the same kind as the state's views, kept apart: its entries may outlive their objects until `__gc`).
        objectCacheRef = coordlua_weakmap_new(L)
    }

    // MARK: Registry references

    /// Releases references whose Swift owners were deinitialised. Called at safe points only (on every call
    /// from Swift: the check is inline, the work out of line).
    @inline(__always) func drainUnrefs() {
        if !pendingUnrefs.isEmpty { drainPendingUnrefs() }
    }

    @inline(never) private func drainPendingUnrefs() {
        guard !isClosed else { return }
        // In place: `luaL_unref` only writes registry slots (no allocation, so no collector step and no
        // `__gc` that could append meanwhile), and a copy of the list would cost an allocation per drain.
        let L = self.L
        guard images.isEmpty else {
            while let unref = pendingUnrefs.popLast() {
                if images.mayRelease(unref) { coordlua_unref(L, unref.slot) }
            }
            return
        }
        while let unref = pendingUnrefs.popLast() { coordlua_unref(L, unref.slot) }
    }

    /// Takes a registry reference to the value at `index` (the stack is unchanged).
    func reference(at index: Int32, in L: OpaquePointer) -> LuaReference {
        let pointer = lua_topointer(L, index)
        return LuaReference(core: self, ref: slot(for: index, in: L), era: images.era, pointer: pointer)
    }

    /// A registry slot holding the value at `index` (the stack is unchanged). Slots released since the
    /// last call are given back first, so the registry stays at the size of what Swift holds.
    @inline(__always) func slot(for index: Int32, in L: OpaquePointer) -> Int32 {
        drainUnrefs()
        lua_pushvalue(L, index)
        return coordlua_ref(L)
    }

    // MARK: Callbacks

    /// Runs a Swift callback. Never lets a Swift error escape and never jumps: returns the result count, or
    /// -1 with the error message on top of the stack for the C trampoline to raise.
    ///
    /// The box is borrowed without a retain: the closure that holds it as an upvalue is on the Lua stack for
    /// the whole call, so the box cannot go away while it runs.
    static func dispatchFunction(_ L: OpaquePointer, _ box: UnsafeMutableRawPointer) -> Int32 { // SAFETY[boxed-object]
        Unmanaged<LuaFunctionBox>.fromOpaque(box)._withUnsafeGuaranteedRef { function in // SAFETY[boxed-object]
            let base = lua_gettop(L)
            do {
                try function.body(LuaCall(L, function.core, base: base, offset: 0, callee: function))
                return max(lua_gettop(L) - base, 0)
            } catch {
                return function.core.pushError(error, L, level: 1)
            }
        }
    }

    static func dispatchMethod(_ L: OpaquePointer, _ box: UnsafeMutableRawPointer, _ object: UnsafeMutableRawPointer) -> Int32 { // SAFETY[boxed-object]
        Unmanaged<LuaMethodBox>.fromOpaque(box)._withUnsafeGuaranteedRef { method in // SAFETY[boxed-object]
            let base = lua_gettop(L)
            do {
                try method.body(object, LuaCall(L, method.core, base: base, offset: 1, callee: method))
                return max(lua_gettop(L) - base, 0)
            } catch {
                return method.core.pushError(error, L, level: method.callerLevel)
            }
        }
    }

    /// Pushes the Lua error for a Swift error: an error Lua raised (in a nested call) passes through with
    /// its message; any other error gets the location of the Lua code that called the callback, the way
    /// `luaL_error` does. `level` is where that Lua code is: 1 for a direct call, 2 for accessors that the C
    /// `__index`/`__newindex` functions call.
    func pushError(_ error: any Error, _ L: OpaquePointer, level: Int32) -> Int32 {
        if runtime.pointee.memoryShort != 0 || (error as? LuaError)?.kind == .memory {
            // Out of memory: Lua's own message, a fixed string that pushing does not allocate (a message
            // with a location would need memory there may not be).
            runtime.pointee.memoryShort = 1
            LuaStack(L, self).pushString("not enough memory")
            return -1
        }
        let message: String
        if let lua = error as? LuaError, lua.raisedByLua {
            message = lua.message
            errorRelay.passing(lua)
        } else {
            coordlua_where(L, level)
            let location = LuaStack(L, self).rawString(at: -1)
            lua_settop(L, -2)
            let text: String
            if let described = error as? CustomStringConvertible { text = described.description } else { text = "\(error)" }
            message = location + text
            errorRelay.raising(error, as: message)
        }
        LuaStack(L, self).pushString(message)
        return -1
    }
}

/// What every Swift function reachable from Lua has: its name (for messages), where its Lua caller sits on
/// the stack, and its core.
///
/// `core` is `unowned(unsafe)`: a box is retained only by its Lua userdata, whose `__gc` releases it at the
/// latest inside `lua_close`, which runs while the core is alive; so the box never outlives the core, and
/// the hot path avoids a weak load.
class LuaCallableBox {
    unowned(unsafe) let core: LuaCore // SAFETY[call-frame]
    let name: String
    /// The stack level of the Lua code that triggered the call (for error locations): 1 for direct calls,
    /// 2 for accessors called by the C `__index`/`__newindex`.
    let callerLevel: Int32

    init(core: LuaCore, name: String, callerLevel: Int32) {
        self.core = core
        self.name = name
        self.callerLevel = callerLevel
    }
}

/// A Swift closure reachable from a Lua C closure (upvalue 1 of `coordlua_trampoline`).
final class LuaFunctionBox: LuaCallableBox {
    let body: (borrowing LuaCall) throws -> Void
    init(core: LuaCore, name: String, body: @escaping (borrowing LuaCall) throws -> Void) {
        self.body = body
        super.init(core: core, name: name, callerLevel: 1)
    }
}

/// A Swift method of a registered class (upvalue 1 of `coordlua_method_trampoline`); `body` gets the object's
/// unretained pointer, already checked to be an instance of the class.
final class LuaMethodBox: LuaCallableBox {
    let body: (UnsafeMutableRawPointer, borrowing LuaCall) throws -> Void // SAFETY[boxed-object]
    init(core: LuaCore, name: String, callerLevel: Int32, body: @escaping (UnsafeMutableRawPointer, borrowing LuaCall) throws -> Void) { // SAFETY[boxed-object]
        self.body = body
        super.init(core: core, name: name, callerLevel: callerLevel)
    }
}

/// A call from Swift between ``LuaCore/beginCall(arguments:function:entry:)`` and its `pcall`.
@usableFromInline struct PendingCall {
    @usableFromInline let L: OpaquePointer
    /// The core of the state the call runs in, open while the call lasts.
    @usableFromInline unowned(unsafe) let core: LuaCore // SAFETY[call-frame]
    /// The stack the call runs on.
    @usableFromInline var stack: LuaStack { LuaStack(L, core) }
    /// The stack's top before the call: restore it when done.
    @usableFromInline let top: Int32
    /// 1 when a message handler sits below the function, else 0.
    @usableFromInline let handler: Int32
    /// The type of what was pushed in the function's place.
    @usableFromInline let found: Int32

    @inlinable init(L: OpaquePointer, core: LuaCore, top: Int32, handler: Int32, found: Int32) {
        self.L = L
        self.core = core
        self.top = top
        self.handler = handler
        self.found = found
    }

    /// The index of the first result once the call returned.
    @inlinable var firstResult: Int32 { top + 1 + handler }
    /// The results on the stack once the call returned.
    @inlinable var results: LuaResults {
        LuaResults(stack: stack, base: firstResult, count: lua_gettop(stack.L) - firstResult + 1)
    }
}
