import CCoordinatorLua
import CCoordinatorLuaGlue
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A view of one Lua thread's stack, used to push and read values.
///
/// You meet a `LuaStack` when conforming your own types to ``LuaPushable`` and ``LuaReadable``: push and
/// read values through it (``push(_:)``, ``read(_:at:)``, ``value(at:)``), which checks room and indices.
/// It is borrowed for the call that hands it to you and cannot outlive it (it is not copyable), so it is
/// never used after the state it belongs to is gone. Its raw primitives, which trust their caller, are the
/// package's own.
public struct LuaStack: ~Copyable {
    @usableFromInline let L: OpaquePointer
    @usableFromInline unowned(unsafe) let core: LuaCore // SAFETY[call-frame]

    @usableFromInline init(_ L: OpaquePointer, _ core: LuaCore) {
        self.L = L
        self.core = core
    }

    /// The index of the top value (the number of values on the stack).
    public var top: Int32 { lua_gettop(L) }

    /// Whether `index` names a value on the stack: 1...top, or -top...-1 counting from the top.
    @inlinable package func holds(_ index: Int32) -> Bool {
        let top = lua_gettop(L)
        return index > 0 ? index <= top : index < 0 && index >= -top
    }

    /// The type of the value at `index`.
    @inlinable package func type(at index: Int32) -> LuaType { LuaType(rawValue: lua_type(L, index)) ?? .none }

    /// Makes sure `extra` more slots fit on the stack.
    @inlinable package func reserve(_ extra: Int32) throws {
        guard lua_checkstack(L, extra) != 0 else { throw LuaError(.runtime, "stack overflow (nesting too deep)") }
    }

    // MARK: Pushing

    /// Pushes a Swift value.
    ///
    /// Throws "not enough memory" when the system ran out of memory while it was pushed.
    @inlinable public func push(_ value: some LuaPushable) throws {
        try reserve(1)
        try value.push(to: self)
        try checkMemory()
    }
    /// Pushes `nil`.
    @inlinable package func pushNil() { lua_pushnil(L) }
    /// Pushes a boolean.
    @inlinable package func pushBool(_ value: Bool) { lua_pushboolean(L, value ? 1 : 0) }
    /// Pushes an integer.
    @inlinable package func pushInteger(_ value: Int) { lua_pushinteger(L, lua_Integer(value)) }
    /// Pushes a float.
    @inlinable package func pushNumber(_ value: Double) { lua_pushnumber(L, value) }
    /// Pushes a string (its UTF-8 bytes, NUL bytes included).
    ///
    /// When the system is out of memory, `nil` is pushed instead and the next ``checkMemory()`` throws (a
    /// Lua memory error is never raised over Swift code).
    package func pushString(_ value: String) {
        var value = value
        value.withUTF8 { buffer in _ = coordlua_ppushlstring(L, buffer.baseAddress, buffer.count) }
    }
    /// Pushes a string made of exactly these bytes.
    package func pushBytes(_ bytes: some Collection<UInt8>) {
        let pushed: Bool? = bytes.withContiguousStorageIfAvailable { buffer in
            _ = buffer.withMemoryRebound(to: CChar.self) { coordlua_ppushlstring(L, $0.baseAddress, $0.count) } // SAFETY[c-buffer]
            return true
        }
        if pushed == nil { pushBytes(Array(bytes)) }
    }
    /// Pushes a new empty table with room for `array` list items and `record` other fields.
    ///
    /// Throws "not enough memory" (pushing nothing) when the system is out of memory (the table would be
    /// filled with memory there is not).
    @inlinable package func pushNewTable(array: Int = 0, record: Int = 0) throws {
        // Out of memory, the table came from the reserve (or is nil): nothing is left to build it with.
        guard coordlua_pcreatetable(L, Int32(clamping: array), Int32(clamping: record)) == LUA_OK,
              core.runtime.pointee.memoryShort == 0 else {
            pop()
            core.runtime.pointee.memoryShort = 0
            throw LuaError(.memory, "not enough memory")
        }
    }

