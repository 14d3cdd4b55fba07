import CCoordinatorLua
import CCoordinatorLuaGlue
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A Swift value that can be pushed onto the Lua stack.
///
/// `Bool`, integers, floating-point numbers, `String`, ``LuaString``, ``LuaValue``, optionals, arrays and
/// dictionaries of pushable values (nested as deep as you like) conform already. Conform your own types by
/// pushing what represents them:
///
/// ```swift
/// struct City: LuaPushable {
///     var name: String
///     func push(to stack: borrowing LuaStack) throws { try stack.push(["name": name]) }
/// }
/// ```
public protocol LuaPushable {
    /// Pushes exactly one value representing `self`, or throws and pushes nothing.
    func push(to stack: borrowing LuaStack) throws
}

/// A Swift value that can be read from the Lua stack.
///
/// ```swift
/// struct City: LuaReadable {
///     var name: String
///     static func read(from stack: borrowing LuaStack, at index: Int32) throws -> City {
///         let fields = try stack.read([String: LuaValue].self, at: index)
///         return City(name: fields["name"]?.stringValue ?? "")
///     }
/// }
/// ```
public protocol LuaReadable {
    /// Reads the value at `index` without changing the stack, or throws a ``LuaError`` of kind `.type`.
    static func read(from stack: borrowing LuaStack, at index: Int32) throws -> Self
}

// MARK: - Conformances

extension Bool: LuaPushable, LuaReadable {
    @inlinable public func push(to stack: borrowing LuaStack) { stack.pushBool(self) }
    @inlinable public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> Bool {
        guard lua_type(stack.L, index) == LUA_TBOOLEAN else { throw stack.typeError(expected: "boolean", at: index) }
        return lua_toboolean(stack.L, index) != 0
    }
}

extension Int: LuaPushable, LuaReadable {
    @inlinable public func push(to stack: borrowing LuaStack) { stack.pushInteger(self) }
    /// Reads an integer the way Lua's own functions take one (`luaL_checkinteger`): an integer, a float with
    /// an integral value, or a string that converts to one; anything else is an error.
    @inlinable public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> Int {
        let read = coordlua_tointeger(stack.L, index)
        if read.ok != 0 { return Int(read.value) }
        throw stack.integerError(at: index)
    }
}

extension Int64: LuaPushable, LuaReadable {
    public func push(to stack: borrowing LuaStack) { stack.pushInteger(Int(self)) }
    public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> Int64 { Int64(try Int.read(from: stack, at: index)) }
}

extension Int32: LuaPushable, LuaReadable {
    public func push(to stack: borrowing LuaStack) { stack.pushInteger(Int(self)) }
    public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> Int32 {
        let value = try Int.read(from: stack, at: index)
        guard let narrow = Int32(exactly: value) else { throw LuaError(.type, "number \(value) does not fit in 32 bits") }
        return narrow
    }
}

extension Double: LuaPushable, LuaReadable {
    @inlinable public func push(to stack: borrowing LuaStack) { stack.pushNumber(self) }
    @inlinable public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> Double {
        guard lua_type(stack.L, index) == LUA_TNUMBER else { throw stack.typeError(expected: "number", at: index) }
        return lua_tonumberx(stack.L, index, nil)
    }
}

extension Float: LuaPushable, LuaReadable {
    public func push(to stack: borrowing LuaStack) { stack.pushNumber(Double(self)) }
    public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> Float { Float(try Double.read(from: stack, at: index)) }
}

extension String: LuaPushable, LuaReadable {
    public func push(to stack: borrowing LuaStack) { stack.pushString(self) }
    /// Reads a string; a number is converted as Lua does (`10` reads as `"10"`).
    public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> String {
        switch lua_type(stack.L, index) {
        case LUA_TSTRING: return stack.rawString(at: index)
        case LUA_TNUMBER:
            lua_pushvalue(stack.L, index) // convert a copy: lua_tolstring changes a number in place
            defer { lua_settop(stack.L, -2) }
            return stack.rawString(at: -1)
        default: throw stack.typeError(expected: "string", at: index)
        }
    }
}

