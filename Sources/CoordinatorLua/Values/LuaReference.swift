import CCoordinatorLua
import CCoordinatorLuaGlue

/// A registry reference that keeps one Lua value alive for Swift.
///
/// Released explicitly with ``release()`` (immediately), or when the last Swift copy goes away (at the
/// state's next safe point, never from inside an arbitrary deinit), or when the state closes.
@usableFromInline final class LuaReference: Hashable {
    @usableFromInline let core: LuaCore
    private(set) var ref: Int32
    /// When the slot was taken, as images count time (``LuaImages``): a restore to an image taken before
    /// it leaves the slot free, and the reference dead.
    let era: Int
    /// The Lua object's address: its identity while the reference keeps it alive.
    let pointer: UnsafeRawPointer? // SAFETY[identity-address]

    init(core: LuaCore, ref: Int32, era: Int, pointer: UnsafeRawPointer?) { // SAFETY[identity-address]
        self.core = core
        self.ref = ref
        self.era = era
        self.pointer = pointer
    }

    deinit {
        if ref >= 0, !core.isClosed { core.pendingUnrefs.append(PendingUnref(slot: ref, era: era)) }
    }

    var isValid: Bool { ref >= 0 && !core.isClosed && !core.images.isDead(era) }

    /// Pushes the value onto `stack`, which must belong to the same state.
    func push(on stack: borrowing LuaStack) throws(LuaError) {
        guard stack.core === core else { throw LuaError(.misuse, "a Lua value was used with another Lua state") }
        try pushValue(stack.L)
    }

    /// Pushes the value onto thread L of this reference's own state.
    @usableFromInline func pushValue(_ L: OpaquePointer) throws(LuaError) {
        coordlua_rawgetref(L, try slot())
    }

    /// The registry slot, while the value is held and the state open.
    @usableFromInline func slot() throws(LuaError) -> Int32 {
        guard !core.isClosed else { throw LuaError(.misuse, "the Lua state is closed") }
        guard ref >= 0 else { throw LuaError(.misuse, "the Lua value was released") }
        guard !core.images.isDead(era) else {
            throw LuaError(.misuse, "the Lua value was made after the image the heap was restored to")
        }
        return ref
    }

    /// Gives up the registry slot to the caller, who releases it from now on (`LUA_NOREF` when released).
    func take() -> Int32 {
        defer { ref = LUA_NOREF }
        return core.isClosed ? LUA_NOREF : ref
    }

    func release() {
        guard ref >= 0 else { return }
        if !core.isClosed {
            core.pendingUnrefs.append(PendingUnref(slot: ref, era: era))
            core.drainUnrefs()
        }
        ref = LUA_NOREF
    }

    var addressDescription: String { "0x" + String(UInt(bitPattern: pointer), radix: 16) }

    @usableFromInline static func == (lhs: LuaReference, rhs: LuaReference) -> Bool { lhs.pointer == rhs.pointer && lhs.core === rhs.core }
    @usableFromInline func hash(into hasher: inout Hasher) { hasher.combine(pointer) }
}

/// Runs `body` with the value of `reference` pushed on the current thread, restoring the stack afterwards.
@inline(__always)
func withPushed<R>(_ reference: LuaReference, _ body: (borrowing LuaStack, Int32) throws -> R) throws -> R {
    let core = reference.core
    let L = try core.thread()
    let top = lua_gettop(L)
    defer { lua_settop(L, top) }
    try reference.pushValue(L)
    return try body(LuaStack(L, core), top + 1)
}

/// A Lua table held from Swift.
///
/// ```swift
/// let config = try lua.evaluate("return { name = 'app', sizes = {1, 2, 3} }", as: LuaTable.self)
/// let name: String = try config.get("name")
/// let sizes: [Int] = try config.get("sizes")
/// try config.set("debug", true)
/// ```
public struct LuaTable: LuaPushable, LuaReadable {
    @usableFromInline let reference: LuaReference

    init(reference: LuaReference) { self.reference = reference }

    /// `t[key]`, honouring `__index`, converted to `T`.
    public func get<T: LuaReadable>(_ key: some LuaPushable, as type: T.Type = T.self) throws -> T {
        try withPushed(reference) { stack, table in
            try stack.push(key)
            let status = coordlua_pgettable(stack.L, table)
            if status != LUA_OK { throw stack.core.popError(stack.L, status: status) }
            return try T.read(from: stack, at: -1)
        }
    }

