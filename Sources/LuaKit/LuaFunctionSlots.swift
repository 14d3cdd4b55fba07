import CLua

/// Lua functions a Swift object keeps by number, all in one Lua table: a screen's output handlers, one
/// slot per output.
///
/// Setting a function is one table write (no registry slot and no Swift object per function), and
/// ``call(_:argument:)`` goes from the table to `lua_pcall` directly. Slots are any integers but 0. With
/// ``names`` and a class registered with ``LuaClassBuilder/functionSlots(_:)``, scripts set them as fields
/// of the object (`button.onTap = f`) without calling Swift at all.
///
/// Changes made while a ``LuaSlotJournal`` operation runs are put back if it fails. Like a ``LuaCallback``,
/// the functions held can be given new code (``set(_:to:)``), which is what a reload does to every live set
/// (``LuaState/liveFunctionSlots``). Subclass it to keep the functions in the object that uses them (one
/// allocation for both); its own members are final.
///
/// ```swift
/// let handlers = LuaFunctionSlots(lua)
/// try handlers.set(1, to: lua.evaluate("return function(x) print('one', x) end", as: LuaFunction.self))
/// try handlers.call(1, argument: 42)     // prints "one 42", returns true
/// try handlers.call(2, argument: 42)     // nothing in slot 2: returns false
/// ```
open class LuaFunctionSlots {
    @usableFromInline final let core: LuaCore
    /// The registry slot of the table, made when first needed (`LUA_NOREF` until then). Exclusivity
    /// unchecked (read on every call): one thread, and each access is one read or one assignment.
    @exclusivity(unchecked) @usableFromInline final var table: Int32 = LUA_NOREF
    /// Slots 1...capacity are expected (they go to the table's array part).
    private final let capacity: Int32
    /// Which field names are which slots, when scripts set them as fields (kept at the table's slot 0).
    public final let names: LuaSlotNames?
    /// Its position in the state's list of live sets (`LuaState.liveFunctionSlots`).
    private final var position = 0

    /// An empty set in `state`, for slots `1...capacity` mostly, whose fields (if any) `names` maps.
    public init(_ state: LuaState, capacity: Int = 0, names: LuaSlotNames? = nil) {
        core = state.core
        self.capacity = Int32(clamping: capacity)
        self.names = names
        position = core.functionSlots.count
        core.functionSlots.append(Unmanaged.passUnretained(self))
    }

    deinit {
        if table != LUA_NOREF, !core.isClosed { core.pendingUnrefs.append(table) } // released at the state's next safe point
        // Off the list of live sets: the last one takes this one's place.
        let last = core.functionSlots.removeLast()
        if position < core.functionSlots.count {
            core.functionSlots[position] = last
            last.takeUnretainedValue().position = position
        }
    }

    /// Pushes the table, made now if there is none yet (needs room for three values).
    final func pushTable(_ L: OpaquePointer) {
        if table != LUA_NOREF { clua_rawgetref(L, table); return }
        lua_createtable(L, capacity, 1)
        if let names, names.core === core {
            clua_rawgetref(L, names.table)
            lua_rawseti(L, -2, 0)
        }
        table = core.slot(for: -1, in: L)
    }

    /// Whether `slot` holds a function.
    public final func contains(_ slot: Int) -> Bool {
        guard slot != 0, table != LUA_NOREF, let L = try? core.thread(), lua_checkstack(L, 2) != 0 else { return false }
        clua_rawgetref(L, table)
        defer { lua_settop(L, -3) }
        return lua_rawgeti(L, -1, lua_Integer(slot)) == LUA_TFUNCTION
    }

    /// Puts the function (or nil) at `index` of `stack` into `slot`; any other value is an error.
    public final func set(_ slot: Int, toValueAt index: Int32, in stack: LuaStack) throws {
        guard stack.core === core else { throw LuaError(.misuse, "a Lua value was used with another Lua state") }
        guard slot != 0 else { throw LuaError(.misuse, "slot 0 holds the field names") }
        let type = stack.type(at: index)
        guard type == .function || type == .nil || type == .none else { throw stack.typeError(expected: "function or nil", at: index) }
        if table == LUA_NOREF, type != .function { return }
        let L = stack.L, value = lua_absindex(L, index)
        try stack.reserve(5)
        pushTable(L)
        defer { lua_settop(L, -2) }
        if type == .function { lua_pushvalue(L, value) } else { lua_pushnil(L) }
        guard clua_slot_set(L, lua_gettop(L) - 1, lua_Integer(slot)) != 0 else { throw LuaError(.memory, "not enough memory") }
    }

    /// Puts `function` (or nothing) into `slot`.
    public final func set(_ slot: Int, to function: LuaFunction?) throws {
        let L = try core.thread()
        let stack = LuaStack(L, core)
        try stack.reserve(1)
        if let function { try function.push(to: stack) } else { lua_pushnil(L) }
        defer { lua_settop(L, -2) }
        try set(slot, toValueAt: -1, in: stack)
    }

    /// Empties every slot.
    public final func removeAll() {
        for slot in filledSlots() {
            try? set(slot, to: nil)
        }
    }

    /// The slots that hold something.
    private final func filledSlots() -> [Int] {
        guard table != LUA_NOREF, let L = try? core.thread(), lua_checkstack(L, 4) != 0 else { return [] }
        clua_rawgetref(L, table)
        defer { lua_settop(L, -2) }
        var slots: [Int] = []
        lua_pushnil(L)
        while lua_next(L, -2) != 0 {
            let slot = Int(lua_tointegerx(L, -2, nil))
            if slot != 0 { slots.append(slot) }
            lua_settop(L, -2)
        }
        return slots
    }

