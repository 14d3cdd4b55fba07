import CCoordinatorLua
import CCoordinatorLuaGlue

/// The object of a Lua error that is not a string (`error({ code = 1, reason = "no cities" })`), copied so
/// that it no longer needs its state: plain, `Sendable`, and kept by ``LuaError/value`` beside the message.
/// Tables are copied by their raw fields, at most ``maximumDepth`` levels and ``maximumFields`` fields each
/// (a cycle ends at the depth); functions, userdata and coroutines become ``other(_:)`` with their type.
///
/// ```swift
/// do { try lua.run("error({ code = 42 })") } catch let error as LuaError {
///     error.value?["code"]   // .integer(42)
/// }
/// ```
public indirect enum LuaErrorValue: Sendable, Equatable, CustomStringConvertible {
    /// `nil`.
    case `nil`
    /// A boolean.
    case boolean(Bool)
    /// An integer.
    case integer(Int)
    /// A float.
    case number(Double)
    /// A string (its bytes read as UTF-8).
    case string(String)
    /// A table's raw fields, in Lua's traversal order.
    case table([Field])
    /// A value that cannot be copied (a function, userdata, a coroutine): its type's name.
    case other(String)

    /// One field of a copied table.
    public struct Field: Sendable, Equatable {
        /// The key.
        public let key: LuaErrorValue
        /// The value.
        public let value: LuaErrorValue
    }

    /// The deepest tables copied.
    public static let maximumDepth = 8
    /// The most fields copied of one table.
    public static let maximumFields = 256

    /// A table's field by string key, or nil.
    public subscript(key: String) -> LuaErrorValue? {
        guard case .table(let fields) = self else { return nil }
        return fields.first { $0.key == .string(key) }?.value
    }

    /// As Lua data: `{ code = 42 }`.
    public var description: String {
        switch self {
        case .nil: "nil"
        case .boolean(let b): String(b)
        case .integer(let i): String(i)
        case .number(let d): String(d)
        case .string(let s): "\"" + s + "\""
        case .table(let fields): "{ " + fields.map { "[\($0.key)] = \($0.value)" }.joined(separator: ", ") + " }"
        case .other(let type): "<\(type)>"
        }
    }

    /// A copy of the value at `index` (raw: no metamethod runs, nothing is allocated in Lua).
    static func copy(_ L: OpaquePointer, at index: Int32, depth: Int = 0) -> LuaErrorValue {
        let index = lua_absindex(L, index)
        switch lua_type(L, index) {
        case LUA_TNIL: return .nil
        case LUA_TBOOLEAN: return .boolean(lua_toboolean(L, index) != 0)
        case LUA_TNUMBER:
            var isInteger: Int32 = 0
            let i = lua_tointegerx(L, index, &isInteger)
            return isInteger != 0 ? .integer(Int(i)) : .number(lua_tonumberx(L, index, nil))
        case LUA_TSTRING:
            var length = 0
            guard let bytes = lua_tolstring(L, index, &length) else { return .string("") }
            return .string(String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)) // SAFETY[c-buffer]
        case LUA_TTABLE:
            guard depth < maximumDepth, lua_checkstack(L, 3) != 0 else { return .other("table") }
            var fields: [Field] = []
            lua_pushnil(L)
            while lua_next(L, index) != 0 {
                if fields.count < maximumFields {
                    fields.append(Field(key: copy(L, at: -2, depth: depth + 1), value: copy(L, at: -1, depth: depth + 1)))
                }
                lua_settop(L, -2)
            }
            return .table(fields)
        default:
            return .other(String(cString: lua_typename(L, lua_type(L, index))))
        }
    }
}