    /// `t[key]`, honouring `__index`.
    public subscript(key: some LuaPushable) -> LuaValue {
        get throws { try get(key, as: LuaValue.self) }
    }

    /// `t[key] = value`, honouring `__newindex`.
    public func set(_ key: some LuaPushable, _ value: some LuaPushable) throws {
        try withPushed(reference) { stack, table in
            try stack.push(key)
            try stack.push(value)
            let status = coordlua_psettable(stack.L, table)
            if status != LUA_OK { throw stack.core.popError(stack.L, status: status) }
        }
    }

    /// The table's metatable, if it has one.
    public var metatable: LuaTable? {
        try? withPushed(reference) { stack, table in
            guard lua_getmetatable(stack.L, table) != 0 else { return nil }
            return try LuaTable.read(from: stack, at: -1)
        }
    }

    /// `rawget(t, key)`.
    public func rawGet<T: LuaReadable>(_ key: some LuaPushable, as type: T.Type = T.self) throws -> T {
        try withPushed(reference) { stack, table in
            try stack.push(key)
            lua_rawget(stack.L, table)
            return try T.read(from: stack, at: -1)
        }
    }

    /// Calls the method `name` on the table, as `t:name(arguments...)` does: `t[name]` is looked up honouring
    /// `__index` and, when it is a function, called with the table as `self` (its results dropped). Returns
    /// what the field held: `.function` when it was called; anything else is left uncalled, for the caller
    /// to judge (`.nil`: there is no such method).
    ///
    /// ```swift
    /// let counter = try lua.evaluate("return { n = 0, add = function(self, k) self.n = self.n + k end }", as: LuaTable.self)
    /// try counter.callMethod("add", 5)        // .function; counter.n is 5
    /// try counter.callMethod("missing")       // .nil; nothing called
    /// ```
    @discardableResult
    @inlinable public func callMethod<each A: LuaPushable>(_ name: String, _ arguments: repeat each A) throws -> LuaType {
        try reference.core.callMethod(table: reference.slot(), name: name, repeat each arguments)
    }

    /// Calls `t[name](arguments...)` (without `self`; the field read honouring `__index`) when the field is a
    /// function, and returns the field's type. `before` runs between the read and the call: the function is
    /// on the Lua stack meanwhile, so `before` may drop the table's last other holder (a finished flow does).
    ///
    /// ```swift
    /// let t = try lua.evaluate("return { onDone = function(x) print('done', x) end }", as: LuaTable.self)
    /// try t.callField("onDone", 42) { print("before") }   // before, done 42; .function
    /// ```
    @discardableResult
    @inlinable package func callField<each A: LuaPushable>(
        _ name: String, _ arguments: repeat each A, before: () -> Void = {}
    ) throws -> LuaType {
        try reference.core.callField(table: reference.slot(), name: name, repeat each arguments, before: before)
    }

    /// `rawset(t, key, value)`; a `nil` or NaN key is an error.
    public func rawSet(_ key: some LuaPushable, _ value: some LuaPushable) throws {
        try withPushed(reference) { stack, table in
            try stack.push(key)
            let keyType = lua_type(stack.L, -1)
            if keyType == LUA_TNIL || (keyType == LUA_TNUMBER && lua_tonumberx(stack.L, -1, nil).isNaN) {
                throw LuaError(.type, "table index is \(keyType == LUA_TNIL ? "nil" : "NaN")")
            }
            try stack.push(value)
            lua_rawset(stack.L, table)
        }
    }

    /// The raw length of the list part (`rawlen(t)`).
    public var count: Int {
        (try? withPushed(reference) { stack, table in Int(lua_rawlen(stack.L, table)) }) ?? 0
    }

    /// Every key-value pair (raw, in Lua's `next` order).
    public func pairs() throws -> [(key: LuaValue, value: LuaValue)] {
        try withPushed(reference) { stack, table in
            var result: [(key: LuaValue, value: LuaValue)] = []
            try stack.reserve(3)
            lua_pushnil(stack.L)
            while lua_next(stack.L, table) != 0 {
                result.append((stack.value(at: -2), stack.value(at: -1)))
                lua_settop(stack.L, -2)
            }
            return result
        }
    }