    /// Lets go of the table and every function in it (the registry slot goes at the state's next safe
    /// point); a later ``set(_:to:)`` starts a new table. Not journaled: call it once nothing can fail.
    public final func dropTable() {
        guard table != LUA_NOREF else { return }
        if !core.isClosed { core.pendingUnrefs.append(table) }
        table = LUA_NOREF
    }

    /// Stops scripts from setting fields directly (each one then goes to the class's `newIndex`); slots
    /// set from Swift still work.
    public final func unbindNames() {
        guard table != LUA_NOREF, let L = try? core.thread(), lua_checkstack(L, 2) != 0 else { return }
        clua_rawgetref(L, table)
        lua_pushnil(L)
        lua_rawseti(L, -2, 0)
        lua_settop(L, -2)
    }

    /// The functions held now, by slot (in no particular order).
    public final var functions: [(slot: Int, function: LuaFunction)] {
        get throws {
            guard table != LUA_NOREF else { return [] }
            let L = try core.thread()
            try LuaStack(L, core).reserve(4)
            clua_rawgetref(L, table)
            defer { lua_settop(L, -2) }
            var result: [(slot: Int, function: LuaFunction)] = []
            lua_pushnil(L)
            while lua_next(L, -2) != 0 {
                let slot = Int(lua_tointegerx(L, -2, nil))
                if slot != 0, lua_type(L, -1) == LUA_TFUNCTION {
                    result.append((slot, LuaFunction(reference: core.reference(at: -1, in: L))))
                }
                lua_settop(L, -2)
            }
            return result
        }
    }

    /// Calls the function in `slot` with one argument (an optional pushes its value, or nil) and drops its
    /// results. Returns false, calling nothing, when the slot is empty.
    @inlinable @discardableResult
    public final func call<A: LuaPushable>(_ slot: Int, argument: A) throws -> Bool {
        guard table != LUA_NOREF else { return false }
        let pending = try core.beginCall(arguments: 1, function: table) // the table, in the function's place
        defer { lua_settop(pending.stack.L, pending.top) }
        guard clua_replace_with_entry(pending.stack.L, lua_Integer(slot)) == LUA_TFUNCTION else { return false }
        try argument.push(to: pending.stack)
        try core.pcall(pending, arguments: 1, results: 0)
        return true
    }
}

/// Which field names are which slots, for every ``LuaFunctionSlots`` made with it: one Lua table, shared,
/// changed in place (``set(_:)``) so that every set follows (a screen type's outputs, redefined by a reload).
///
/// ```swift
/// let names = try LuaSlotNames(lua)
/// try names.set(["onTap": 1, "onHold": 2])
/// ```
public final class LuaSlotNames {
    final let core: LuaCore
    /// The registry slot of the table.
    final let table: Int32

    public init(_ state: LuaState) throws {
        core = state.core
        let L = try core.thread()
        lua_createtable(L, 0, 4)
        table = core.slot(for: -1, in: L)
        lua_settop(L, -2)
    }

    deinit { if !core.isClosed { core.pendingUnrefs.append(table) } }

    /// Makes the map exactly `names` (slot 0 is not allowed: it is where the map itself is kept).
    public func set(_ names: [String: Int]) throws {
        let L = try core.thread()
        try LuaStack(L, core).reserve(4)
        clua_rawgetref(L, table)
        defer { lua_settop(L, -2) }
        var old: [String] = []
        lua_pushnil(L)
        while lua_next(L, -2) != 0 {
            lua_settop(L, -2)
            old.append(LuaStack(L, core).rawString(at: -1))
        }
        for name in old where names[name] == nil {
            LuaStack(L, core).pushString(name)
            lua_pushnil(L)
            lua_rawset(L, -3)
        }
        for (name, slot) in names where slot != 0 {
            LuaStack(L, core).pushString(name)
            lua_pushinteger(L, lua_Integer(slot))
            lua_rawset(L, -3)
        }
    }
}

/// Makes ``LuaFunctionSlots`` follow a host's operations that may fail: while the number at
/// ``follow(_:)``'s address is above 0 (an operation runs), every slot change is logged with it, and
/// ``rollBack(serial:)`` puts back the changes logged with that number or a larger one (operations inside
/// the failed one have larger numbers). The coordinator bridge points it at the app's
/// ``operationSerial``-style counter.
///
/// ```swift
/// let serial = UnsafeMutablePointer<Int>.allocate(capacity: 1)
/// serial.initialize(to: 0)
/// lua.slotJournal.follow(serial)
/// serial.pointee = 1                        // an operation runs
/// try handlers.set(1, to: nil)
/// lua.slotJournal.rollBack(serial: 1)       // it failed: slot 1 holds its function again
/// lua.slotJournal.follow(nil)
/// ```
public struct LuaSlotJournal {
    let core: LuaCore

    /// Logs changes while the number at `serial` is above 0; it must stay valid until `follow(nil)` (or
    /// until the state closes).
    public func follow(_ serial: UnsafePointer<Int>?) {
        core.runtime.pointee.slotSerial = serial
    }

    /// The operation numbered `serial` failed: puts back the slots it (and those inside it) changed.
    public func rollBack(serial: Int) {
        guard let L = try? core.thread() else { return }
        clua_slot_rollback(L, serial)
    }

    /// No operation runs any more and none can fail: the log lets go of what it holds.
    public func commit() {
        guard let L = try? core.thread() else { return }
        clua_slot_commit(L)
    }
}

extension LuaState {
    /// The journal of this state's ``LuaFunctionSlots``.
    public var slotJournal: LuaSlotJournal { LuaSlotJournal(core: core) }
}
