import CCoordinatorLua
import CCoordinatorLuaGlue

/// The type of a value on the Lua stack.
public enum LuaType: Int32, Sendable {
    /// No value: an index past the top of the stack (`LUA_TNONE`).
    case none = -1
    /// `nil`.
    case `nil` = 0
    /// `true` or `false`.
    case boolean = 1
    /// A bare C pointer.
    case lightUserdata = 2
    /// An integer or a float.
    case number = 3
    /// A string (bytes).
    case string = 4
    /// A table.
    case table = 5
    /// A Lua function, a C function or a Swift closure.
    case function = 6
    /// A full userdata (a Swift object of a registered class, among others).
    case userdata = 7
    /// A coroutine.
    case thread = 8

    /// Lua's name for the type.
    public var name: String {
        switch self {
        case .none: "no value"
        case .nil: "nil"
        case .boolean: "boolean"
        case .lightUserdata, .userdata: "userdata"
        case .number: "number"
        case .string: "string"
        case .table: "table"
        case .function: "function"
        case .thread: "thread"
        }
    }
}