    /// The keys that are strings (raw, in Lua's `next` order), without reading the values: cheaper than
    /// ``pairs()`` when the values are tables or functions.
    public func stringKeys() throws -> [String] {
        try withPushed(reference) { stack, table in
            var result: [String] = []
            try stack.reserve(3)
            lua_pushnil(stack.L)
            while lua_next(stack.L, table) != 0 {
                if lua_type(stack.L, -2) == LUA_TSTRING { result.append(stack.rawString(at: -2)) }
                lua_settop(stack.L, -2)
            }
            return result
        }
    }

    /// The table converted to a Swift type, such as `[Int]` or `[String: [String: Double]]`.
    public func decode<T: LuaReadable>(_ type: T.Type = T.self) throws -> T {
        try withPushed(reference) { stack, table in try T.read(from: stack, at: table) }
    }

    /// Releases the reference now; later uses of this value (and its copies) throw.
    public func release() { reference.release() }

    /// Whether the table can still be used: not released, its state open, and not made after the image
    /// the state's heap was last restored to (``LuaImage``). A cache of tables made on first need asks it.
    package var isAlive: Bool { reference.isValid }

    public func push(to stack: borrowing LuaStack) throws { try reference.push(on: stack) }

    public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> LuaTable {
        guard lua_type(stack.L, index) == LUA_TTABLE else { throw stack.typeError(expected: "table", at: index) }
        return LuaTable(reference: stack.core.reference(at: index, in: stack.L))
    }
}

/// A Lua function held from Swift: a Lua function, a C function, or a Swift closure registered with
/// `LuaState.function(name:_:)`.
///
/// ```swift
/// let add = try lua.evaluate("return function(a, b) return a + b end", as: LuaFunction.self)
/// let sum: Int = try add.call(2, 3)        // 5
/// let all = try add.callValues(2, 3)       // [.integer(5)]
/// try add.call(2, 3)                       // results dropped: the fastest way to run a handler
/// ```
public struct LuaFunction: LuaPushable, LuaReadable {
    @usableFromInline let reference: LuaReference

    init(reference: LuaReference) { self.reference = reference }

    /// Whether the function can still be used: not released, its state open, and not made after the image
    /// the state's heap was last restored to (``LuaImage``). A cache of functions made on first need asks it.
    package var isAlive: Bool { reference.isValid }

    /// The function as `lua` runs a program's chunk: called from a C function, so that a traceback ends
    /// with that frame (`[C]: in ?`) as the stand-alone interpreter's do (its chunks run under `pmain`).
    package func asProgram() throws -> LuaFunction {
        let core = reference.core
        let L = try core.thread()
        try reference.push(on: LuaStack(L, core))
        lua_pushcclosure(L, coordlua_program, 1)
        defer { lua_settop(L, -2) }
        return LuaFunction(reference: core.reference(at: -1, in: L))
    }

    /// Calls the function and drops its results. The arguments are passed as they are (no array, no
    /// boxing), so this is the call to use for handlers that run often.
    @inlinable public func call<each A: LuaPushable>(_ arguments: repeat each A) throws {
        try reference.core.call(function: reference.slot(), repeat each arguments)
    }

    /// Calls the function and hands its results to `body` while they are still on the Lua stack: only
    /// what `body` reads is converted, so a function that returns nothing costs no allocation.
    ///
    /// ```swift
    /// let (sum, note) = try f.call(2, 3) { results in
    ///     (try results.read(1, as: Int.self), results.isNil(2) ? nil : try results.read(2, as: String.self))
    /// }
    /// ```
    @inlinable public func call<each A: LuaPushable, R>(
        _ arguments: repeat each A, withResults body: (borrowing LuaResults) throws -> R
    ) throws -> R {
        try reference.core.call(function: reference.slot(), repeat each arguments, withResults: body)
    }

    /// Calls the function and returns all of its results.
    @discardableResult
    public func callValues(_ arguments: any LuaPushable...) throws -> [LuaValue] {
        try callValues(arguments: arguments)
    }

    /// Calls the function with an array of arguments and returns all of its results.
    @discardableResult
    public func callValues(arguments: [any LuaPushable]) throws -> [LuaValue] {
        let count = Int32(clamping: arguments.count)
        let pending = try begin(arguments: count)
        let stack = pending.stack
        defer { lua_settop(stack.L, pending.top) }
        for argument in arguments { try argument.push(to: stack) }
        try run(pending, arguments: count, results: LUA_MULTRET)
        return (pending.firstResult..<lua_gettop(stack.L) + 1).map { stack.value(at: $0) }
    }

