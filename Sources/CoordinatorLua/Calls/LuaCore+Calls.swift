import CCoordinatorLua
import CCoordinatorLuaGlue
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Calling into Lua: protected calls and method calls with their message handler, the bookkeeping around a
/// top-level call (interrupts, the instruction budget, the object cache), loading chunks, and the error a
/// failed call becomes.
extension LuaCore {
    /// Calls the function below `nargs` arguments on top of the stack, protected, leaving `nresults`
    /// results (or all of them with `LUA_MULTRET`). The call's message handler, if ``beginCall`` pushed
    /// one, is below the function and stays there, below the results. On error the function and
    /// arguments are gone and a ``LuaError`` is thrown.
    @usableFromInline func pcall(_ call: PendingCall, arguments nargs: Int32, results nresults: Int32) throws(LuaError) {
        let L = call.stack.L
        drainUnrefs()
        let topLevel = callDepth == 0
        if topLevel { beginTopLevelCall(L) }
        callDepth += 1
        let status = coordlua_pcall_with_handler(L, nargs, nresults, call.handler)
        callDepth -= 1
        var interrupted = false, exhausted = false, reason: Int32 = 0
        if topLevel { (interrupted, exhausted, reason) = endTopLevelCall(L) }
        if status != LUA_OK {
            throw popError(L, status: status, interrupted: interrupted, exhausted: exhausted)
        }
        if interrupted || exhausted {
            // The code caught the limit's error (pcall, xpcall) and went on to its end: the limit still ends
            // the call, as it would have without the catch.
            throw interrupted
                ? LuaError(.interrupted, String(cString: coordlua_stop_message(reason)))
                : LuaError(.budgetExhausted, "instruction budget of \(runtime.pointee.budgetTotal) instructions exhausted")
        }
    }

    /// The start of every call from Swift: room for `count` arguments, the message handler when tracebacks
    /// are wanted (without them it would only hand the error back), then the function in registry slot
    /// `function` (or, with `entry`, entry `entry` of the table in that slot: its type is in `found`). The
    /// caller restores `top` when done (`defer`), pushes the arguments and calls
    /// ``pcall(_:arguments:results:)``; the results then start at ``PendingCall/firstResult``.
    @inlinable @inline(__always) func beginCall(arguments count: Int32, function: Int32, entry: lua_Integer? = nil) throws(LuaError) -> PendingCall {
        let L = try thread()
        let top = lua_gettop(L)
        guard lua_checkstack(L, count + 3) != 0 else { throw LuaError(.runtime, "stack overflow (nesting too deep)") }
        let handler: Int32 = runtime.pointee.tracebacks != 0 ? 1 : 0
        if handler != 0 { coordlua_pushmsgh(L) }
        let found: Int32
        if let entry { found = coordlua_push_entry(L, function, entry) } else { found = coordlua_rawgetref(L, function) }
        return PendingCall(L: L, core: self, top: top, handler: handler, found: found)
    }

    /// A whole call from Swift of the function in registry slot `function`, with `arguments`, its results
    /// dropped (what ``LuaFunction`` and ``LuaCallback`` calls do).
    @inlinable func call<each A: LuaPushable>(
        function: Int32, _ arguments: repeat each A
    ) throws {
        var count: Int32 = 0
        for _ in repeat each arguments { count += 1 }
        let pending = try beginCall(arguments: count, function: function)
        defer { lua_settop(pending.stack.L, pending.top) }
        repeat try (each arguments).push(to: pending.stack)
        try pcall(pending, arguments: count, results: 0)
    }

    /// The same with one argument, specialized for its type without copying it (a handler's payload).
    @inlinable func call<A: LuaPushable>(function: Int32, argument: A) throws {
        let pending = try beginCall(arguments: 1, function: function)
        defer { lua_settop(pending.stack.L, pending.top) }
        try argument.push(to: pending.stack)
        try pcall(pending, arguments: 1, results: 0)
    }

    /// The same, handing the results to `body` while they are still on the stack.
    @inlinable func call<each A: LuaPushable, R>(
        function: Int32, _ arguments: repeat each A, withResults body: (borrowing LuaResults) throws -> R
    ) throws -> R {
        var count: Int32 = 0
        for _ in repeat each arguments { count += 1 }
        let pending = try beginCall(arguments: count, function: function)
        defer { lua_settop(pending.stack.L, pending.top) }
        repeat try (each arguments).push(to: pending.stack)
        try pcall(pending, arguments: count, results: LUA_MULTRET)
        return try body(pending.results)
    }

