import CCoordinatorLua
import CCoordinatorLuaGlue

/// The arguments and results of one call from Lua into a Swift closure or method.
///
/// Argument numbers start at 1, as in Lua; for methods, argument 1 is the first one after `self`. Results
/// are whatever the closure pushes, in order. A `LuaCall` is valid only while the closure runs.
///
/// ```swift
/// lua.globals["greet"] = lua.function(name: "greet") { call in
///     let name = try call.string(1)
///     let times = try call.optional(2, as: Int.self) ?? 1
///     try call.push(String(repeating: "hi \(name) ", count: times))
/// }
/// ```
///
/// A wrong argument becomes a Lua error in Lua's own words, located at the calling Lua line:
/// `app.lua:3: bad argument #1 to 'greet' (string expected, got table)`.
public struct LuaCall: ~Copyable {
    // The argument readers are inlinable: a closure reading `call.integer(1)` then compiles down to the
    // C API calls, which is most of what separates a Swift method from a C function.
    @usableFromInline let L: OpaquePointer
    @usableFromInline unowned(unsafe) let core: LuaCore // SAFETY[call-frame]
    @usableFromInline let base: Int32
    @usableFromInline let offset: Int32
    unowned(unsafe) let callee: LuaCallableBox // SAFETY[call-frame]: the running Lua closure holds it

    init(_ L: OpaquePointer, _ core: LuaCore, base: Int32, offset: Int32, callee: LuaCallableBox) {
        self.L = L
        self.core = core
        self.base = base
        self.offset = offset
        self.callee = callee
    }

    /// The name the function was registered with, used in error messages.
    public var name: String { callee.name }

    /// The stack of the calling thread.
    @inlinable package var stack: LuaStack { LuaStack(L, core) }

    /// The state that runs the call, for creating tables and functions or calling back into Lua.
    public var state: LuaState? { core.owner }

    /// The number of arguments (not counting `self` for methods).
    public var count: Int { Int(base - offset) }

    /// The Lua type of argument `n` (`.none` when absent).
    public func type(_ n: Int) -> LuaType { stack.type(at: index(n)) }

    /// Argument `n` converted to `T`; an absent or mistyped argument is a `bad argument` error.
    @inlinable public func argument<T: LuaReadable>(_ n: Int, as type: T.Type = T.self) throws -> T {
        let i = index(n)
        do { return try T.read(from: stack, at: i) } catch let error as LuaError where error.kind == .type {
            throw badArgument(n, error.message)
        }
    }

    /// Argument `n` converted to `T`, or `nil` when it is absent or `nil`.
    @inlinable public func optional<T: LuaReadable>(_ n: Int, as type: T.Type = T.self) throws -> T? {
        lua_type(L, index(n)) <= LUA_TNIL ? nil : try argument(n, as: T.self)
    }

    /// Argument `n` as an integer.
    @inlinable public func integer(_ n: Int) throws -> Int { try argument(n, as: Int.self) }
    /// Argument `n` as a float.
    @inlinable public func number(_ n: Int) throws -> Double { try argument(n, as: Double.self) }
    /// Argument `n` as a string.
    @inlinable public func string(_ n: Int) throws -> String { try argument(n, as: String.self) }
    /// Argument `n` as a boolean.
    @inlinable public func boolean(_ n: Int) throws -> Bool { try argument(n, as: Bool.self) }
    /// Argument `n` as a ``LuaValue`` (nil when absent).
    public func value(_ n: Int) -> LuaValue { stack.value(at: index(n)) }

    /// Where the Lua code that called this function is, as `chunk:line` (`app_test.lua:12`): the first
    /// caller that is not the runtime's own Lua (`=[...]` chunks); nil when there is none.
    package var callerLocation: String? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1024) { buffer -> String? in // SAFETY[c-buffer]
            guard let base = buffer.baseAddress else { return nil }
            var line: Int32 = 0
            guard coordlua_caller(L, 1, base, 1024, &line) != 0 else { return nil }
            return String(cString: base) + ":\(line)"
        }
    }
    /// Every argument as ``LuaValue``s.
    public var values: [LuaValue] { (0..<count).map { value($0 + 1) } }

    /// Argument `n` as the Swift object wrapped by a userdata of a registered class.
    public func object<T: AnyObject>(_ n: Int, as type: T.Type = T.self) throws -> T {
        let i = index(n)
        guard let object = core.classes.object(at: i, in: L, as: T.self) else {
            throw badArgument(n, "\(core.classes.className(of: T.self) ?? String(describing: T.self)) expected, got \(stack.typeDescription(at: i))")
        }
        return object
    }

    /// Pushes one result (as many as you like: room is made as they grow).
    @inlinable @inline(__always) public func push(_ value: some LuaPushable) throws {
        // Lua gives a Swift function's C trampoline LUA_MINSTACK (20) free slots besides its arguments: room
        // is asked for only past the first 16 results.
        if lua_gettop(L) &- base >= 16 { try stack.reserve(1) }
        try value.push(to: stack)
    }

    /// Pushes the one result of a function that returns one (Lua guarantees room for it): the bridge's own
    /// functions, without asking for room.
    @inlinable package func pushResult(_ value: some LuaPushable) throws { try value.push(to: stack) }

    /// Pushes several results.
    public func push(values: [LuaValue]) throws {
        try stack.reserve(Int32(clamping: values.count))
        for value in values { try value.push(to: stack) }
    }

    /// An error that reads like Lua's own `bad argument` errors.
    public func badArgument(_ n: Int, _ message: String) -> LuaError {
        LuaError(.runtime, "bad argument #\(n) to '\(name)' (\(message))")
    }

    /// The stack index of argument `n`, for reading it in place through ``stack``; for a number that is no
    /// argument (below 1, above ``count``), the slot above the top, where nothing is.
    @inlinable package func index(_ n: Int) -> Int32 {
        n >= 1 && n <= count ? Int32(truncatingIfNeeded: n) &+ offset : lua_gettop(L) &+ 1
    }
}

