import CoordinatorLua

/// The text of the app's files before and after a reload, scanned on first use (``LuaSource``).
struct SourcePairs {
    let oldTexts: [String: String]
    let newTexts: [String: String]
    private var old: [String: LuaSource] = [:]
    private var new: [String: LuaSource] = [:]

    init(old: [ScriptFile], new: [ScriptFile]) {
        func texts(_ files: [ScriptFile]) -> [String: String] {
            Dictionary(files.compactMap { file in file.text.map { (file.path, $0) } }, uniquingKeysWith: { a, _ in a })
        }
        oldTexts = texts(old)
        newTexts = texts(new)
    }

    /// Both versions of the file at `path`, when it was loaded before and after.
    mutating func sources(for path: String) -> (old: LuaSource, new: LuaSource)? {
        guard let oldText = oldTexts[path], let newText = newTexts[path] else { return nil }
        if old[path] == nil { old[path] = LuaSource(oldText) }
        if new[path] == nil { new[path] = LuaSource(newText) }
        guard let o = old[path], let n = new[path] else { return nil }
        return (o, n)
    }

    /// Whether the function, made from the old text of a reloaded file, has other text in the new one
    /// (found by its path there: `local helper`, `App:start`); false when it cannot be found.
    mutating func textChanged(_ function: LuaFunction) -> Bool {
        guard let site = oldSite(of: function), let newIndex = site.new.function(at: site.old.path(of: site.index)) else { return false }
        return site.new.source(of: newIndex) != site.old.source(of: site.index)
    }

    /// Where a closure made from the old text of a reloaded file was defined: the file, both sources and
    /// its function there (nil for C functions, other chunks, or when its lines name no single function).
    mutating func oldSite(of function: LuaFunction) -> (path: String, old: LuaSource, new: LuaSource, index: Int)? {
        guard let info = function.info, info.isLua, let path = info.path, let (o, n) = sources(for: path) else { return nil }
        let candidates = o.functions(line: info.lineDefined, lastLine: info.lastLineDefined, parameters: info.parameterCount)
        guard candidates.count == 1, let index = candidates.first else { return nil }
        return (path, o, n, index)
    }
}

/// How a variable of new code is bound when its text is compiled for a live closure.
enum Binding {
    /// Shares upvalue `index` of `function`.
    case join(LuaFunction, Int)
    /// A variable of its own holding this value.
    case value(LuaValue)
    /// Cannot be bound; the reason.
    case missing(String)
    /// Left as compiled (`_ENV`: the globals).
    case keep
}

/// Gives closures made from the old text of a file the code of the same function in the new text.
///
/// The old closure is found in the old text by its lines; its path there (`App:start`, then `s.onInc`
/// inside: see ``LuaSource/path(of:)``) names the function in the new text. When that text differs, it is
/// compiled with the same chunk name and line numbers and its variables are bound: file-level locals to
/// the one variable each has after the reload (`FileVariables`), the others (`self`, the screen, locals of
/// the method that made it) to the old closure's. A function whose text is the same but moved is rebuilt
/// too (its errors then name the right lines), and so is one whose only change is inside a handler it
/// sets (new handlers are made from its text); both count as moved, not changed.
struct Rebinder {
    let runtime: ScriptRuntime
    var sources: SourcePairs
    let variables: FileVariables
    /// Functions the scripts define where they can be found (class methods): replaced by running the file.
    let newFunctions: Set<LuaFunction>
    var memo: [LuaFunction: LuaFunction] = [:]
    var unchanged = 0, moved = 0
    /// Live closures now running changed code, by the function's readable name and place.
    var changed: [String: Int] = [:]
    var kept: [String] = []

    init(runtime: ScriptRuntime, sources: SourcePairs, variables: FileVariables, newDefinitions: [LuaFunction]) {
        self.runtime = runtime
        self.sources = sources
        self.variables = variables
        self.newFunctions = Set(newDefinitions)
    }

