/// Reads a Lua source file's tokens once (names, symbols, strings, numbers, comments skipped) and from them
/// its function structure and file-level locals, for ``LuaSource``: blocks are tracked by their keywords
/// (`function`, `if`, `do`, `repeat` open; `end`, `until` close), not by a full parse.
struct LuaScanner {
    typealias Function = LuaSource.Function
    typealias FileLocal = LuaSource.FileLocal

    let text: [UInt8]
    private(set) var functions: [Function] = []
    /// The main chunk's direct children and its own locals.
    private(set) var topLevel: [Int] = []
    private(set) var topLocals: [(name: String, offset: Int)] = []
    /// The main chunk's locals, in order.
    private(set) var fileLocals: [FileLocal] = []

    init(text: [UInt8]) { self.text = text }

    /// Symbols that, ending a line, continue an expression on the next; that, starting a line, continue
    /// the one before; and the keywords that start a statement.
    private static let continuing: Set<UInt8> = Set("+-*/%^#&~|<>=,(.{[:".utf8)
    private static let closing: Set<UInt8> = Set("+-*/%^&|<>=.)}]:,".utf8)
    private static let statements: Set<String> = ["local", "return", "if", "for", "while", "repeat", "goto", "break", "do", "end", "until", "else", "elseif"]

    enum Token: Equatable {
        case name(String)
        case symbol(UInt8)
        case other
    }

    /// A token of the text: what it is, its bytes (`offset..<end`) and the line it starts on.
    typealias Lexeme = (token: Token, offset: Int, end: Int, line: Int)