    /// `t:name(arguments...)` for the table in registry slot `table`: the field is read honouring `__index`
    /// and called, with the table as `self`, only when it is a function. Returns the field's type.
    @inlinable func callMethod<each A: LuaPushable>(
        table: Int32, name: String, _ arguments: repeat each A
    ) throws -> LuaType {
        var count: Int32 = 1
        for _ in repeat each arguments { count += 1 }
        let (pending, found) = try beginMethodCall(table: table, name: name, arguments: count)
        defer { lua_settop(pending.stack.L, pending.top) }
        guard found == .function else { return found }
        repeat try (each arguments).push(to: pending.stack)
        try pcall(pending, arguments: count, results: 0)
        return .function
    }

    /// `t[name](arguments...)` for the table in registry slot `table`: the field is read honouring `__index`,
    /// then `before` runs, then the field is called (without `self`) only when it is a function. Returns
    /// the field's type.
    @inlinable func callField<each A: LuaPushable>(
        table: Int32, name: String, _ arguments: repeat each A, before: () -> Void
    ) throws -> LuaType {
        var count: Int32 = 0
        for _ in repeat each arguments { count += 1 }
        let (pending, found) = try beginMethodCall(table: table, name: name, arguments: count, withSelf: false)
        defer { lua_settop(pending.stack.L, pending.top) }
        before()
        guard found == .function else { return found }
        repeat try (each arguments).push(to: pending.stack)
        try pcall(pending, arguments: count, results: 0)
        return .function
    }

    /// The start of ``callMethod(table:name:_:)``: the handler when wanted, then `t[name]` and `t` when the
    /// field is a function (else the field is left on top, its type returned); without `t` when not
    /// `withSelf`.
    @usableFromInline func beginMethodCall(table: Int32, name: String, arguments count: Int32, withSelf: Bool = true) throws -> (PendingCall, LuaType) {
        let pending = try beginCall(arguments: count, function: table) // the table, where the method goes
        let L = pending.stack.L
        pending.stack.pushString(name)
        // Instances find methods through plain tables (instance, class, methods): no protected call then.
        let status = coordlua_pgettable(L, -2)
        if status != LUA_OK {
            let error = popError(L, status: status)
            lua_settop(L, pending.top)
            throw error
        }
        let found = LuaType(rawValue: lua_type(L, -1)) ?? .none
        if found == .function {
            if withSelf { lua_rotate(L, -2, 1) } else { lua_copy(L, -1, -2); lua_settop(L, -2) } // the method, then self
        }
        return (pending, found)
    }

    private func beginTopLevelCall(_ L: OpaquePointer) {
        if let budget = instructionBudget {
            runtime.pointee.budgeted = 1
            runtime.pointee.budget = Int64(budget)
            runtime.pointee.budgetTotal = Int64(budget)
            runtime.pointee.hookCount = Int32(clamping: min(max(budget / 10, 1), 1000))
            coordlua_install_hook(L, runtime)
        }
    }

    /// Ends a top-level call's limits: whether an interrupt (with its reason: 1 interrupted, 5 Ctrl-C, 2 timed
    /// out, 3 cancelled) or the budget stopped it.
    private func endTopLevelCall(_ L: OpaquePointer) -> (interrupted: Bool, exhausted: Bool, reason: Int32) {
        let reason = runtime.pointee.interruptRequested
        let interrupted = reason != 0
        let exhausted = runtime.pointee.budgeted != 0 && runtime.pointee.budget <= 0
        if interrupted || runtime.pointee.budgeted != 0 {
            runtime.pointee.interruptRequested = 0
            runtime.pointee.budgeted = 0
            coordlua_install_hook(L, runtime)
        }
        return (interrupted, exhausted, reason)
    }

    /// Replaces the weak object cache with a copy sized for its live entries.
    func compactObjectCache(_ L: OpaquePointer) {
        guard objectCacheRef != LUA_NOREF, lua_checkstack(L, 6) != 0 else { return }
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        coordlua_rawgetref(L, objectCacheRef)
        let old = lua_gettop(L)
        lua_createtable(L, 0, 0)
        let new = lua_gettop(L)
        if lua_getmetatable(L, old) != 0 { _ = lua_setmetatable(L, new) }
        lua_pushnil(L)
        while lua_next(L, old) != 0 {
            lua_pushvalue(L, -2)
            lua_rotate(L, -2, 1)
            lua_rawset(L, new)
        }
        lua_pushvalue(L, new)
        lua_rawseti(L, coordlua_registryindex(), lua_Integer(objectCacheRef))
    }

