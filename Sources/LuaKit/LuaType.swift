import CLua
import CLuaGlue

/// The type of a value on the Lua stack.
public enum LuaType: Int32, Sendable {
    case none = -1
    case `nil` = 0
    case boolean = 1
    case lightUserdata = 2
    case number = 3
    case string = 4
    case table = 5
    case function = 6
    case userdata = 7
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