    /// Calls the function and converts its first result to `R`.
    public func call<R: LuaReadable>(_ arguments: any LuaPushable..., as type: R.Type = R.self) throws -> R {
        let count = Int32(clamping: arguments.count)
        let pending = try begin(arguments: count)
        let stack = pending.stack
        defer { lua_settop(stack.L, pending.top) }
        for argument in arguments { try argument.push(to: stack) }
        try run(pending, arguments: count, results: 1)
        return try R.read(from: stack, at: -1)
    }

    /// The start of every call from Swift (see `LuaCore.beginCall`): the caller restores the top when
    /// done (`defer`), pushes the arguments and calls ``run``.
    @inlinable func begin(arguments count: Int32) throws -> PendingCall {
        try reference.core.beginCall(arguments: count, function: reference.slot())
    }

    /// The protected call of a call started with ``begin(arguments:)``.
    @inlinable func run(_ pending: PendingCall, arguments count: Int32, results: Int32) throws {
        try reference.core.pcall(pending, arguments: count, results: results)
    }

    /// Releases the reference now.
    public func release() { reference.release() }

    public func push(to stack: borrowing LuaStack) throws { try reference.push(on: stack) }

    public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> LuaFunction {
        guard lua_type(stack.L, index) == LUA_TFUNCTION else { throw stack.typeError(expected: "function", at: index) }
        return LuaFunction(reference: stack.core.reference(at: index, in: stack.L))
    }
}

/// A full userdata held from Swift; for userdata that wrap a Swift object, ``object(as:)`` returns it.
public struct LuaUserdata: LuaPushable, LuaReadable {
    let reference: LuaReference

    init(reference: LuaReference) { self.reference = reference }

    /// The Swift object this userdata wraps, if it wraps one of type `T`.
    public func object<T: AnyObject>(as type: T.Type = T.self) -> T? {
        try? withPushed(reference) { stack, index in stack.core.classes.object(at: index, in: stack.L, as: T.self) }
    }

    /// Releases the reference now.
    public func release() { reference.release() }

    public func push(to stack: borrowing LuaStack) throws { try reference.push(on: stack) }

    public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> LuaUserdata {
        guard lua_type(stack.L, index) == LUA_TUSERDATA else { throw stack.typeError(expected: "userdata", at: index) }
        return LuaUserdata(reference: stack.core.reference(at: index, in: stack.L))
    }
}

/// A Lua coroutine held from Swift.
public struct LuaThread: LuaPushable, LuaReadable {
    let reference: LuaReference

    init(reference: LuaReference) { self.reference = reference }

    /// Releases the reference now.
    public func release() { reference.release() }

    public func push(to stack: borrowing LuaStack) throws { try reference.push(on: stack) }

    public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> LuaThread {
        guard lua_type(stack.L, index) == LUA_TTHREAD else { throw stack.typeError(expected: "thread", at: index) }
        return LuaThread(reference: stack.core.reference(at: index, in: stack.L))
    }
}

/// The results of a call, read in place on the Lua stack (see ``LuaFunction/call(_:withResults:)``).
/// Valid only inside the closure it is handed to.
public struct LuaResults: ~Copyable {
    @usableFromInline let stack: LuaStack
    @usableFromInline let base: Int32
    /// How many values the function returned.
    public let count: Int

    @usableFromInline init(stack: consuming LuaStack, base: Int32, count: Int32) {
        self.stack = stack
        self.base = base
        self.count = Int(count)
    }

    /// Whether result `n` (1-based) is nil or missing.
    public func isNil(_ n: Int) -> Bool { n < 1 || n > count || stack.type(at: index(n)) == .nil }

    /// Result `n` (1-based) as a ``LuaValue`` (nil when missing).
    public subscript(n: Int) -> LuaValue { n < 1 || n > count ? .nil : stack.value(at: index(n)) }

    /// Result `n` (1-based) read as `T` (a missing result reads as nil).
    public func read<T: LuaReadable>(_ n: Int, as type: T.Type = T.self) throws -> T {
        guard n >= 1, n <= count else {
            try stack.reserve(1)
            stack.pushNil()
            defer { stack.pop() }
            return try T.read(from: stack, at: -1)
        }
        return try T.read(from: stack, at: index(n))
    }

    func index(_ n: Int) -> Int32 { base + Int32(n) - 1 }
}
