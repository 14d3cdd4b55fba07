/// What a ``LuaError`` is about, in parts, for the failures a host handles by their parts rather than by
/// their text (in the style of mlua's `Error::BadArgument` and `Error::FromLuaConversionError`).
///
/// It is read from the message, so it is the same whether Lua's own library raised the error
/// (`table.insert(nil, 1)`), a Swift function of the bridge did (`call.string(1)`), or Swift asked for a
/// value of the wrong type (`table.get("n", as: Int.self)`).
///
/// ```swift
/// do { try lua.run("flow.screen(42)") } catch let error as LuaError {
///     if case .badArgument(let argument)? = error.detail {
///         argument.position   // 1
///         argument.function   // "screen"
///         argument.expected   // "string"
///         argument.got        // "number"
///     }
/// }
/// ```
public enum LuaErrorDetail: Sendable, Equatable {
    /// A function got an argument it cannot take: `bad argument #1 to 'screen' (string expected, got number)`.
    case badArgument(BadArgument)
    /// A Lua value is not of the type Swift asked for: `string expected, got table` (kind `.type`).
    case conversion(expected: String, got: String)

    /// One argument a function refused.
    public struct BadArgument: Sendable, Equatable {
        /// The argument's position, as Lua counts it (`self` of a method call is #0 in Lua's messages
        /// only when the function itself says so).
        public var position: Int
        /// The function's name as the message gives it (`?` when Lua does not know it).
        public var function: String
        /// The type the function wanted (`string`), when the refusal is a type mismatch.
        public var expected: String?
        /// The type it got (`nil`, `table`, a class's name), when the refusal is a type mismatch.
        public var got: String?
        /// Why the argument was refused: the text in the message's parentheses.
        public var reason: String

        /// A refusal with these parts (for comparing with an error's ``LuaError/detail``).
        public init(position: Int, function: String, expected: String?, got: String?, reason: String) {
            self.position = position
            self.function = function
            self.expected = expected
            self.got = got
            self.reason = reason
        }
    }

    /// The detail of a message's reason (its text after `chunk:line: `), when it has one.
    init?(reason: String, kind: LuaError.Kind) {
        if let argument = Self.badArgument(in: reason) {
            self = .badArgument(argument)
        } else if kind == .type, let (expected, got) = Self.mismatch(in: reason) {
            self = .conversion(expected: expected, got: got)
        } else {
            return nil
        }
    }

    /// `bad argument #N to 'NAME' (REASON)`, as luaL_argerror and ``LuaCall/badArgument(_:_:)`` write it.
    static func badArgument(in text: String) -> BadArgument? {
        let head = "bad argument #"
        guard text.hasPrefix(head), text.hasSuffix(")") else { return nil }
        let afterHead = text.dropFirst(head.count)
        let digits = afterHead.prefix { $0.isASCII && $0.isNumber }
        guard let position = Int(digits) else { return nil }
        let afterDigits = afterHead.dropFirst(digits.count)
        guard afterDigits.hasPrefix(" to '"),
              let nameEnd = afterDigits.dropFirst(5).firstRange(of: "' (") else { return nil }
        let function = String(afterDigits.dropFirst(5)[..<nameEnd.lowerBound])
        let reason = String(afterDigits[nameEnd.upperBound...].dropLast())
        let mismatch = Self.mismatch(in: reason)
        return BadArgument(position: position, function: function, expected: mismatch?.0, got: mismatch?.1, reason: reason)
    }

    /// `EXPECTED expected, got GOT`, as luaL_typeerror writes it, or Lua's `number has no integer
    /// representation` (an integer expected, a float got).
    static func mismatch(in text: String) -> (String, String)? {
        if text == "number has no integer representation" { return ("integer", "number") }
        guard let separator = text.firstRange(of: " expected, got ") else { return nil }
        let expected = text[..<separator.lowerBound], got = text[separator.upperBound...]
        guard !expected.isEmpty, !got.isEmpty else { return nil }
        return (String(expected), String(got))
    }
}

extension LuaError {
    /// What the error is about, in parts, when it is a refused argument or a failed conversion; nil for
    /// the others (their ``kind``, ``value`` and ``underlying`` say the rest).
    public var detail: LuaErrorDetail? { LuaErrorDetail(reason: reason, kind: kind) }
}
