/// Lua 5.4's lexical rules, for code that writes Lua source: which strings are names, and literals that
/// read back as the same value (Lua manual §3.1).
///
/// Everything in this package that writes Lua (the REPL's printer, recorded tests, exploration's
/// reproductions, data shown as Lua) writes it through these functions, so a key such as `end`, a string
/// with `\r` or `\0`, or a float such as `1/0` always reads back.
///
/// ```swift
/// LuaSyntax.key("name")        // name
/// LuaSyntax.key("end")         // ["end"]
/// LuaSyntax.quoted("a\r\0b")   // "a\r\0b"
/// LuaSyntax.literal(Int.min)   // (-9223372036854775807 - 1)
/// LuaSyntax.literal(Double.infinity)   // (1/0)
/// ```
public enum LuaSyntax {
    /// Lua 5.4's reserved words: they cannot be names.
    public static let keywords: Set<String> = [
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
        "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    ]

    /// Whether `text` is a Lua name: ASCII letters, digits and underscores, not starting with a digit,
    /// and not a reserved word.
    public static func isName(_ text: String) -> Bool {
        guard let first = text.utf8.first, first == UInt8(ascii: "_") || isLetter(first) else { return false }
        return text.utf8.allSatisfy { $0 == UInt8(ascii: "_") || isLetter($0) || isDigit($0) } && !keywords.contains(text)
    }

    /// A table constructor's key for the string `key`: the name itself when it is one, else `["key"]`.
    public static func key(_ key: String) -> String { isName(key) ? key : "[" + quoted(key) + "]" }

    /// A string literal that reads back as exactly the bytes of `text` (UTF-8): `"` and `\` escaped, the
    /// control characters as `\n`, `\r`, `\t` or decimal escapes (three digits when a digit follows, so
    /// that `"\0" .. "1"` is `"\0001"`), everything else as it is.
    public static func quoted(_ text: String) -> String {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        let bytes = Array(text.utf8)
        out.reserveCapacity(bytes.count + 2)
        for (i, byte) in bytes.enumerated() {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case UInt8(ascii: "\n"): out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<32, 127:
                let digits = Array(String(byte).utf8)
                let nextIsDigit = i + 1 < bytes.count && isDigit(bytes[i + 1])
                out.append(UInt8(ascii: "\\"))
                if nextIsDigit { out += repeatElement(UInt8(ascii: "0"), count: 3 - digits.count) }
                out += digits
            default:
                out.append(byte) // UTF-8 of the other characters as it is: Lua's strings are bytes
            }
        }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` as it may stand in a line comment (`-- ...`, an editor annotation): the control characters,
    /// which would end the comment and start code, written as a string literal writes them (`\n`, `\27`);
    /// other text as it is.
    public static func commentText(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 32 || $0 == 127 }) else { return text }
        return String(quoted(text).dropFirst().dropLast())
    }

    /// An integer literal that reads back as the same integer (the smallest one has no literal of its own:
    /// `-9223372036854775808` reads as a float).
    public static func literal(_ value: Int) -> String {
        value == .min ? "(-9223372036854775807 - 1)" : String(value)
    }

    /// A float literal that reads back as the same float: a point or an exponent always (`3.0`, `1e+20`,
    /// so that it stays a float), `(1/0)`, `(-1/0)` and `(0/0)` for infinities and NaN, `-0.0`.
    public static func literal(_ value: Double) -> String {
        if value.isNaN { return "(0/0)" }
        if value.isInfinite { return value < 0 ? "(-1/0)" : "(1/0)" }
        let text = "\(value)" // the shortest text that reads back as the same double
        return text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? text : text + ".0"
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
