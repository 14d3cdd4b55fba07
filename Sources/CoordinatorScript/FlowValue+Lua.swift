import CoordinatorCore
import LuaKit

/// Screen inputs, payloads and results cross between Lua and the core as ``FlowValue``s: plain data.
///
/// Lua → Swift: booleans, integers, floats and strings as themselves; a table whose keys are exactly
/// 1...n becomes a list; any other table a record (number keys become strings); an empty table an empty
/// record. Functions, userdata and coroutines cannot be data: they are refused with a message naming the
/// field. Tables nested deeper than 64 levels (or cyclic) are refused too.
extension FlowValue: LuaPushable, LuaReadable {
    public func push(to stack: LuaStack) throws {
        switch self {
        case .bool(let b): stack.pushBool(b)
        case .int(let i): stack.pushInteger(i)
        case .double(let d): stack.pushNumber(d)
        case .string(let s): stack.pushString(s)
        case .list(let items): try stack.pushList(items)
        case .record(let fields):
            // Keys are strings, never nil or NaN: the fields go in directly (the table, a key and a value).
            try stack.reserve(3)
            stack.pushNewTable(record: fields.count)
            for (key, value) in fields {
                stack.pushString(key)
                do { try value.push(to: stack) } catch { stack.pop(2); throw error }
                stack.rawSet(table: -3)
            }
        }
    }

    public static func read(from stack: LuaStack, at index: Int32) throws -> FlowValue {
        try read(stack.value(at: index), depth: 0, path: "")
    }

    /// Converts a Lua value; `path` names it in messages (`field user.city is a function`).
    public init(lua value: LuaValue, path: String = "") throws {
        self = try FlowValue.read(value, depth: 0, path: path)
    }

    static func read(_ value: LuaValue, depth: Int, path: String) throws -> FlowValue {
        switch value {
        case .boolean(let b): return .bool(b)
        case .integer(let i): return .int(i)
        case .number(let d): return .double(d)
        case .string(let s): return .string(s.string)
        case .table(let table):
            guard depth < 64 else { throw LuaError(.type, "data nested too deeply (or cyclic) at \(path.isEmpty ? "top" : path)") }
            let pairs = try table.pairs()
            if pairs.isEmpty { return .record([:]) }
            let count = table.count
            if count == pairs.count {
                // As many pairs as the border: a sequence exactly when t[1] ... t[n] are all present.
                var items: [FlowValue] = []
                items.reserveCapacity(count)
                for i in 1...count {
                    let item = try table.rawGet(i, as: LuaValue.self)
                    if item.isNil { break }
                    items.append(try read(item, depth: depth + 1, path: "\(path)[\(i)]"))
                }
                if items.count == count { return .list(items) }
            }
            var fields: [String: FlowValue] = [:]
            for (key, item) in pairs {
                let name: String
                switch key {
                case .string(let s): name = s.string
                case .integer(let i): name = String(i)
                case .number(let d): name = LuaValue.number(d).description
                case .boolean(let b): name = b ? "true" : "false"
                default: throw LuaError(.type, "a \(key.typeName) cannot be a key of data (at \(path.isEmpty ? "top" : path))")
                }
                fields[name] = try read(item, depth: depth + 1, path: path.isEmpty ? name : "\(path).\(name)")
            }
            return .record(fields)
        case .nil:
            throw LuaError(.type, "nil is not data")
        default:
            throw LuaError(.type, "a \(value.typeName) cannot be data (\(path.isEmpty ? "the value" : "field " + path) is one); screens take plain values")
        }
    }
}

extension Optional where Wrapped == FlowValue {
    /// The value as a Lua argument: `nil` stays an explicit nil, so argument positions after it hold.
    var lua: any LuaPushable { self.map { $0 as any LuaPushable } ?? LuaValue.nil }
}
