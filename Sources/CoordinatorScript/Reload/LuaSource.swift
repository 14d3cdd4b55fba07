/// The function structure of a Lua source file, read without running it: where each `function ... end`
/// starts and ends, how functions nest, and which local names each declares. Hot reload uses it to find,
/// in the new text of a file, the function that corresponds to a closure made from the old text.
struct LuaSource {
    struct Function {
        /// Offsets (UTF-8) of the `function` keyword and just after its `end`.
        var start: Int
        var end: Int
        /// Lines of the `function` keyword and of its `end` (what `debug.getinfo` calls linedefined and
        /// lastlinedefined).
        var line: Int
        var lastLine: Int
        /// `A.b:c` for `function A.b:c(...)`, `local f` for `local function f`, nil for an expression.
        var name: String?
        /// Offset just after the name: where the parameter list starts.
        var parametersStart: Int
        var isMethod: Bool
        var parent: Int?
        var children: [Int] = []
        /// Local names (parameters, `local`, `for` variables) declared in the body, with their offsets.
        var locals: [(name: String, offset: Int)] = []
    }

    let text: [UInt8]
    private(set) var functions: [Function] = []
    /// The main chunk's direct children and its own locals.
    private(set) var topLevel: [Int] = []
    private(set) var topLocals: [(name: String, offset: Int)] = []

    init(_ string: String) {
        text = Array(string.utf8)
        scan()
    }

    // MARK: Queries

    /// The functions that start on `line` and end on `lastLine`.
    func functions(line: Int, lastLine: Int) -> [Int] {
        functions.indices.filter { functions[$0].line == line && functions[$0].lastLine == lastLine }
    }

    /// A key that names a function independently of the lines above it: named top-level functions by
    /// name, others by their position among their unnamed siblings.
    func path(of index: Int) -> [String] {
        var path: [String] = []
        var current: Int? = index
        while let i = current {
            let f = functions[i]
            let siblings = f.parent.map { functions[$0].children } ?? topLevel
            if let name = f.name, f.parent == nil {
                path.append("name " + name)
            } else {
                let unnamed = siblings.filter { functions[$0].name == nil || functions[$0].parent != nil }
                path.append("#\(unnamed.firstIndex(of: i) ?? -1)")
            }
            current = f.parent
        }
        return path.reversed()
    }

    func function(at path: [String]) -> Int? {
        var siblings = topLevel
        var found: Int?
        for (depth, step) in path.enumerated() {
            if step.hasPrefix("name ") {
                let name = String(step.dropFirst(5))
                found = siblings.first { functions[$0].name == name && depth == 0 }
            } else {
                let unnamed = siblings.filter { functions[$0].name == nil || functions[$0].parent != nil }
                guard let n = Int(step.dropFirst()), unnamed.indices.contains(n) else { return nil }
                found = unnamed[n]
            }
            guard let f = found else { return nil }
            siblings = functions[f].children
        }
        return found
    }

    /// The outermost function that contains `index` (itself when it is top-level).
    func outermost(_ index: Int) -> Int {
        var i = index
        while let parent = functions[i].parent { i = parent }
        return i
    }

    /// Every local name visible (or possibly visible: block scopes are not tracked) where function
    /// `index` starts: the locals of its enclosing functions and of the main chunk declared before it.
    func namesInScope(of index: Int) -> [String] {
        let start = functions[index].start
        var names = Set(topLocals.filter { $0.offset < start }.map(\.name))
        var current = functions[index].parent
        while let i = current {
            for local in functions[i].locals where local.offset < start { names.insert(local.name) }
            current = functions[i].parent
        }
        return names.sorted()
    }

    /// The function's source as an expression: `function(params) ... end` (names dropped; a method gets its
    /// `self` parameter written out).
    func expression(of index: Int) -> String {
        let f = functions[index]
        var rest = String(decoding: text[f.parametersStart..<f.end], as: UTF8.self)
        if f.isMethod, let open = rest.firstIndex(of: "(") {
            let afterOpen = rest[rest.index(after: open)...]
            let empty = afterOpen.drop { $0 == " " || $0 == "\t" }.first == ")"
            rest = String(rest[...open]) + (empty ? "self" : "self, ") + afterOpen
        }
        return "function" + rest
    }

    func source(of index: Int) -> Substring {
        let f = functions[index]
        return Substring(String(decoding: text[f.start..<f.end], as: UTF8.self))
    }

    // MARK: Scanning

    private enum Token: Equatable {
        case name(String)
        case symbol(UInt8)
        case other
    }

    private mutating func scan() {
        var tokens: [(token: Token, offset: Int, end: Int, line: Int)] = []
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
            if c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") || (c == UInt8(ascii: ".") && at(i + 1) >= UInt8(ascii: "0") && at(i + 1) <= UInt8(ascii: "9")) {
                while i < n, text[i] == UInt8(ascii: ".") || text[i] == UInt8(ascii: "_") || (text[i] | 0x20 >= UInt8(ascii: "a") && text[i] | 0x20 <= UInt8(ascii: "z"))
                    || (text[i] >= UInt8(ascii: "0") && text[i] <= UInt8(ascii: "9"))
                    || ((text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-")) && [UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "p"), UInt8(ascii: "P")].contains(text[i - 1])) { i += 1 }
                tokens.append((.other, start, i, startLine))
                continue
            }
            i += 1
            tokens.append((.symbol(c), start, i, startLine))
        }

        // Blocks: `function`, `if`, `do` (also of while/for) and `repeat` open; `end` and `until` close.
        enum Block { case function(Int), other }
        var blocks: [Block] = []
        var currentFunction: Int? { for b in blocks.reversed() { if case .function(let f) = b { return f } }; return nil }
        func declare(_ name: String, _ offset: Int) {
            if let f = currentFunction { functions[f].locals.append((name, offset)) } else { topLocals.append((name, offset)) }
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
                let index = functions.count
                let parent = currentFunction
                functions.append(Function(start: t.offset, end: t.end, line: t.line, lastLine: t.line, name: name,
                                          parametersStart: parametersStart, isMethod: isMethod, parent: parent))
                if let parent { functions[parent].children.append(index) } else { topLevel.append(index) }
                blocks.append(.function(index))
                if isMethod { functions[index].locals.append(("self", t.offset)) }
                // Parameters.
                if tokens[safe: j]?.token == .symbol(UInt8(ascii: "(")) {
                    j += 1
                    while let p = tokens[safe: j], p.token != .symbol(UInt8(ascii: ")")) {
                        if case .name(let param) = p.token { functions[index].locals.append((param, p.offset)) }
                        j += 1
                    }
                    k = j + 1
                } else {
                    k = j
                }
                continue
            case "local":
                var j = k + 1
                if tokens[safe: j]?.token == .name("function") { k = j; continue }
                while case .name(let local) = tokens[safe: j]?.token {
                    declare(local, tokens[j].offset)
                    j += 1
                    if tokens[safe: j]?.token == .symbol(UInt8(ascii: "<")) { j += 3 } // <const>, <close>
                    guard tokens[safe: j]?.token == .symbol(UInt8(ascii: ",")) else { break }
                    j += 1
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

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