    /// Loads a chunk onto the stack, or throws.
    func load(_ L: OpaquePointer, bytes: UnsafeRawBufferPointer, chunkName: String, mode: String, cached: Bool = false) throws(LuaError) { // SAFETY[c-buffer]
        drainUnrefs()
        let text = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) // SAFETY[c-buffer]
        let status = cached && mode == "t"
            ? coordlua_load_shared(L, text, bytes.count, chunkName)
            : coordlua_load(L, text, bytes.count, chunkName, mode)
        if status != LUA_OK { throw popError(L, status: status) }
    }

    /// Turns the error object on top of the stack into a ``LuaError`` and pops it.
    func popError(_ L: OpaquePointer, status: Int32, interrupted: Bool = false, exhausted: Bool = false) -> LuaError {
        // The traceback first: describing the error may call its __tostring, in a protected call whose
        // message handler records a traceback of its own.
        var traceback: String?
        if status == LUA_ERRRUN || status == LUA_ERRERR {
            coordlua_take_traceback(L)
            if lua_type(L, -1) == LUA_TSTRING { traceback = LuaStack(L, self).rawString(at: -1) }
            lua_settop(L, -2)
        }
        let message = describeError(L, at: -1)
        // Runtime errors only: a syntax or memory error's object is Lua's own message.
        let value = (status == LUA_ERRRUN && lua_type(L, -1) != LUA_TSTRING) ? LuaErrorValue.copy(L, at: -1) : nil
        lua_settop(L, -2)
        let kind: LuaError.Kind =
            switch status {
            case LUA_ERRSYNTAX: .syntax
            case LUA_ERRMEM: .memory
            case LUA_ERRERR: .errorHandler
            case COORDLUA_ERRFILE: .file
            default: interrupted ? .interrupted : exhausted ? .budgetExhausted : .runtime
            }
        let kept = errorRelay.take(for: message)
        // Where it happened first, then the frames of the call that passed it on.
        if let nested = kept.traceback { traceback = Self.joinTracebacks(nested, then: traceback) }
        var error = LuaError(kind, message, traceback: traceback, underlying: kept.underlying)
        error.raisedByLua = true
        // An object that crossed a Swift callback on its way out (the callback threw the inner call's error,
        // passed on as its message) is the inner error's.
        error.value = value ?? kept.value
        return error
    }

    /// A nested call's traceback followed by the one of the call that passed its error on, each frame once:
    /// on the same thread the nested traceback already ends with the outer call's frames (it was taken
    /// with them on the stack), so only the frames it lacks are added.
    static func joinTracebacks(_ nested: String, then outer: String?) -> String {
        guard let outer else { return nested }
        let header = "stack traceback:"
        let inner = nested.split(separator: "\n", omittingEmptySubsequences: false)
        var frames = outer.split(separator: "\n", omittingEmptySubsequences: false)
        if frames.first == Substring(header) { frames.removeFirst() }
        var overlap = min(frames.count, inner.count)
        while overlap > 0, inner.suffix(overlap).elementsEqual(frames.prefix(overlap)) == false { overlap -= 1 }
        let rest = frames.dropFirst(overlap)
        return rest.isEmpty ? nested : nested + "\n" + rest.joined(separator: "\n")
    }

    /// The most instructions an error object's `__tostring` may run while its error is reported, when no
    /// budget is running (a `__tostring` that loops would hang the report, outside every limit).
    static let reportingBudget: Int64 = 10_000_000

    /// Runs `body` (which may call an error object's `__tostring`) under limits: the running call's, or,
    /// after a top-level call ended, a budget of ``reportingBudget`` instructions and whatever deadline is
    /// set. A limit it meets stops only the description (which says so): nothing of it stays for the next
    /// call (no interrupt left pending, no budget left running).
    func reportingLimited(_ L: OpaquePointer, _ body: () -> String) -> String {
        guard callDepth == 0 else { return body() }
        let budgeted = runtime.pointee.budgeted != 0
        if !budgeted {
            runtime.pointee.budgeted = 1
            runtime.pointee.budget = Self.reportingBudget
            runtime.pointee.budgetTotal = Self.reportingBudget
            runtime.pointee.hookCount = 1000
            coordlua_install_hook(L, runtime)
        }
        defer {
            runtime.pointee.interruptRequested = 0
            if !budgeted { runtime.pointee.budgeted = 0 }
            coordlua_install_hook(L, runtime)
        }
        return body()
    }

    /// A string for any error object: strings as they are, `__tostring` where there is one, else a type
    /// description as Lua's own interpreter prints it
    /// (`(error object is a nil value)` for `error()`).
    func describeError(_ L: OpaquePointer, at index: Int32) -> String {
        let stack = LuaStack(L, self)
        switch lua_type(L, index) {
        case LUA_TSTRING: return stack.rawString(at: index)
        case LUA_TNUMBER:
            return stack.display(at: index)
        default:
            if luaL_getmetafield(L, index, "__tostring") != LUA_TNIL {
                lua_settop(L, -2)
                return reportingLimited(L) { stack.display(at: index) }
            }
            return "(error object is a \(String(cString: lua_typename(L, lua_type(L, index)))) value)"
        }
    }
}
