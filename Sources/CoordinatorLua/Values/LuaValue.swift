import CCoordinatorLuaGlue

/// A Lua string: a sequence of bytes, which need not be UTF-8 and may contain NUL bytes.
///
/// ```swift
/// let s: LuaString = "hello"
/// let binary = LuaString(bytes: [0x00, 0xFF, 0x41])
/// print(s.string)           // hello
/// print(binary.bytes.count) // 3
/// ```
public struct LuaString: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The exact bytes of the string.
    public var bytes: [UInt8]

    /// Creates a string from raw bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Creates a string holding the UTF-8 encoding of `string`.
    public init(_ string: String) { self.bytes = Array(string.utf8) }

    public init(stringLiteral value: String) { self.init(value) }

    /// The bytes decoded as UTF-8, with invalid sequences replaced by U+FFFD.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// The bytes decoded as UTF-8, or `nil` if they are not valid UTF-8.
    public var validUTF8: String? {
        var iterator = bytes.makeIterator()
        var utf8 = UTF8()
        while true {
            switch utf8.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return string
            case .error: return nil
            }
        }
    }

    public var description: String { string }
}

/// A Lua value seen from Swift.
///
/// Scalars are copied into Swift. Tables, functions, full userdata and coroutines stay in Lua and are held
/// through a registry reference (``LuaTable``, ``LuaFunction``, ``LuaUserdata``, ``LuaThread``).
///
/// ```swift
/// let v = try lua.run("return (1 << 53) + 1, 'a\\0b', {1, 2}")
/// v[0].intValue      // 9007199254740993, kept exact
/// v[1].stringValue   // "a\0b"
/// v[2].tableValue    // a reference to the table
/// ```
public enum LuaValue {
    /// `nil` (also what a missing value reads as).
    case `nil`
    /// `true` or `false`.
    case boolean(Bool)
    /// A Lua integer (64 bits), kept as an integer.
    case integer(Int)
    /// A Lua float.
    case number(Double)
    /// A string: Lua's bytes, readable as Swift text (``LuaString/string``).
    case string(LuaString)
    /// A table, held by a registry reference while the value exists.
    case table(LuaTable)
    /// A function (Lua, C or Swift), held by a registry reference.
    case function(LuaFunction)
    /// A full userdata, held by a registry reference.
    case userdata(LuaUserdata)
    /// A light userdata: a bare pointer, compared by address.
    case lightUserdata(UnsafeMutableRawPointer?) // SAFETY[identity-address]
    /// A coroutine, held by a registry reference.
    case thread(LuaThread)

    /// Lua's name for the value's type (`"nil"`, `"number"`, `"table"`, ...).
    public var typeName: String {
        switch self {
        case .nil: "nil"
        case .boolean: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .table: "table"
        case .function: "function"
        case .userdata, .lightUserdata: "userdata"
        case .thread: "thread"
        }
    }

    /// `true` for `nil`.
    public var isNil: Bool { if case .nil = self { true } else { false } }

    /// Lua's truth: everything but `nil` and `false` is true.
    public var isTruthy: Bool {
        switch self {
        case .nil: false
        case .boolean(let b): b
        default: true
        }
    }

    /// The boolean, if this is one.
    public var boolValue: Bool? { if case .boolean(let b) = self { b } else { nil } }

    /// The integer, if this is an integer or a float with an exact integer value.
    public var intValue: Int? {
        switch self {
        case .integer(let i): i
        case .number(let d): Int(exactly: d)
        default: nil
        }
    }

    /// The number as a `Double`, if this is a number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .number(let d): d
        default: nil
        }
    }

    /// The string decoded as UTF-8 (invalid bytes replaced), if this is a string.
    public var stringValue: String? { if case .string(let s) = self { s.string } else { nil } }

    /// The table, if this is one.
    public var tableValue: LuaTable? { if case .table(let t) = self { t } else { nil } }

    /// The function, if this is one.
    public var functionValue: LuaFunction? { if case .function(let f) = self { f } else { nil } }

    /// The userdata, if this is one.
    public var userdataValue: LuaUserdata? { if case .userdata(let u) = self { u } else { nil } }
}

extension LuaValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral
{
    public init(nilLiteral: ()) { self = .nil }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(LuaString(value)) }
}

extension LuaValue: Hashable {
    /// Raw equality, as Lua's `rawequal`: scalars by value (an integer equals the float of the same value),
    /// tables, functions, userdata and threads by identity.
    public static func == (lhs: LuaValue, rhs: LuaValue) -> Bool {
        switch (lhs, rhs) {
        case (.nil, .nil): true
        case let (.boolean(a), .boolean(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.integer(a), .number(b)), let (.number(b), .integer(a)): Int(exactly: b) == a
        case let (.string(a), .string(b)): a == b
        case let (.table(a), .table(b)): a.reference == b.reference
        case let (.function(a), .function(b)): a.reference == b.reference
        case let (.userdata(a), .userdata(b)): a.reference == b.reference
        case let (.thread(a), .thread(b)): a.reference == b.reference
        case let (.lightUserdata(a), .lightUserdata(b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .nil: hasher.combine(0)
        case .boolean(let b): hasher.combine(b)
        case .integer(let i): hasher.combine(i)
        case .number(let d):
            if let i = Int(exactly: d) { hasher.combine(i) } else { hasher.combine(d) }
        case .string(let s): hasher.combine(s)
        case .table(let t): hasher.combine(t.reference)
        case .function(let f): hasher.combine(f.reference)
        case .userdata(let u): hasher.combine(u.reference)
        case .thread(let t): hasher.combine(t.reference)
        case .lightUserdata(let p): hasher.combine(p)
        }
    }
}

extension LuaValue: CustomStringConvertible {
    /// A short description in Lua's style: `nil`, `true`, `42`, `3.5`, `"text"`, `table: 0x...`.
    public var description: String {
        switch self {
        case .nil: "nil"
        case .boolean(let b): b ? "true" : "false"
        case .integer(let i): String(i)
        case .number(let d): LuaValue.format(d)
        case .string(let s): "\"\(s.string)\""
        case .table(let t): "table: \(t.reference.addressDescription)"
        case .function(let f): "function: \(f.reference.addressDescription)"
        case .userdata(let u): "userdata: \(u.reference.addressDescription)"
        case .thread(let t): "thread: \(t.reference.addressDescription)"
        case .lightUserdata(let p): "userdata: \(p.map { String(describing: $0) } ?? "NULL")"
        }
    }

    /// Formats a float as Lua's `tostring` does (`%.14g`, with `.0` on integral values: `0.3`,
    /// `3.1415926535898`, `-0.0`, `1e+100`, `inf`).
    static func format(_ d: Double) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 48) { buffer in // SAFETY[c-buffer]
            guard let base = buffer.baseAddress else { return "\(d)" }
            let length = coordlua_number_format(d, base, 48)
            return String(decoding: UnsafeRawBufferPointer(start: base, count: Int(length)), as: UTF8.self) // SAFETY[c-buffer]
        }
    }
}
