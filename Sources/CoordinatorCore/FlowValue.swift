/// Data that flows between screens and coordinators: screen inputs, output payloads, finish results,
/// signal payloads. Plain values (no references), so a screen's inputs cannot change behind its back.
///
/// ```swift
/// let user: FlowValue = ["name": "Ann", "city": ["name": "Moscow"]]
/// user["city"]?["name"]?.string   // "Moscow"
/// ```
public enum FlowValue: Hashable, Sendable {
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case list([FlowValue])
    case record(FlowRecord)

    /// The field of a record, or nil.
    public subscript(key: String) -> FlowValue? {
        if case .record(let fields) = self { return fields[key] }
        return nil
    }

    /// The item of a list (0-based), or nil.
    public subscript(index: Int) -> FlowValue? {
        if case .list(let items) = self, items.indices.contains(index) { return items[index] }
        return nil
    }

    public var string: String? { if case .string(let s) = self { s } else { nil } }
    public var int: Int? {
        switch self {
        case .int(let i): i
        case .double(let d): Int(exactly: d)
        default: nil
        }
    }
    public var double: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
    public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var list: [FlowValue]? { if case .list(let l) = self { l } else { nil } }
    public var record: FlowRecord? { if case .record(let r) = self { r } else { nil } }

    /// A record's field changed (or added), for building updated values.
    public func with(_ key: String, _ value: FlowValue?) -> FlowValue {
        guard case .record(var fields) = self else { return self }
        fields[key] = value
        return .record(fields)
    }
}

extension FlowValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: FlowValue...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, FlowValue)...) {
        self = .record(FlowRecord(elements))
    }
}

extension FlowValue: CustomStringConvertible {
    /// Lua table-constructor syntax with sorted keys: `{city = {name = "Moscow"}, name = "Ann"}`.
    public var description: String {
        switch self {
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return d == d.rounded() && abs(d) < 1e15 ? "\(Int(d)).0" : "\(d)"
        case .string(let s): return "\"" + s.replacingEscapes() + "\""
        case .list(let items): return "{" + items.map(\.description).joined(separator: ", ") + "}"
        case .record(let fields):
            let parts = fields.map { key, value in
                (key.isIdentifier ? key : "[\"\(key.replacingEscapes())\"]") + " = " + value.description
            }
            return "{" + parts.joined(separator: ", ") + "}"
        }
    }

    /// The text a person reads: strings without quotes, a record's `name` field when it has one.
    public var displayText: String {
        switch self {
        case .string(let s): return s
        case .record(let fields): return fields["name"]?.displayText ?? description
        default: return description
        }
    }
}

extension String {
    var isIdentifier: Bool {
        guard let first = unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }

    func replacingEscapes() -> String {
        var out = ""
        for c in self {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out
    }
}
