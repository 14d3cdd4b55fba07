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
        var scanner = LuaScanner(text: text)
        scanner.scan()
        (functions, topLevel, topLocals, fileLocals) = (scanner.functions, scanner.topLevel, scanner.topLocals, scanner.fileLocals)
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
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

extension LuaSource {
    /// The fields the methods of coordinator class `name` set on `self` (`self.user = ...`, not `==`), the
    /// class bound to whatever name (`local App = flow.coordinator "Ride"`); strings and comments are not
    /// code.
    func fieldsSetOnSelf(byMethodsOfCoordinatorClass name: String) -> Set<String> {
        let prefixes = Self.variables(boundToCoordinatorClass: name, in: text).map { $0 + ":" }
        var fields: Set<String> = []
        for (index, function) in functions.enumerated() where prefixes.contains(where: { function.name?.hasPrefix($0) == true }) {
            let tokens = LuaScanner.tokens(of: Array(source(of: index).utf8)).map(\.token)
            for i in tokens.indices.dropLast(3) {
                guard tokens[i] == .name("self"), tokens[i + 1] == .symbol(UInt8(ascii: ".")), case .name(let field) = tokens[i + 2],
                      tokens[i + 3] == .symbol(UInt8(ascii: "=")), tokens[safe: i + 4] != .symbol(UInt8(ascii: "=")) else { continue }
                fields.insert(field)
            }
        }
        return fields
    }

    /// The names a source binds the coordinator class `name` to: `name` itself, and each `X` of
    /// `X = M.coordinator "name"` or `X = M.coordinator("name")` (with or without `local`).
    private static func variables(boundToCoordinatorClass name: String, in text: [UInt8]) -> Set<String> {
        let lexemes = LuaScanner.tokens(of: text)
        var names: Set<String> = [name]
        func string(at i: Int) -> String? {
            guard i < lexemes.count, lexemes[i].token == .other else { return nil }
            let bytes = text[lexemes[i].offset..<lexemes[i].end]
            guard bytes.count >= 2, let quote = bytes.first, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'"), bytes.last == quote else { return nil }
            return String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self)
        }
        for i in lexemes.indices.dropLast(5) {
            guard case .name(let variable) = lexemes[i].token, lexemes[i + 1].token == .symbol(UInt8(ascii: "=")),
                  case .name = lexemes[i + 2].token, lexemes[i + 3].token == .symbol(UInt8(ascii: ".")),
                  lexemes[i + 4].token == .name("coordinator") else { continue }
            let argument = lexemes[i + 5].token == .symbol(UInt8(ascii: "(")) ? i + 6 : i + 5
            if string(at: argument) == name { names.insert(variable) }
        }
        return names
    }
}