    mutating func rebind(_ function: LuaFunction) -> LuaFunction {
        if let done = memo[function] { return done }
        let result: LuaFunction
        switch replacement(for: function) {
        case .unchanged:
            unchanged += 1
            result = function
        case .moved(let new):
            moved += 1
            result = new
        case .changed(let new, let name):
            changed[name, default: 0] += 1
            result = new
        case .kept(let reason):
            if let info = function.info, let path = info.path { kept.append("\(path):\(info.lineDefined): \(reason)") }
            result = function
        }
        memo[function] = result
        return result
    }

    enum Outcome {
        case unchanged
        case moved(LuaFunction)
        case changed(LuaFunction, String)
        case kept(String)
    }

    mutating func replacement(for function: LuaFunction) -> Outcome {
        guard let info = function.info, info.isLua, let path = info.path else { return .unchanged }
        if newFunctions.contains(function) { return .unchanged }
        guard let (oldSource, newSource) = sources.sources(for: path) else { return .unchanged }
        let candidates = oldSource.functions(line: info.lineDefined, lastLine: info.lastLineDefined, parameters: info.parameterCount)
        guard candidates.count == 1, let oldIndex = candidates.first else {
            return .kept(candidates.isEmpty ? "its text was not found in the file as it was loaded"
                                            : "more than one function is defined on those lines")
        }
        guard let newIndex = newSource.function(at: oldSource.path(of: oldIndex)) else {
            return .kept("\(oldSource.displayName(of: oldIndex)) is no longer in the file")
        }
        let sameText = newSource.source(of: newIndex) == oldSource.source(of: oldIndex)
        if sameText && newSource.functions[newIndex].line == info.lineDefined { return .unchanged }
        let made = compile(newIndex, of: newSource, path: path) { name, fileLocal in
            if let fileLocal, let cell = variables.cell(path: path, key: fileLocal.key) { return .join(cell.function, cell.index) }
            if let mine = (try? function.upvalues())?.first(where: { $0.name == name }) { return .join(function, mine.index) }
            if name == "_ENV" { return .keep }
            return .missing("the new code uses '\(name)', which did not exist when this handler was made")
        }
        switch made {
        case .success(let new):
            // Rebuilt when any of its text changed (the handlers it sets are made from it); reported as
            // changed when its own code did, not only a handler inside it.
            let ownTextChanged = newSource.ownSource(of: newIndex) != oldSource.ownSource(of: oldIndex)
            return ownTextChanged ? .changed(new, "\(newSource.displayName(of: newIndex)) (\(path):\(newSource.functions[newIndex].line))") : .moved(new)
        case .failure(let reason):
            return .kept(reason.text)
        }
    }

    struct Failure: Error { let text: String }

    /// Compiles function `index` of `source` as a closure, each variable bound by `bind(name, fileLocal)`
    /// (`fileLocal`: the file-level local the name means there, if any). `_ENV` is the globals unless bound.
    func compile(_ index: Int, of source: LuaSource, path: String,
                 bind: (String, LuaSource.FileLocal?) -> Binding) -> Result<LuaFunction, Failure> {
        do {
            let names = source.namesInScope(of: index).filter { $0 != "_ENV" }
            var chunk = names.isEmpty ? "" : "local " + names.joined(separator: ", ") + ";"
            chunk += String(repeating: "\n", count: max(0, source.functions[index].line - 1)) + "return " + source.expression(of: index)
            let made = try runtime.lua.load(chunk, name: "@" + path).call(as: LuaFunction.self)
            for upvalue in try made.upvalues() {
                let fileLocal = upvalue.name == "_ENV" ? nil : source.fileLocal(named: upvalue.name, visibleFrom: index)
                switch bind(upvalue.name, fileLocal) {
                case .join(let other, let n): try made.joinUpvalue(upvalue.index, to: other, upvalue: n)
                case .value(let value): try made.setUpvalue(upvalue.index, to: value)
                case .missing(let reason): return .failure(Failure(text: reason))
                case .keep: break
                }
            }
            return .success(made)
        } catch {
            return .failure(Failure(text: "\(error)"))
        }
    }
}
