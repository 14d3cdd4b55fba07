import CCoordinatorLua
import CCoordinatorLuaGlue

/// Lua functions a Swift object keeps by number, all in one Lua table: a screen's output handlers, one
/// slot per output.
///
/// Setting a function is one table write (no registry slot and no Swift object per function), and
/// ``call(_:argument:)`` goes from the table to `lua_pcall` directly. Slots are any integers. Like a
/// ``LuaCallback``, the functions held can be given new code (``set(_:to:)``), which is what a reload
/// does to every live set (``LuaState/liveFunctionSlots``).
///
/// ```swift
/// let handlers = LuaFunctionSlots(lua)
/// try handlers.set(1, to: lua.evaluate("return function(x) print('one', x) end", as: LuaFunction.self))
/// try handlers.call(1, argument: 42)     // prints "one 42", returns true
/// try handlers.call(2, argument: 42)     // nothing in slot 2: returns false
/// let undo = try handlers.saved()        // what puts slot 1 back after a change
/// handlers.removeAll()
/// undo()                                 // slot 1 holds the function again
/// ```
///
/// Package API: the bridge's screen handlers are built on it. `@usableFromInline`, so that the bodies of its
/// `@inlinable` members are serialized for other modules of the package: without it, `call(_:argument:)`
/// was not specialized in the bridge and a screen output cost 7 % more instructions.
@usableFromInline package final class LuaFunctionSlots {
    @usableFromInline let core: LuaCore
    // `table` and `count` are read on every call.
    /// The registry slot of the table, made on the first function set (`LUA_NOREF` until then).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    @usableFromInline var table: Int32 = LUA_NOREF
    /// When the table's slot was taken (``LuaReference/era``).
    private final var tableEra = 0
    /// How many slots hold a function.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public private(set) final var count = 0
    /// Slots 1...capacity are expected (they go to the table's array part).
    private final let capacity: Int32
    /// Its position in the state's list of live sets (`LuaState.liveFunctionSlots`).
    private final var position = 0

    /// An empty set in `state`, for slots `1...capacity` mostly (others work too).
    package init(_ state: LuaState, capacity: Int = 0) {
        core = state.core
        self.capacity = Int32(clamping: capacity)
        position = core.functionSlots.count
        core.functionSlots.append(Unmanaged.passUnretained(self)) // SAFETY[unretained-list]
    }

    deinit {
        if table != LUA_NOREF, !core.isClosed { core.pendingUnrefs.append(PendingUnref(slot: table, era: tableEra)) } // released at the state's next safe point
        // Off the list of live sets: the last one takes this one's place.
        let last = core.functionSlots.removeLast()
        if position < core.functionSlots.count {
            core.functionSlots[position] = last
            last.takeUnretainedValue().position = position
        }
    }

    /// Pushes the table, made now if there is none yet (room for two values is the caller's).
    private final func pushTable(_ L: OpaquePointer) {
        if table == LUA_NOREF {
            lua_createtable(L, capacity, 0)
            table = core.slot(for: -1, in: L)
            tableEra = core.images.era
        } else {
            coordlua_rawgetref(L, table)
        }
    }

    /// Whether `slot` holds a function.
    package func contains(_ slot: Int) -> Bool {
        guard count > 0, let L = try? core.thread() else { return false }
        coordlua_rawgetref(L, table)
        defer { lua_settop(L, -3) }
        return lua_rawgeti(L, -1, lua_Integer(slot)) == LUA_TFUNCTION
    }

    /// The function in `slot`, if any.
    package func function(_ slot: Int) throws -> LuaFunction? {
        guard count > 0 else { return nil }
        let L = try core.thread()
        try LuaStack(L, core).reserve(3)
        coordlua_rawgetref(L, table)
        defer { lua_settop(L, -3) }
        guard lua_rawgeti(L, -1, lua_Integer(slot)) == LUA_TFUNCTION else { return nil }
        return LuaFunction(reference: core.reference(at: -1, in: L))
    }

    /// Pushes the function in `slot` onto `stack` (nil when there is none).
    package func push(_ slot: Int, onto stack: borrowing LuaStack) throws {
        guard stack.core === core else { throw LuaError(.misuse, "a Lua value was used with another Lua state") }
        try stack.reserve(2)
        let L = stack.L
        guard table != LUA_NOREF else { return lua_pushnil(L) }
        coordlua_rawgetref(L, table)
        lua_rawgeti(L, -1, lua_Integer(slot))
        lua_rotate(L, -2, 1)
        lua_settop(L, -2)
    }

    /// Puts the function (or nil) at `index` of `stack` into `slot`; any other value is an error.
    package func set(_ slot: Int, toValueAt index: Int32, in stack: borrowing LuaStack) throws {
        guard stack.core === core else { throw LuaError(.misuse, "a Lua value was used with another Lua state") }
        let type = stack.type(at: index)
        guard type == .function || type == .nil || type == .none else { throw stack.typeError(expected: "function or nil", at: index) }
        let L = stack.L, value = lua_absindex(L, index)
        try stack.reserve(3)
        if table == LUA_NOREF, type != .function { return }
        pushTable(L)
        defer { lua_settop(L, -2) }
        let had = lua_rawgeti(L, -1, lua_Integer(slot)) == LUA_TFUNCTION
        lua_settop(L, -2)
        if type == .function { lua_pushvalue(L, value) } else { lua_pushnil(L) }
        lua_rawseti(L, -2, lua_Integer(slot))
        count += (type == .function ? 1 : 0) - (had ? 1 : 0)
    }

    /// Puts `function` (or nothing) into `slot`.
    package func set(_ slot: Int, to function: LuaFunction?) throws {
        let L = try core.thread()
        let stack = LuaStack(L, core)
        if let function { try function.push(to: stack) } else { lua_pushnil(L) }
        defer { lua_settop(L, -2) }
        try set(slot, toValueAt: -1, in: stack)
    }

    /// Empties every slot.
    package func removeAll() {
        guard count > 0, let L = try? core.thread(), lua_checkstack(L, 4) != 0 else { return }
        coordlua_rawgetref(L, table)
        defer { lua_settop(L, -2) }
        lua_pushnil(L)
        while lua_next(L, -2) != 0 {
            lua_settop(L, -2)          // the value; the key stays for lua_next
            lua_pushvalue(L, -1)
            lua_pushnil(L)
            lua_rawset(L, -4)          // clearing a field during a traversal is allowed
        }
        count = 0
    }

    /// The table of functions (nil before the first is set).
    package var tableValue: LuaValue {
        get throws {
            guard table != LUA_NOREF else { return .nil }
            let L = try core.thread()
            try LuaStack(L, core).reserve(2)
            coordlua_rawgetref(L, table)
            defer { lua_settop(L, -2) }
            return .table(LuaTable(reference: core.reference(at: -1, in: L)))
        }
    }

    /// The functions held now, by slot (in no particular order).
    package var functions: [(slot: Int, function: LuaFunction)] {
        get throws {
            guard count > 0 else { return [] }
            let L = try core.thread()
            let stack = LuaStack(L, core)
            try stack.reserve(4)
            coordlua_rawgetref(L, table)
            defer { lua_settop(L, -2) }
            var result: [(slot: Int, function: LuaFunction)] = []
            lua_pushnil(L)
            while lua_next(L, -2) != 0 {
                result.append((Int(lua_tointegerx(L, -2, nil)), LuaFunction(reference: core.reference(at: -1, in: L))))
                lua_settop(L, -2)
            }
            return result
        }
    }

    /// Empties every slot and returns what puts them back (the table itself, held by the closure: nothing
    /// is copied). Calling it undoes every change made since. With `marked`, the table is held as an undo
    /// entry's (``LuaUndoHold``: an entry a branch keeps).
    package func removeAllSaved(marked: Bool = false) -> () -> Void {
        guard count > 0 else { return { [self] in removeAll() } }
        let old = LuaReference(core: core, ref: table, era: tableEra, pointer: nil), saved = count
        let hold = marked ? LuaUndoHold(old) : nil
        table = LUA_NOREF
        count = 0
        return { [self, hold] in
            _ = hold
            if table != LUA_NOREF, !core.isClosed { core.pendingUnrefs.append(PendingUnref(slot: table, era: tableEra)) }
            tableEra = old.era
            table = old.take()
            count = table == LUA_NOREF ? 0 : saved
        }
    }

    /// What puts back the functions held now: call it to undo changes made since. Holding it keeps those
    /// functions alive; with `marked`, as an undo entry's (``LuaUndoHold``).
    package func saved(marked: Bool = false) throws -> () -> Void {
        guard count > 0 else { return { [self] in removeAll() } }
        let L = try core.thread()
        try LuaStack(L, core).reserve(4)
        // A copy of the table, held while the closure is.
        coordlua_rawgetref(L, table)
        lua_createtable(L, 0, Int32(count))
        lua_pushnil(L)
        while lua_next(L, -3) != 0 {
            lua_pushvalue(L, -2)
            lua_rotate(L, -2, 1)
            lua_rawset(L, -4)
        }
        let copy = core.reference(at: -1, in: L)
        let hold = marked ? LuaUndoHold(copy) : nil
        lua_settop(L, -3)
        let saved = count
        return { [self, hold] in
            _ = hold
            removeAll()
            guard let L = try? core.thread(), lua_checkstack(L, 4) != 0, let from = try? copy.slot() else { return }
            pushTable(L)
            coordlua_rawgetref(L, from)
            lua_pushnil(L)
            while lua_next(L, -2) != 0 {
                lua_pushvalue(L, -2)
                lua_rotate(L, -2, 1)
                lua_rawset(L, -5)
            }
            lua_settop(L, -3)
            count = saved
        }
    }

    /// Calls the function in `slot` with one argument (an optional pushes its value, or nil) and drops its
    /// results. Returns false, calling nothing, when the slot is empty.
    @inlinable @discardableResult
    package func call<A: LuaPushable>(_ slot: Int, argument: A) throws -> Bool {
        guard count > 0 else { return false }
        let pending = try core.beginCall(arguments: 1, function: table, entry: lua_Integer(slot))
        defer { lua_settop(pending.stack.L, pending.top) }
        guard pending.found == LUA_TFUNCTION else { return false }
        try argument.push(to: pending.stack)
        try core.pcall(pending, arguments: 1, results: 0)
        return true
    }
}
