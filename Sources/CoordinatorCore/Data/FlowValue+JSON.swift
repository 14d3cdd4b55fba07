/// FlowValue as JSON text, both ways: what snapshots are written in (and anything a host exchanges).
///
/// Records are objects (keys in the record's order, which is sorted), lists arrays, integers and doubles
/// numbers (a double keeps a fraction or an exponent: `2.0`, so it reads back as a double); the three
/// doubles JSON cannot write are `{"$double": "inf"}`, `"-inf"` and `"nan"`. JSON's `null` has no FlowValue
/// and is refused where a value is read.
///
/// ```swift
/// let value: FlowValue = ["name": "Ann", "visits": [1, 2]]
/// value.json                                  // {"name":"Ann","visits":[1,2]}
/// try FlowValue(json: value.json) == value    // true
/// ```
extension FlowValue {
    /// The value as compact JSON text.
    public var json: String { JSONWriter.text(of: self, indent: nil) }

    /// The value as JSON text indented by two spaces a level, for people to read.
    public var prettyJSON: String { JSONWriter.text(of: self, indent: "  ") }

    /// Reads JSON text. Throws ``JSONError`` with the line and column of the first mistake; nesting deeper
    /// than 200 levels is refused (a hostile file cannot exhaust the stack).
    public init(json text: String) throws(JSONError) {
        var reader = JSONReader(Array(text.utf8))
        self = try reader.document()
    }
}

/// A mistake in JSON text: what was wrong, and where.
public struct JSONError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What was wrong, with `line:column` (from 1).
    public let message: String
    public var description: String { message }
}

/// Writes JSON into UTF-8 bytes: runs of a string that need no escape are copied whole.
enum JSONWriter {
    static func text(of value: FlowValue, indent: String?) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out, indent: indent.map { Array($0.utf8) }, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    private static func write(_ value: FlowValue, into out: inout [UInt8], indent: [UInt8]?, level: Int) {
        switch value {
        case .bool(let b): out += b ? Array("true".utf8) : Array("false".utf8)
        case .int(let i): out += Array(String(i).utf8)
        case .double(let d):
            if d.isNaN { out += Array(#"{"$double":"nan"}"#.utf8) }
            else if d.isInfinite { out += Array((d < 0 ? #"{"$double":"-inf"}"# : #"{"$double":"inf"}"#).utf8) }
            else {
                let text = String(d)
                out += Array(text.utf8)
                if !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
                    out += Array(".0".utf8)
                }
            }
        case .string(let s): quote(s, into: &out)
        case .list(let items):
            guard !items.isEmpty else { out += Array("[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, level + 1)
                write(item, into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out.append(UInt8(ascii: "]"))
        case .record(let record):
            guard !record.fields.isEmpty else { out += Array("{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            for (i, field) in record.fields.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, level + 1)
                quote(field.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                write(field.value, into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout [UInt8], _ indent: [UInt8]?, _ level: Int) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        for _ in 0..<level { out += indent }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private static func quote(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var start = 0
            for (i, byte) in bytes.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                out += bytes[start..<i]
                start = i + 1
                out.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
                case UInt8(ascii: "\n"): out.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): out.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): out.append(UInt8(ascii: "t"))
                default: out += [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
                }
            }
            out += bytes[start...]
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// A JSON reader over UTF-8 bytes, by recursive descent with a depth limit.
struct JSONReader {
    /// The deepest nesting of arrays and objects it reads.
    static let maximumDepth = 200
    private let bytes: [UInt8]
    private var i = 0
    private var depth = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func document() throws(JSONError) -> FlowValue {
        let value = try self.value()
        skipSpace()
        guard i == bytes.count else { throw error("unexpected text after the value") }
        return value
    }

    private func error(_ what: String) -> JSONError {
        var line = 1, column = 1
        for byte in bytes[..<min(i, bytes.count)] {
            if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return JSONError(message: "JSON \(line):\(column): \(what)")
    }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    private mutating func value() throws(JSONError) -> FlowValue {
        skipSpace()
        guard i < bytes.count else { throw error("a value is missing") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try word("true"); return .bool(true)
        case UInt8(ascii: "f"): try word("false"); return .bool(false)
        case UInt8(ascii: "n"): throw error("null has no value here")
        default: return try number()
        }
    }

    private mutating func word(_ w: String) throws(JSONError) {
        for byte in w.utf8 {
            guard i < bytes.count, bytes[i] == byte else { throw error("expected \(w)") }
            i += 1
        }
    }

    private mutating func nest() throws(JSONError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func array() throws(JSONError) -> FlowValue {
        try nest()
        i += 1
        var items: [FlowValue] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; depth -= 1; return .list(items) }
        while true {
            items.append(try value())
            skipSpace()
            guard i < bytes.count else { throw error("the array is not closed") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; break }
            throw error("expected , or ] in an array")
        }
        depth -= 1
        return .list(items)
    }

    private mutating func object() throws(JSONError) -> FlowValue {
        try nest()
        i += 1
        var builder = FlowRecord.Builder()
        var keys = Set<String>()
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; depth -= 1; return .record(builder.finish()) }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a key in quotes") }
            let key = try string()
            guard keys.insert(key).inserted else { throw error("the key \"\(key)\" appears twice") }
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected : after a key") }
            i += 1
            builder.add(key, try value())
            skipSpace()
            guard i < bytes.count else { throw error("the object is not closed") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; break }
            throw error("expected , or } in an object")
        }
        depth -= 1
        let record = builder.finish()
        if record.fields.count == 1, let field = record.fields.first, field.key == "$double", case .string(let s) = field.value {
            switch s {
            case "inf": return .double(.infinity)
            case "-inf": return .double(-.infinity)
            case "nan": return .double(.nan)
            default: throw error("\"$double\" is inf, -inf or nan")
            }
        }
        return .record(record)
    }

    private mutating func string() throws(JSONError) -> String {
        i += 1
        var scalars = String.UnicodeScalarView()
        var start = i
        func flush(_ end: Int) { scalars.append(contentsOf: String(decoding: bytes[start..<end], as: UTF8.self).unicodeScalars) }
        while true {
            guard i < bytes.count else { throw error("the string is not closed") }
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") { flush(i); i += 1; break }
            if byte < 0x20 { throw error("a control character inside a string") }
            guard byte == UInt8(ascii: "\\") else { i += 1; continue }
            flush(i)
            i += 1
            guard i < bytes.count else { throw error("the string is not closed") }
            let escape = bytes[i]
            i += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{8}")
            case UInt8(ascii: "f"): scalars.append("\u{C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code), i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                    i += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate in \\u escapes") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("\\u escape is not a character") }
                scalars.append(scalar)
            default: throw error("unknown escape \\\(Character(Unicode.Scalar(escape)))")
            }
            start = i
        }
        return String(scalars)
    }

    private mutating func hex4() throws(JSONError) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard i < bytes.count, let digit = Self.hexValue(bytes[i]) else { throw error("\\u needs four hex digits") }
            code = code << 4 | digit
            i += 1
        }
        return code
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private mutating func number() throws(JSONError) -> FlowValue {
        let start = i
        var isInteger = true
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        while i < bytes.count {
            let byte = bytes[i]
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") { i += 1; continue }
            if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") || byte == UInt8(ascii: "+")
                || (byte == UInt8(ascii: "-") && i > start) {
                isInteger = false
                i += 1
                continue
            }
            break
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        guard !text.isEmpty, text != "-" else { throw error("unexpected character") }
        if isInteger, let n = Int(text) { return .int(n) }
        guard let d = Double(text), d.isFinite else { throw error("'\(text)' is not a number") }
        return .double(d)
    }
}