    /// Throws "not enough memory" when the system ran out of memory while Swift code was making Lua values
    /// (what Lua would raise, raised as a Swift error instead of over Swift's frames). Code that pushes many
    /// values checks between them; a Swift function called from Lua is checked when it returns.
    @inlinable package func checkMemory() throws {
        guard core.runtime.pointee.memoryShort == 0 else {
            core.runtime.pointee.memoryShort = 0
            throw LuaError(.memory, "not enough memory")
        }
    }

    /// Pops a key and a value (pushed in that order) and sets `table[key] = value` without metamethods;
    /// `table` is an index below them (`-3` for the value just under the key).
    @inlinable package func rawSet(table: Int32) { lua_rawset(L, table) }
    /// Pops a value and sets `table[name] = value`, for a table without a metatable (one just made with
    /// ``pushNewTable(array:record:)``); `table` is an index below the value (`-2` for the one just under it).
    ///
    /// Faster than pushing the name and calling ``rawSet(table:)`` when the same names come again (the
    /// fields of records): Lua finds them in its cache of recent strings instead of hashing them.
    package func setField(_ name: String, ofNewTableAt table: Int32) {
        let count = name.utf8.count
        name.withCString { coordlua_setfield_bytes(L, table, $0, count) } // a NUL inside the name: set by its bytes
    }
    /// Removes `count` values from the top of the stack.
    @inlinable package func pop(_ count: Int32 = 1) { lua_settop(L, -count - 1) }

    /// Pops a value and sets `table[n] = value` without metamethods; `table` is an index below the value
    /// (`-2` for the one just under it).
    @inlinable package func setRawIndex(_ n: Int, ofTableAt table: Int32) { lua_rawseti(L, table, lua_Integer(n)) }

    /// Pushes a copy of the value at `index`.
    @inlinable package func pushCopy(of index: Int32) { lua_pushvalue(L, index) }

    /// Pops a table and makes it the metatable of the value at `index` (an index below the popped table).
    ///
    /// ```swift
    /// try stack.pushNewTable()                       // the proxy
    /// try stack.pushNewTable(record: 1)              // its metatable
    /// try stack.push(store); stack.setField("__index", ofNewTableAt: -2)
    /// stack.setMetatable(ofValueAt: -2)          // the proxy is on top again
    /// ```
    @inlinable package func setMetatable(ofValueAt index: Int32) { lua_setmetatable(L, index) }

    /// Pushes the field `name` of the metatable of the value at `index` (raw access) and returns its type;
    /// pushes nothing and returns `.nil` when there is no metatable or no such field.
    @inlinable package func pushMetafield(_ name: String, ofValueAt index: Int32) -> LuaType {
        LuaType(rawValue: luaL_getmetafield(L, index, name)) ?? .nil
    }

    /// The Swift object held by the userdata at `index` when it is one of a class registered with
    /// ``LuaState/register(_:name:_:)`` and an instance of `T`; nil for any other value.
    package func object<T: AnyObject>(at index: Int32, as type: T.Type = T.self) -> T? {
        core.classes.object(at: index, in: L, as: T.self)
    }

    /// The Swift object in the userdata at `index` when it was pushed as an object of the registration
    /// `tag` marks; nil for any other value. One comparison: no lookup, no cast.
    @inlinable package func object<T: AnyObject>(at index: Int32, tag: LuaClassTag<T>) -> T? {
        guard let pointer = coordlua_boxed_object(L, index, tag.pointer) else { return nil }
        return Unmanaged<T>.fromOpaque(pointer).takeUnretainedValue() // boxed with T's tag: a T // SAFETY[boxed-object]
    }

