/// Data that flows between screens and coordinators: screen inputs, output payloads, finish results,
/// signal payloads. Plain values (no references), so a screen's inputs cannot change behind its back.
///
/// ```swift
/// let user: FlowValue = ["name": "Ann", "city": ["name": "Moscow"]]
/// user["city"]?["name"]?.string   // "Moscow"
/// ```
public enum FlowValue: Hashable, Sendable {
    /// `true` or `false`.
    case bool(Bool)
    /// An integer.
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// Text.
    case string(String)
    /// Values in order (a Lua sequence `{ a, b }`).
    case list([FlowValue])
    /// Named fields (a Lua table with string keys `{ name = "Ann" }`).
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

    /// The text of a string, or nil.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// An integer, or a double with an exact integer value; else nil.
    public var intValue: Int? {
        switch self {
        case .int(let i): i
        case .double(let d): Int(exactly: d)
        default: nil
        }
    }
    /// A number as a double (integers converted), or nil.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
    /// The value of a boolean, or nil.
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The items of a list, or nil.
    public var listValue: [FlowValue]? { if case .list(let l) = self { l } else { nil } }
    /// The fields of a record, or nil.
    public var recordValue: FlowRecord? { if case .record(let r) = self { r } else { nil } }

    /// A record's field changed (or added), for building updated values.
    public func with(_ key: String, _ value: FlowValue?) -> FlowValue {
        guard case .record(var fields) = self else { return self }
        fields[key] = value
        return .record(fields)
    }
}

extension FlowValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByStringInterpolation, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
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
    /// Swift literal syntax, records with sorted keys: `["city": ["name": "Moscow"], "name": "Ann"]`,
    /// `["a", "b"]`, `[:]`.
    public var description: String {
        switch self {
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return d == d.rounded() && abs(d) < 1e15 ? "\(Int(d)).0" : "\(d)"
        case .string(let s): return "\"" + s.replacingEscapes() + "\""
        case .list(let items): return "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .record(let fields):
            if fields.isEmpty { return "[:]" }
            return "[" + fields.map { "\"\($0.replacingEscapes())\": \($1.description)" }.joined(separator: ", ") + "]"
        }
    }

    /// The text a person reads: strings without quotes, a record's `label` field when it has one, else its
    /// `name`, else ``description``.
    package var displayText: String { displayText(otherwise: \.description) }

    /// The text a person reads, with `notation` for values that are neither strings nor named records (a
    /// scripting bridge gives its language's literal syntax).
    package func displayText(otherwise notation: (FlowValue) -> String) -> String {
        switch self {
        case .string(let s): return s
        case .record(let fields): return (fields["label"] ?? fields["name"])?.displayText(otherwise: notation) ?? notation(self)
        default: return notation(self)
        }
    }
}

extension String {
    /// The string with `"`, `\\`, line ends and tabs escaped, and every other control character (C0, DEL,
    /// C1) as `\u{1b}`, scalar by scalar: for a quoted literal in a message, which a terminal shows as text
    /// (an escape sequence in a link or a screen's name never reaches the terminal as one).
    package func replacingEscapes() -> String { escaped(quotes: true) }

    /// The string with line ends, tabs and every other control character escaped as ``replacingEscapes()``
    /// writes them, quotes and backslashes as they are: a name that holds a control character stays on its
    /// line of a report, and reads the same wherever it is written.
    package var controlsEscaped: String {
        unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } ? escaped(quotes: false) : self
    }

    private func escaped(quotes: Bool) -> String {
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"" where quotes: out += "\\\""
            case "\\" where quotes: out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