extension LuaString: LuaPushable, LuaReadable {
    public func push(to stack: borrowing LuaStack) { stack.pushBytes(bytes) }
    public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> LuaString {
        switch lua_type(stack.L, index) {
        case LUA_TSTRING: return LuaString(bytes: stack.rawBytes(at: index))
        case LUA_TNUMBER: return LuaString(try String.read(from: stack, at: index))
        default: throw stack.typeError(expected: "string", at: index)
        }
    }
}

extension Optional: LuaPushable where Wrapped: LuaPushable {
    @inlinable public func push(to stack: borrowing LuaStack) throws {
        if let value = self { try value.push(to: stack) } else { stack.pushNil() }
    }
}

extension Optional: LuaReadable where Wrapped: LuaReadable {
    public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> Wrapped? {
        lua_type(stack.L, index) <= LUA_TNIL ? nil : try Wrapped.read(from: stack, at: index)
    }
}

extension Array: LuaPushable where Element: LuaPushable {
    /// Pushes a list: `t[1] = self[0]`, ...
    public func push(to stack: borrowing LuaStack) throws { try stack.pushList(self) }
}

extension Array: LuaReadable where Element: LuaReadable {
    /// Reads the list part `t[1] ... t[#t]` (raw access, no metamethods).
    public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> [Element] {
        let L = stack.L
        guard lua_type(L, index) == LUA_TTABLE else { throw stack.typeError(expected: "table", at: index) }
        try stack.reserve(2)
        let table = lua_absindex(L, index)
        let count = Int(lua_rawlen(L, table))
        var result: [Element] = []
        result.reserveCapacity(count)
        for i in 0..<count {
            lua_rawgeti(L, table, lua_Integer(i + 1))
            defer { lua_settop(L, -2) }
            do { result.append(try Element.read(from: stack, at: -1)) } catch let error as LuaError {
                throw LuaError(error.kind, "item \(i + 1): \(error.message)")
            }
        }
        return result
    }
}

extension Dictionary: LuaPushable where Key: LuaPushable, Value: LuaPushable {
    public func push(to stack: borrowing LuaStack) throws { try stack.pushRecord(self.lazy.map { ($0.key, $0.value) }) }
}

extension Dictionary: LuaReadable where Key: LuaReadable, Value: LuaReadable {
    /// Reads every key-value pair of a table (raw access, no metamethods).
    public static func read(from stack: borrowing LuaStack, at index: Int32) throws -> [Key: Value] {
        let L = stack.L
        guard lua_type(L, index) == LUA_TTABLE else { throw stack.typeError(expected: "table", at: index) }
        try stack.reserve(4)
        let table = lua_absindex(L, index)
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        var result: [Key: Value] = [:]
        lua_pushnil(L)
        while lua_next(L, table) != 0 {
            let key: Key
            do { key = try Key.read(from: stack, at: -2) } catch let error as LuaError {
                throw LuaError(error.kind, "key: \(error.message)")
            }
            do { result[key] = try Value.read(from: stack, at: -1) } catch let error as LuaError {
                throw LuaError(error.kind, "field \(stack.display(at: -2)): \(error.message)")
            }
            lua_settop(L, -2)
        }
        return result
    }
}

extension LuaValue: LuaPushable, LuaReadable {
    public func push(to stack: borrowing LuaStack) throws {
        switch self {
        case .nil: stack.pushNil()
        case .boolean(let b): stack.pushBool(b)
        case .integer(let i): stack.pushInteger(i)
        case .number(let d): stack.pushNumber(d)
        case .string(let s): stack.pushBytes(s.bytes)
        case .table(let t): try t.reference.push(on: stack)
        case .function(let f): try f.reference.push(on: stack)
        case .userdata(let u): try u.reference.push(on: stack)
        case .thread(let t): try t.reference.push(on: stack)
        case .lightUserdata(let p): lua_pushlightuserdata(stack.L, p)
        }
    }

    public static func read(from stack: borrowing LuaStack, at index: Int32) -> LuaValue { stack.value(at: index) }
}
