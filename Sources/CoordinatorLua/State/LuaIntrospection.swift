import CCoordinatorLua
import CCoordinatorLuaGlue

/// Where a Lua function was defined, as `debug.getinfo(f, "S")` reports it.
public struct LuaFunctionInfo: Sendable, Equatable {
    /// The chunk name: `@path` for files, `=name` or the code itself for strings.
    public let source: String
    /// The first line of the definition (0 for a main chunk, -1 for C functions).
    public let lineDefined: Int
    /// The last line of the definition (0 for a main chunk, -1 for C functions).
    public let lastLineDefined: Int
    /// Whether it is a Lua function (false for C functions and Swift closures).
    public let isLua: Bool
    /// How many upvalues (captured variables) it has.
    public let upvalueCount: Int
    /// How many fixed parameters it has (`self` of a method included).
    public let parameterCount: Int

    /// The file path for a function loaded from a file (`@path`), else nil.
    public var path: String? { source.hasPrefix("@") ? String(source.dropFirst()) : nil }
}

/// One upvalue of a Lua function: its name, its identity (two closures that share a variable report the
/// same `id`) and its current value.
public struct LuaUpvalue {
    /// Its position among the function's upvalues, from 1 (as `debug.getupvalue` numbers them).
    public let index: Int
    /// The captured variable's name (`_ENV` for the environment).
    public let name: String
    /// The variable's identity (`debug.upvalueid`): equal for closures that share it.
    public let id: UnsafeRawPointer? // SAFETY[identity-address]
    /// The variable's value now.
    public let value: LuaValue
}

extension LuaFunction: Hashable {
    /// Two values are equal when they are the same Lua function.
    public static func == (lhs: LuaFunction, rhs: LuaFunction) -> Bool { lhs.reference == rhs.reference }
    public func hash(into hasher: inout Hasher) { reference.hash(into: &hasher) }
}

extension LuaFunction {
    /// Where the function was defined.
    ///
    /// ```swift
    /// let f = try lua.evaluate("return function() end", name: "demo", as: LuaFunction.self)
    /// f.info?.lineDefined   // 1
    /// ```
    public var info: LuaFunctionInfo? {
        try? withPushed(reference) { stack, index in
            var source: UnsafePointer<CChar>? // SAFETY[c-buffer]
            var first: Int32 = 0, last: Int32 = 0, nups: Int32 = 0, nparams: Int32 = 0
            let isLua = coordlua_funcinfo(stack.L, index, &source, &first, &last, &nups, &nparams) != 0
            return LuaFunctionInfo(source: source.map { String(cString: $0) } ?? "?", lineDefined: Int(first),
                                   lastLineDefined: Int(last), isLua: isLua, upvalueCount: Int(nups), parameterCount: Int(nparams))
        }
    }

    /// The function's upvalues, in order (index 1 first). C functions and Swift closures report theirs
    /// with empty names.
    public func upvalues() throws -> [LuaUpvalue] {
        try withPushed(reference) { stack, index in
            var result: [LuaUpvalue] = []
            var n: Int32 = 1
            while let name = lua_getupvalue(stack.L, index, n) {
                let value = stack.value(at: -1)
                lua_settop(stack.L, -2)
                result.append(LuaUpvalue(index: Int(n), name: String(cString: name), id: lua_upvalueid(stack.L, index, n), value: value))
                n += 1
            }
            return result
        }
    }

    /// Makes upvalue `n` of this Lua function refer to the same variable as upvalue `m` of `other`
    /// (`debug.upvaluejoin`): later assignments through either closure are seen by both.
    public func joinUpvalue(_ n: Int, to other: LuaFunction, upvalue m: Int) throws {
        guard reference.core === other.reference.core else { throw LuaError(.misuse, "the two functions belong to different Lua states") }
        guard info?.isLua == true, other.info?.isLua == true else { throw LuaError(.misuse, "only Lua functions share upvalues") }
        try withPushed(reference) { stack, index in
            try other.reference.pushValue(stack.L)
            let otherIndex = lua_gettop(stack.L)
            guard n >= 1, m >= 1, lua_getupvalue(stack.L, index, Int32(clamping: n)) != nil else {
                throw LuaError(.misuse, "the function has no upvalue \(n)")
            }
            lua_settop(stack.L, -2)
            guard lua_getupvalue(stack.L, otherIndex, Int32(clamping: m)) != nil else {
                throw LuaError(.misuse, "the other function has no upvalue \(m)")
            }
            lua_settop(stack.L, -2)
            lua_upvaluejoin(stack.L, index, Int32(n), otherIndex, Int32(m))
        }
    }
}

extension LuaFunction {
    /// Sets upvalue `n` of this Lua function (`debug.setupvalue`): every closure that shares the variable
    /// sees the new value.
    public func setUpvalue(_ n: Int, to value: some LuaPushable) throws {
        try withPushed(reference) { stack, index in
            guard n >= 1, lua_getupvalue(stack.L, index, Int32(clamping: n)) != nil else {
                throw LuaError(.misuse, "the function has no upvalue \(n)")
            }
            lua_settop(stack.L, -2)
            try stack.push(value)
            _ = lua_setupvalue(stack.L, index, Int32(n))
        }
    }
}

extension LuaValue {
    /// What Lua's `tostring` gives for the value: `__tostring` and `__name` honoured (`file (0x...)`), floats
    /// as `%.14g` (`0.3`, `-0.0`). Never throws: a failing `__tostring` is described instead.
    public var display: String {
        switch self {
        case .table(let t): return (try? withPushed(t.reference) { stack, index in stack.display(at: index) }) ?? description
        case .userdata(let u): return (try? withPushed(u.reference) { stack, index in stack.display(at: index) }) ?? description
        case .string(let s): return s.string
        default: return description
        }
    }
}

/// Ctrl-C for command-line hosts, the way the stand-alone `lua` interpreter handles it: while Lua code runs
/// inside ``LuaState/interruptible(_:)``, Ctrl-C stops it with an `.interrupted` error instead of ending
/// the process; at other times it is only counted, so a prompt can notice it with ``takePending()``.
///
/// A state is armed for the thread that runs `interruptible` (a thread-local slot), so runtimes on other
/// threads are never stopped by a Ctrl-C meant for one of them; a Ctrl-C the system delivers to another
/// thread is passed on to the thread that called ``install()``.
///
/// ```swift
/// InterruptSignal.install()
/// do { try lua.interruptible { try lua.run("while true do end") } }   // Ctrl-C: LuaError(.interrupted)
/// catch { print(error) }
/// ```
package enum InterruptSignal {
    /// Installs the process's SIGINT handler (a blocking `read` then fails with `EINTR` instead of
    /// restarting).
    package static func install() { _ = coordlua_sigint_install() }
    /// Gives SIGINT its default action back.
    package static func uninstall() { coordlua_sigint_uninstall() }
    /// Whether Ctrl-C was pressed since the last call.
    package static func takePending() -> Bool { coordlua_sigint_take() > 0 }
}

extension LuaState {
    /// Runs `body` so that SIGINT (after ``InterruptSignal/install()``) interrupts the Lua code it runs.
    package func interruptible<R>(_ body: () throws -> R) rethrows -> R {
        guard let L = try? core.thread() else { return try body() }
        let previous = coordlua_sigint_arm(L)
        defer { coordlua_sigint_disarm(previous) }
        return try body()
    }
}