    /// ``object(at:tag:)`` for the field `name` of the metatable of the value at `index` (read raw),
    /// without pushing anything: how a library recognises its proxy tables.
    @inlinable package func object<T: AnyObject>(inMetafield name: StaticString, ofValueAt index: Int32, tag: LuaClassTag<T>) throws -> T? {
        try reserve(2)
        // A static string's bytes are NUL-terminated; a one-scalar literal has no bytes to point to.
        guard name.hasPointerRepresentation else { return objectInMetafield(name.description, ofValueAt: index, tag: tag) }
        let name = UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self) // SAFETY[c-buffer]
        guard let pointer = coordlua_metafield_object(L, index, name, tag.pointer) else { return nil }
        return Unmanaged<T>.fromOpaque(pointer).takeUnretainedValue() // boxed with T's tag: a T // SAFETY[boxed-object]
    }

    @usableFromInline func objectInMetafield<T: AnyObject>(_ name: String, ofValueAt index: Int32, tag: LuaClassTag<T>) -> T? {
        guard let pointer = name.withCString({ coordlua_metafield_object(L, index, $0, tag.pointer) }) else { return nil }
        return Unmanaged<T>.fromOpaque(pointer).takeUnretainedValue() // SAFETY[boxed-object]
    }

    /// Pushes a table holding `elements` as a list (`t[1]`, `t[2]`, ...).
    @inlinable package func pushList<S: Sequence>(_ elements: S) throws where S.Element: LuaPushable {
        try reserve(3)
        try pushNewTable(array: elements.underestimatedCount)
        var i: lua_Integer = 0
        for element in elements {
            do { try element.push(to: self); try checkMemory() } catch { lua_settop(L, -2); throw error }
            i += 1
            lua_rawseti(L, -2, i)
        }
    }

    /// Pushes a table holding these key-value pairs. Throws (and pushes nothing) for a `nil` or NaN key.
    @inlinable package func pushRecord<S: Sequence, K: LuaPushable, V: LuaPushable>(_ pairs: S) throws where S.Element == (K, V) {
        try reserve(4)
        try pushNewTable(record: pairs.underestimatedCount)
        for (key, value) in pairs {
            do {
                try key.push(to: self)
                do { try checkMemory() } catch { lua_settop(L, -2); throw error }
                let keyType = lua_type(L, -1)
                if keyType == LUA_TNIL || (keyType == LUA_TNUMBER && lua_tonumberx(L, -1, nil).isNaN) {
                    lua_settop(L, -2)
                    throw LuaError(.type, "table index is \(keyType == LUA_TNIL ? "nil" : "NaN")")
                }
                do { try value.push(to: self) } catch { lua_settop(L, -2); throw error }
                do { try checkMemory() } catch { lua_settop(L, -3); throw error }
            } catch { lua_settop(L, -2); throw error }
            lua_rawset(L, -3)
        }
    }

    // MARK: Walking tables in place
    //
    // For converters that read whole tables into Swift values: no references, no intermediate arrays.
    //
    // ```swift
    // let table = stack.absoluteIndex(index)
    // stack.pushNil()
    // while stack.next(inTableAt: table) {      // key at -2, value at -1
    //     ...
    //     stack.pop()                           // the value; the key stays for the next step
    // }
    // ```

    /// `index` as an absolute position, which stays valid while values are pushed.
    @inlinable package func absoluteIndex(_ index: Int32) -> Int32 { lua_absindex(L, index) }

    /// The raw length of the table or string at `index` (`#` without `__len`).
    @inlinable package func rawLength(at index: Int32) -> Int { Int(lua_rawlen(L, index)) }

    /// Pushes `t[n]` of the table at `table`, without metamethods, and returns its type.
    @inlinable @discardableResult
    package func pushRawIndex(_ n: Int, ofTableAt table: Int32) -> LuaType {
        LuaType(rawValue: lua_rawgeti(L, table, lua_Integer(n))) ?? .none
    }

    /// Pops a key and pushes `t[key]` of the table at `table` (an index below the key), without
    /// metamethods; returns its type.
    @inlinable @discardableResult
    package func rawGet(inTableAt table: Int32) -> LuaType { LuaType(rawValue: lua_rawget(L, table)) ?? .none }

    /// One step of a raw traversal of the table at `table`: pops a key and pushes the next key and its
    /// value, or pushes nothing and returns false after the last pair. Start with ``pushNil()``; do not
    /// change the key while traversing (read a number key with ``isInteger(at:)`` and ``read(_:at:)``
    /// only: converting it to a string in place breaks the traversal).
    @inlinable package func next(inTableAt table: Int32) -> Bool { lua_next(L, table) != 0 }

    /// Whether the value at `index` is a number with an integer representation (`math.type` "integer").
    @inlinable package func isInteger(at index: Int32) -> Bool { lua_isinteger(L, index) != 0 }

    /// The identity of the table (or function, userdata, thread) at `index`: the same while that value
    /// lives, and possibly reused for another value once it is collected. Nil for other values.
    @inlinable package func pointer(at index: Int32) -> UnsafeRawPointer? { lua_topointer(L, index) } // SAFETY[identity-address]

    /// Calls `body` with the bytes of the string at `index`, in place (no copy, no conversion of numbers),
    /// or returns nil when the value is not a string. The bytes are valid only during `body`.
    @inlinable package func withStringBytes<R>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? { // SAFETY[c-buffer]
        guard lua_type(L, index) == LUA_TSTRING else { return nil }
        let string = coordlua_tostring_bytes(L, index)
        return try body(UnsafeRawBufferPointer(start: string.bytes, count: string.length)) // SAFETY[c-buffer]
    }

    /// The integer at `index` when it is a number with an integer representation, else nil (no conversion
    /// of strings or floats).
    @inlinable package func integer(at index: Int32) -> Int? {
        lua_type(L, index) == LUA_TNUMBER && lua_isinteger(L, index) != 0 ? Int(lua_tointegerx(L, index, nil)) : nil
    }

    /// The number at `index` when it is a number (integer or float), else nil (no conversion of strings).
    @inlinable package func number(at index: Int32) -> Double? {
        lua_type(L, index) == LUA_TNUMBER ? lua_tonumberx(L, index, nil) : nil
    }

    /// The boolean at `index` when it is a boolean, else nil.
    @inlinable package func boolean(at index: Int32) -> Bool? {
        lua_type(L, index) == LUA_TBOOLEAN ? lua_toboolean(L, index) != 0 : nil
    }

    /// Per-state storage for a library built on CoordinatorLua: the object of class `T` kept with this state, made
    /// by `make` the first time. It lives as long as the state.
    ///
    /// ```swift
    /// final class Cache { var hits = 0 }
    /// stack.attachment { Cache() }.hits += 1
    /// ```
    /// Bytes the state may still allocate under its memory limit (negative when over it), or nil when
    /// it has none: for a bridge that allocates for Lua in Swift (data conversion) and must stay under it.
    package var memoryHeadroom: Int? {
        let runtime = core.runtime.pointee
        return runtime.limit == 0 ? nil : Int(runtime.limit) - Int(runtime.used)
    }

    @inlinable package func attachment<T: AnyObject>(_ make: () -> T) -> T {
        let key = ObjectIdentifier(T.self)
        if let object = core.attachment(key) { return unsafeDowncast(object, to: T.self) } // SAFETY[attachment-type]: stored under T's identifier, so a T
        let object = make()
        core.attachments.append((key, object))
        return object
    }

    // MARK: Views

    /// Pushes the view stored under `key` and returns true, or pushes nothing and returns false.
    ///
    /// Views are Lua values a library made for Swift values, found again by an address while Lua holds
    /// them: the state keeps them in a registry table whose values are weak (`__mode = "v"`), so a view
    /// goes when the collector takes it. The key is an address that stays unique while the view lives (for
    /// instance, storage the view itself keeps alive). Until a view is set, this is one comparison.
    ///
    /// ```swift
    /// try stack.setView(for: address, toValueAt: -1)   // the Lua value made for the storage at `address`
    /// if try stack.pushView(for: address) { ... }      // that value again, while Lua holds it
    /// ```
    @inlinable package func pushView(for key: UnsafeRawPointer) throws -> Bool { // SAFETY[identity-address]
        let ref = core.viewsRef
        guard ref != LUA_NOREF else { return false }
        try reserve(2)
        return coordlua_weakmap_get(L, ref, key) != 0
    }

    /// Stores the value at `index` as the view for `key` (nil removes it); the stack is unchanged.
    package func setView(for key: UnsafeRawPointer, toValueAt index: Int32) throws { // SAFETY[identity-address]
        try reserve(3)
        if core.viewsRef == LUA_NOREF { core.viewsRef = coordlua_weakmap_new(L) }
        coordlua_weakmap_set(L, core.viewsRef, key, index)
    }

    // MARK: Reading

    /// Reads the value at `index` as a Swift type.
    public func read<T: LuaReadable>(_ type: T.Type = T.self, at index: Int32) throws -> T {
        guard holds(index) else { throw LuaError(.type, "no value at stack index \(index) (the stack holds \(top))") }
        return try T.read(from: self, at: index)
    }

    /// The value at `index` as a ``LuaValue`` (tables, functions, userdata and threads by reference).
    public func value(at index: Int32) -> LuaValue {
        guard holds(index) else { return .nil }
        switch lua_type(L, index) {
        case LUA_TBOOLEAN: return .boolean(lua_toboolean(L, index) != 0)
        case LUA_TNUMBER:
            return lua_isinteger(L, index) != 0 ? .integer(Int(coordlua_tointeger(L, index).value)) : .number(lua_tonumberx(L, index, nil))
        case LUA_TSTRING: return .string(LuaString(bytes: rawBytes(at: index)))
        case LUA_TTABLE: return .table(LuaTable(reference: core.reference(at: index, in: L)))
        case LUA_TFUNCTION: return .function(LuaFunction(reference: core.reference(at: index, in: L)))
        case LUA_TUSERDATA: return .userdata(LuaUserdata(reference: core.reference(at: index, in: L)))
        case LUA_TTHREAD: return .thread(LuaThread(reference: core.reference(at: index, in: L)))
        case LUA_TLIGHTUSERDATA: return .lightUserdata(lua_touserdata(L, index))
        default: return .nil
        }
    }

    /// The bytes of the string at `index` (the value must be a string).
    func rawBytes(at index: Int32) -> [UInt8] {
        let string = coordlua_tostring_bytes(L, index)
        guard let pointer = string.bytes else { return [] }
        let count = string.length
        return pointer.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) } // SAFETY[c-buffer]
    }

    /// The string at `index` decoded as UTF-8 (the value must be a string).
    func rawString(at index: Int32) -> String {
        let string = coordlua_tostring_bytes(L, index)
        guard let pointer = string.bytes, string.length > 0 else { return "" }
        let length = string.length
        // Copies the bytes straight into the string's storage; invalid UTF-8 is repaired (U+FFFD), as
        // `String(decoding:as:)` does, without its generic path (a metadata lookup per string).
        func decode() -> String {
            String(unsafeUninitializedCapacity: length) { buffer in
                UnsafeRawPointer(pointer).withMemoryRebound(to: UInt8.self, capacity: length) { source in // SAFETY[c-buffer]
                    _ = buffer.initialize(from: UnsafeBufferPointer(start: source, count: length)) // SAFETY[c-buffer]
                }
                return length
            }
        }
        guard length <= LuaStringCache.longest else { return decode() }
        return core.strings.string(at: index, in: L, bytes: UnsafeRawPointer(pointer), decode: decode) // SAFETY[identity-address]
    }

    /// What Lua's `tostring` gives for the value at `index` (honours `__tostring` and `__name`, protected).
    /// Never throws: a failing `__tostring` is described instead.
    package func display(at index: Int32) -> String {
        let index = lua_absindex(L, index)
        if coordlua_ptostring(L, index) != LUA_OK {
            let failure = lua_type(L, -1) == LUA_TSTRING ? rawString(at: -1) : "error"
            lua_settop(L, -2)
            return "(\(type(at: index).name): __tostring failed: \(failure))"
        }
        let text = rawString(at: -1)
        lua_settop(L, -2)
        return text
    }

    /// Why the value at `index` is not an integer (out of line: the readers' fast path stays small).
    @usableFromInline @inline(never) func integerError(at index: Int32) -> LuaError {
        guard lua_type(L, index) == LUA_TNUMBER else { return typeError(expected: "number", at: index) }
        return LuaError(.type, "number has no integer representation")
    }

    @usableFromInline func typeError(expected: String, at index: Int32) -> LuaError {
        LuaError(.type, "\(expected) expected, got \(typeDescription(at: index))")
    }

    /// The type name used in messages: `__name` of a userdata's metatable where there is one.
    func typeDescription(at index: Int32) -> String {
        if lua_type(L, index) == LUA_TUSERDATA, luaL_getmetafield(L, index, "__name") == LUA_TSTRING {
            let name = rawString(at: -1)
            lua_settop(L, -2)
            return name
        }
        return type(at: index).name
    }
}