    /// The text's tokens in order: names, one symbol a byte, strings, long strings and numbers as
    /// `other`; comments, white space and a first `#!` line are left out.
    static func tokens(of text: [UInt8]) -> [Lexeme] {
        var tokens: [Lexeme] = []
        var i = 0, line = 1
        let n = text.count
        func at(_ k: Int) -> UInt8 { k < n ? text[k] : 0 }
        // Long bracket `[==[`: returns the level, or nil.
        func longBracket(_ k: Int) -> Int? {
            guard at(k) == UInt8(ascii: "[") else { return nil }
            var j = k + 1, level = 0
            while at(j) == UInt8(ascii: "=") { level += 1; j += 1 }
            return at(j) == UInt8(ascii: "[") ? level : nil
        }
        func skipLong(_ k: inout Int, level: Int) {
            k += level + 2
            while k < n {
                if text[k] == UInt8(ascii: "\n") { line += 1 }
                if text[k] == UInt8(ascii: "]") {
                    var j = k + 1, l = 0
                    while at(j) == UInt8(ascii: "=") { l += 1; j += 1 }
                    if l == level && at(j) == UInt8(ascii: "]") { k = j + 1; return }
                }
                k += 1
            }
        }
        if at(0) == UInt8(ascii: "#") { while i < n && text[i] != UInt8(ascii: "\n") { i += 1 } } // #! line
        while i < n {
            let c = text[i]
            if c == UInt8(ascii: "\n") { line += 1; i += 1; continue }
            if c == 32 || c == 9 || c == 13 || c == 11 || c == 12 { i += 1; continue }
            let start = i, startLine = line
            if c == UInt8(ascii: "-") && at(i + 1) == UInt8(ascii: "-") {
                i += 2
                if let level = longBracket(i) { skipLong(&i, level: level) } else {
                    while i < n && text[i] != UInt8(ascii: "\n") { i += 1 }
                }
                continue
            }
            if let level = longBracket(i) {
                skipLong(&i, level: level)
                tokens.append((.other, start, i, startLine))
                continue
            }
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                i += 1
                while i < n && text[i] != c && text[i] != UInt8(ascii: "\n") {
                    if text[i] == UInt8(ascii: "\\") {
                        i += 1
                        if at(i) == UInt8(ascii: "\n") { line += 1 }
                        if at(i) == UInt8(ascii: "z") { // \z skips the following white space, newlines included
                            i += 1
                            while i < n, [9, 10, 11, 12, 13, 32].contains(text[i]) { if text[i] == 10 { line += 1 }; i += 1 }
                            continue
                        }
                    }
                    i += 1
                }
                i += 1
                tokens.append((.other, start, i, startLine))
                continue
            }
            if c == UInt8(ascii: "_") || (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "z")) || c >= 0x80 {
                while i < n, text[i] == UInt8(ascii: "_") || (text[i] | 0x20 >= UInt8(ascii: "a") && text[i] | 0x20 <= UInt8(ascii: "z"))
                    || (text[i] >= UInt8(ascii: "0") && text[i] <= UInt8(ascii: "9")) || text[i] >= 0x80 { i += 1 }
                tokens.append((.name(String(decoding: text[start..<i], as: UTF8.self)), start, i, startLine))
                continue
            }
            let digits = UInt8(ascii: "0")...UInt8(ascii: "9"), letters = UInt8(ascii: "a")...UInt8(ascii: "z")
            if digits.contains(c) || (c == UInt8(ascii: ".") && digits.contains(at(i + 1))) {
                // A numeral's characters, an exponent's sign included (`1e+5`, `0x1p-3`).
                let exponents: [UInt8] = [UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "p"), UInt8(ascii: "P")]
                while i < n, text[i] == UInt8(ascii: ".") || text[i] == UInt8(ascii: "_") || letters.contains(text[i] | 0x20) || digits.contains(text[i])
                    || ((text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-")) && exponents.contains(text[i - 1])) { i += 1 }
                tokens.append((.other, start, i, startLine))
                continue
            }
            i += 1
            tokens.append((.symbol(c), start, i, startLine))
        }
        return tokens
    }

    mutating func scan() {
        let tokens = Self.tokens(of: text)

        // Blocks: `function`, `if`, `do` (also of while/for) and `repeat` open; `end` and `until` close.
        enum Block { case function(Int), other }
        var blocks: [Block] = []
        var currentFunction: Int? { for b in blocks.reversed() { if case .function(let f) = b { return f } }; return nil }
        func declare(_ name: String, _ offset: Int) {
            if let f = currentFunction { functions[f].locals.append((name, offset)) } else { topLocals.append((name, offset)) }
        }
        var declarations: [String: Int] = [:]
        func addFileLocal(_ name: String, offset: Int, line: Int, isConst: Bool, initializer: String) {
            let ordinal = declarations[name, default: 0]
            declarations[name] = ordinal + 1
            fileLocals.append(FileLocal(name: name, ordinal: ordinal, offset: offset, line: line, isConst: isConst, initializer: initializer))
        }
        // The tokens of the expression list after the `=` at `equals`, one space apart: up to a `;`, a
        // statement keyword, or a new line that does not continue the expression, outside brackets and blocks.
        func initializerText(after equals: Int) -> String {
            let continuing = Self.continuing, closing = Self.closing, statements = Self.statements
            var parts: [String] = []
            var depth = 0
            var j = equals + 1
            var previous = tokens[equals]
            while j < tokens.count {
                let t = tokens[j]
                if depth == 0 {
                    if t.token == .symbol(UInt8(ascii: ";")) { break }
                    if case .name(let word) = t.token, statements.contains(word) { break }
                    if t.line > previous.line {
                        var continues = false
                        if case .symbol(let c) = previous.token, continuing.contains(c) { continues = true }
                        if case .name(let word) = previous.token, ["and", "or", "not"].contains(word) { continues = true }
                        if case .symbol(let c) = t.token, closing.contains(c) { continues = true }
                        if case .name(let word) = t.token, ["and", "or"].contains(word) { continues = true }
                        if !continues { break }
                    }
                }
                switch t.token {
                case .symbol(let c) where c == UInt8(ascii: "(") || c == UInt8(ascii: "{") || c == UInt8(ascii: "["): depth += 1
                case .symbol(let c) where c == UInt8(ascii: ")") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]"): depth -= 1
                case .name("function"), .name("if"), .name("do"), .name("repeat"): depth += 1
                case .name("end"), .name("until"): depth -= 1
                default: break
                }
                if depth < 0 { break }
                parts.append(String(decoding: text[t.offset..<t.end], as: UTF8.self))
                previous = t
                j += 1
            }
            return parts.joined(separator: " ")
        }
        var k = 0
        while k < tokens.count {
            let t = tokens[k]
            guard case .name(let word) = t.token else { k += 1; continue }
            switch word {
            case "function":
                // Name: Name {'.' Name} [':' Name], when the keyword starts a statement.
                var name: String?, isMethod = false
                var j = k + 1
                var parametersStart = t.end
                if case .name(let first) = tokens[safe: j]?.token {
                    var parts = first
                    j += 1
                    while let sep = tokens[safe: j], sep.token == .symbol(UInt8(ascii: ".")) || sep.token == .symbol(UInt8(ascii: ":")),
                          case .name(let part) = tokens[safe: j + 1]?.token {
                        if sep.token == .symbol(UInt8(ascii: ":")) { isMethod = true }
                        parts += (isMethod ? ":" : ".") + part
                        j += 2
                        if isMethod { break }
                    }
                    name = parts
                    parametersStart = tokens[j - 1].end
                }
                let isLocal = k > 0 && tokens[k - 1].token == .name("local")
                if isLocal, let local = name { declare(local, t.offset); name = "local " + local }
                // `obj.field = function` or `field = function`: where the expression is stored.
                var target: String?
                if name == nil, k >= 2, tokens[k - 1].token == .symbol(UInt8(ascii: "=")), case .name(let field) = tokens[k - 2].token {
                    if k >= 4, tokens[k - 3].token == .symbol(UInt8(ascii: ".")), case .name(let object) = tokens[k - 4].token {
                        target = object + "." + field
                    } else {
                        target = field
                    }
                }
                let index = functions.count
                let parent = currentFunction
                functions.append(Function(start: t.offset, end: t.end, line: t.line, lastLine: t.line, name: name, target: target,
                                          parametersStart: parametersStart, isMethod: isMethod, parent: parent))
                if let parent { functions[parent].children.append(index) } else { topLevel.append(index) }
                blocks.append(.function(index))
                if isMethod { functions[index].locals.append(("self", t.offset)); functions[index].parameterCount = 1 }
                // Parameters.
                if tokens[safe: j]?.token == .symbol(UInt8(ascii: "(")) {
                    j += 1
                    while let p = tokens[safe: j], p.token != .symbol(UInt8(ascii: ")")) {
                        if case .name(let param) = p.token {
                            functions[index].locals.append((param, p.offset))
                            functions[index].parameterCount += 1
                        }
                        j += 1
                    }
                    k = j + 1
                } else {
                    k = j
                }
                continue
            case "local":
                var j = k + 1
                if tokens[safe: j]?.token == .name("function") {
                    if currentFunction == nil, case .name(let local) = tokens[safe: j + 1]?.token {
                        addFileLocal(local, offset: tokens[j + 1].offset, line: tokens[j + 1].line, isConst: false, initializer: "function")
                    }
                    k = j
                    continue
                }
                var declared: [(name: String, offset: Int, line: Int, isConst: Bool)] = []
                while case .name(let local) = tokens[safe: j]?.token {
                    declare(local, tokens[j].offset)
                    let at = tokens[j]
                    j += 1
                    var isConst = false
                    if tokens[safe: j]?.token == .symbol(UInt8(ascii: "<")) { // <const>, <close>
                        isConst = tokens[safe: j + 1]?.token == .name("const")
                        j += 3
                    }
                    declared.append((local, at.offset, at.line, isConst))
                    guard tokens[safe: j]?.token == .symbol(UInt8(ascii: ",")) else { break }
                    j += 1
                }
                if currentFunction == nil {
                    let initializer = tokens[safe: j]?.token == .symbol(UInt8(ascii: "=")) ? initializerText(after: j) : ""
                    for d in declared { addFileLocal(d.name, offset: d.offset, line: d.line, isConst: d.isConst, initializer: initializer) }
                }
                k = j
                continue
            case "for":
                var j = k + 1
                while case .name(let variable) = tokens[safe: j]?.token, variable != "in" {
                    declare(variable, tokens[j].offset)
                    j += 1
                    guard tokens[safe: j]?.token == .symbol(UInt8(ascii: ",")) else { break }
                    j += 1
                }
                k = j
                continue
            case "if", "do", "repeat":
                blocks.append(.other)
            case "end", "until":
                if case .function(let f) = blocks.popLast() {
                    functions[f].end = t.end
                    functions[f].lastLine = t.line
                }
            default:
                break
            }
            k += 1
        }
    }
}