extension LuaState {
    /// Makes a Lua function that runs a Swift closure.
    ///
    /// The closure reads its arguments from the ``LuaCall`` and pushes its results onto it. A Swift error
    /// it throws becomes a Lua error that Lua code can catch with `pcall`; if nothing in Lua catches it, the
    /// Swift caller receives a ``LuaError`` whose ``LuaError/underlying`` is the original error. No
    /// `longjmp` ever crosses the closure: it returns to a C trampoline, which raises the error afterwards.
    ///
    /// ```swift
    /// lua.globals["clamp"] = lua.function(name: "clamp") { call in
    ///     let (x, lo, hi) = (try call.number(1), try call.number(2), try call.number(3))
    ///     guard lo <= hi else { throw call.badArgument(2, "lower bound above upper bound") }
    ///     try call.push(min(max(x, lo), hi))
    /// }
    /// ```
    public func function(name: String = "?", _ body: @escaping (borrowing LuaCall) throws -> Void) -> LuaFunction {
        core.makeFunction(name: name, body)
    }

    /// Makes a Lua function from a typed Swift closure with no arguments.
    public func function<R: LuaPushable>(name: String = "?", _ body: @escaping () throws -> R) -> LuaFunction {
        core.makeFunction(name: name) { call in try call.pushResult(try body()) }
    }

    /// Makes a Lua function from a typed Swift closure of one argument.
    ///
    /// ```swift
    /// lua.globals["double"] = lua.function(name: "double") { (x: Int) in x * 2 }
    /// ```
    public func function<A: LuaReadable, R: LuaPushable>(name: String = "?", _ body: @escaping (A) throws -> R) -> LuaFunction {
        core.makeFunction(name: name) { call in try call.pushResult(try body(call.argument(1))) }
    }

    /// Makes a Lua function from a typed Swift closure of two arguments.
    public func function<A: LuaReadable, B: LuaReadable, R: LuaPushable>(
        name: String = "?", _ body: @escaping (A, B) throws -> R
    ) -> LuaFunction {
        core.makeFunction(name: name) { call in try call.pushResult(try body(call.argument(1), call.argument(2))) }
    }

    /// Makes a Lua function from a typed Swift closure of three arguments.
    public func function<A: LuaReadable, B: LuaReadable, C: LuaReadable, R: LuaPushable>(
        name: String = "?", _ body: @escaping (A, B, C) throws -> R
    ) -> LuaFunction {
        core.makeFunction(name: name) { call in
            try call.pushResult(try body(call.argument(1), call.argument(2), call.argument(3)))
        }
    }
}

extension LuaCore {
    /// Pushes a box userdata holding a retained Swift object; its `__gc` releases the object.
    func pushBox(_ object: AnyObject, tag: UnsafeRawPointer? = nil, _ L: OpaquePointer) { // SAFETY[identity-address]
        coordlua_pushbox(L, Unmanaged.passRetained(object).toOpaque(), tag) // SAFETY[boxed-object]
        coordlua_rawgetref(L, boxMetatableRef)
        _ = lua_setmetatable(L, -2)
    }

    /// Pushes a C closure that runs `body`.
    func pushFunction(name: String, _ body: @escaping (borrowing LuaCall) throws -> Void, _ L: OpaquePointer) {
        pushBox(LuaFunctionBox(core: self, name: name, body: body), L)
        coordlua_pushclosure(L, 1)
    }

    func makeFunction(name: String, _ body: @escaping (borrowing LuaCall) throws -> Void) -> LuaFunction {
        guard let L = try? thread() else { return LuaFunction(reference: LuaReference(core: self, ref: LUA_NOREF, era: 0, pointer: nil)) }
        pushFunction(name: name, body, L)
        defer { lua_settop(L, -2) }
        return LuaFunction(reference: reference(at: -1, in: L))
    }
}
