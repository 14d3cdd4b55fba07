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
        /// For an expression, where it is stored: `s.onInc` for `s.onInc = function ...`, `onInc` for
        /// `onInc = function ...` (a global, or a field in a table constructor); nil otherwise.
        var target: String?
        /// Offset just after the name: where the parameter list starts.
        var parametersStart: Int
        var isMethod: Bool
        /// Its fixed parameters (`self` of a method included; `...` not counted).
        var parameterCount = 0
        var parent: Int?
        var children: [Int] = []
        /// Local names (parameters, `local`, `for` variables) declared in the body, with their offsets.
        var locals: [(name: String, offset: Int)] = []
    }

    /// A local variable of the main chunk (`local counter = { n = 0 }`): the file-level state a reload keeps.
    struct FileLocal: Hashable {
        var name: String
        /// Which declaration of that name it is (0 for the first): `local x = 1 ... local x = 2` are two.
        var ordinal: Int
        var offset: Int
        var line: Int
        /// Declared `<const>`: static data, whose new value a reload takes when its initializer changed.
        var isConst: Bool
        /// The initializer's tokens, one space apart (`{ n = 0 }`); empty when there is none.
        var initializer: String

        /// `counter`, or `counter#2` for a later declaration of the same name.
        var key: String { ordinal == 0 ? name : "\(name)#\(ordinal + 1)" }
    }

    let text: [UInt8]
    private(set) var functions: [Function] = []
    /// The main chunk's direct children and its own locals.
    private(set) var topLevel: [Int] = []
    private(set) var topLocals: [(name: String, offset: Int)] = []
    /// The main chunk's locals, in order.
    private(set) var fileLocals: [FileLocal] = []
    private var paths: [[String]] = []
    private var functionsByLines: [Lines: [Int]] = [:]
    private var functionsByPath: [[String]: Int] = [:]

    init(_ string: String) {
        text = Array(string.utf8)
        scan()
        indexPaths()
    }

    // MARK: Queries

    /// The functions that start on `line` and end on `lastLine` (with `parameters` fixed parameters, when
    /// given: tells a one-line function from another on the same line).
    func functions(line: Int, lastLine: Int, parameters: Int? = nil) -> [Int] {
        let all = functionsByLines[Lines(line: line, lastLine: lastLine)] ?? []
        guard all.count > 1, let parameters else { return all }
        return all.filter { functions[$0].parameterCount == parameters }
    }

    private struct Lines: Hashable { var line: Int; var lastLine: Int }

    /// What names a function among its siblings: its name (`App:start`, `local helper`), else where it is
    /// stored (`s.onInc`), else nothing (it is then known by its position among the unnamed).
    func key(of index: Int) -> String? {
        let f = functions[index]
        if let name = f.name { return "name " + name }
        if let target = f.target { return "target " + target }
        return nil
    }

    /// A key that names a function independently of the lines above it: each step is the function's key
    /// among its siblings with the same key (`target s.onInc#0`), or its position among the siblings that
    /// have no key (`#1`). Adding a handler above another does not change the other's path.
    func path(of index: Int) -> [String] { paths[index] }

    func function(at path: [String]) -> Int? { functionsByPath[path] }

    /// Every function's path (computed once, in one pass over the tree).
    private mutating func indexPaths() {
        paths = Array(repeating: [], count: functions.count)
        var queue: [(siblings: [Int], prefix: [String])] = [(topLevel, [])]
        while let (siblings, prefix) = queue.popLast() {
            var seen: [String: Int] = [:]
            for i in siblings {
                let key = key(of: i) ?? ""
                let n = seen[key, default: 0]
                seen[key] = n + 1
                paths[i] = prefix + [key + "#\(n)"]
                functionsByLines[Lines(line: functions[i].line, lastLine: functions[i].lastLine), default: []].append(i)
                functionsByPath[paths[i]] = i
                if !functions[i].children.isEmpty { queue.append((functions[i].children, paths[i])) }
            }
        }
    }

    /// A readable name for a function: `App:start`, `s.onInc in App:start`, `function in App:start`.
    func displayName(of index: Int) -> String {
        let f = functions[index]
        let own = f.name.map { $0.hasPrefix("local ") ? String($0.dropFirst(6)) : $0 } ?? f.target ?? "function"
        guard let parent = f.parent else { return own }
        return own + " in " + displayName(of: outermostNamed(parent))
    }

    /// The nearest enclosing function with a name or a target (itself when it has one).
    private func outermostNamed(_ index: Int) -> Int {
        var i = index
        while functions[i].name == nil && functions[i].target == nil, let parent = functions[i].parent { i = parent }
        return i
    }

    /// The file-level local that the name means inside function `index`, or nil when it means something
    /// else there (a local of an enclosing function, a global).
    func fileLocal(named name: String, visibleFrom index: Int) -> FileLocal? {
        let start = functions[index].start
        var current: Int? = index
        while let i = current {
            if functions[i].locals.contains(where: { $0.name == name && $0.offset < start }) { return nil }
            current = functions[i].parent
        }
        return fileLocals.last { $0.name == name && $0.offset < start }
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

    /// The function's own text: its source with each nested function's text left out (a change inside
    /// a handler a function sets is that handler's change, not its own).
    func ownSource(of index: Int) -> String {
        let f = functions[index]
        var result = ""
        var position = f.start
        for child in f.children.sorted(by: { functions[$0].start < functions[$1].start }) {
            let c = functions[child]
            result += String(decoding: text[position..<c.start], as: UTF8.self) + "function...end"
            position = c.end
        }
        return result + String(decoding: text[position..<f.end], as: UTF8.self)
    }

    func source(of index: Int) -> Substring {
        let f = functions[index]
        return Substring(String(decoding: text[f.start..<f.end], as: UTF8.self))
    }

    // MARK: Scanning

    /// Symbols that, ending a line, continue an expression on the next; that, starting a line, continue
    /// the one before; and the keywords that start a statement.
    private static let continuing: Set<UInt8> = Set("+-*/%^#&~|<>=,(.{[:".utf8)
    private static let closing: Set<UInt8> = Set("+-*/%^&|<>=.)}]:,".utf8)
    private static let statements: Set<String> = ["local", "return", "if", "for", "while", "repeat", "goto", "break", "do", "end", "until", "else", "elseif"]

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

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
