import CoordinatorCore
import LuaKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One file the app was loaded from, with the text it had when it was last run (scanned only when a
/// reload needs it).
struct ScriptFile {
    let path: String
    /// The module name for files loaded with `require`; nil for a main script.
    let module: String?
    var text: String?

    init(path: String, module: String?) {
        self.path = path
        self.module = module
    }

    mutating func read() { text = readTextFile(path) }
}

/// What a reload did.
public struct ReloadReport: CustomStringConvertible, Sendable {
    /// The files that were run again.
    public var files: [String]
    /// Live handlers (on screens, signals and coordinators) that now run the new code.
    public var updatedHandlers: Int
    /// Live handlers whose code did not change.
    public var unchangedHandlers: Int
    /// Live handlers that keep their old code, each with the reason (`app.lua:58: ...`).
    public var keptHandlers: [String]

    public var description: String {
        var text = "reloaded \(files.joined(separator: ", ")): \(updatedHandlers) live handler\(updatedHandlers == 1 ? "" : "s") updated"
        if !keptHandlers.isEmpty {
            text += "; \(keptHandlers.count) kept their old code:\n" + keptHandlers.map { "  " + $0 }.joined(separator: "\n")
        }
        return text
    }
}

extension ScriptRuntime {
    /// The paths of the files ``reload()`` runs again and `--watch` watches.
    public var scriptFiles: [String] { files.map(\.path) }

    /// Runs the app's script files again without restarting the app.
    ///
    /// Screen types and coordinator classes are redefined in place: the coordinator tree, the navigation
    /// stacks and every screen's inputs stay as they are, live screens take the new inputs, outputs and
    /// rendering, and live coordinators run the new methods from then on. Handlers that running
    /// coordinators installed earlier (`screen.onSelectCity = function() ... end` inside `start`) are
    /// matched with their new text and rebuilt around the same variables (`self`, the screen, locals of
    /// the method that made them), so the next `tap` runs the new code.
    ///
    /// If a script fails, nothing changes: globals, classes, screen types, modules and navigation are as
    /// before, and the error says where.
    ///
    /// ```swift
    /// try runtime.load(script: "scripts/app.lua")
    /// try runtime.start()
    /// // ... edit scripts/app.lua ...
    /// let report = try runtime.reload()   // "reloaded scripts/app.lua, scripts/cities.lua: 2 live handlers updated"
    /// ```
    @discardableResult
    public func reload() throws -> ReloadReport {
        let mains = files.filter { $0.module == nil }
        guard !mains.isEmpty else {
            throw LuaError(.misuse, "there is nothing to reload: no script file was loaded")
        }
        let oldFiles = files
        let oldDefinitions = try definitions?.call(as: [LuaFunction].self) ?? []
        let restore = try snapshot?.call(as: LuaFunction.self)
        let savedFlows = (flows, rootClass)
        var newFiles = files
        do {
            try app.atomically {
                let loaded: LuaTable = try lua.globals.get("package", as: LuaTable.self).get("loaded")
                for file in files { if let module = file.module { try loaded.set(module, LuaValue.nil) } }
                let before = try loadedModules()
                for file in mains { _ = try lua.runMainScript(file.path) }
                for name in try loadedModules().subtracting(before).sorted()
                    where !newFiles.contains(where: { $0.module == name }) {
                    if let path = try modulePath(name) { newFiles.append(ScriptFile(path: path, module: name)) }
                }
            }
        } catch {
            _ = try? restore?.callValues()
            (flows, rootClass) = savedFlows
            if var lua = error as? LuaError {
                lua.message = "reload failed, nothing changed: " + lua.message
                throw lua
            }
            throw error
        }
        for i in newFiles.indices { newFiles[i].read() }
        files = newFiles
        if let root = app.root as? ApplicationCoordinator {
            for (state, type) in flows { root.flows[state] = { [unowned self] in ScriptedCoordinator(runtime: self, type: type) } }
        }
        var rebinder = Rebinder(runtime: self, old: oldFiles, new: newFiles,
                                oldDefinitions: oldDefinitions, newDefinitions: try definitions?.call(as: [LuaFunction].self) ?? [])
        for callback in lua.liveCallbacks {
            try callback.replace(with: rebinder.rebind(callback.function))
        }
        for handlers in lua.liveFunctionSlots {
            for (slot, function) in try handlers.functions {
                let replaced = rebinder.rebind(function)
                if replaced != function { try handlers.set(slot, to: replaced) }
            }
        }
        for coordinator in liveScriptedCoordinators() {
            guard let instance = coordinator.instance else { continue }
            for (key, value) in try instance.pairs() {
                guard let function = value.functionValue, key.stringValue != nil else { continue }
                let replaced = rebinder.rebind(function)
                if replaced != function { try instance.rawSet(key, replaced) }
            }
        }
        return ReloadReport(files: files.map(\.path), updatedHandlers: rebinder.updated,
                            unchangedHandlers: rebinder.unchanged, keptHandlers: rebinder.kept)
    }

    func liveScriptedCoordinators() -> [ScriptedCoordinator] {
        var result: [ScriptedCoordinator] = []
        func walk(_ c: Coordinator) {
            if let s = c as? ScriptedCoordinator { result.append(s) }
            c.children.forEach(walk)
        }
        app.root.map(walk)
        return result
    }

    func loadedModules() throws -> Set<String> {
        guard let package = try lua.globals.get("package", as: LuaTable?.self),
              let loaded = try package.get("loaded", as: LuaTable?.self) else { return [] }
        return Set(try loaded.pairs().compactMap(\.key.stringValue))
    }

    func noteModules(_ names: Set<String>) throws {
        for name in names.sorted() where !files.contains(where: { $0.module == name }) {
            if let path = try modulePath(name) { files.append(ScriptFile(path: path, module: name)) }
        }
    }

    /// The file `require(name)` loads, for modules that come from Lua files.
    func modulePath(_ name: String) throws -> String? {
        guard let package = try lua.globals.get("package", as: LuaTable?.self),
              let search = try package.get("searchpath", as: LuaFunction?.self) else { return nil }
        let path = try package.get("path", as: String.self)
        return try search.callValues(name, path).first?.stringValue
    }
}

/// Gives closures made from the old text of a file the code of the same function in the new text.
///
/// The old closure is found in the old text by its lines; its place there (`Main:start`, 1st function
/// inside, ...) names the function in the new text. That text is compiled with the same chunk name and line
/// numbers, and each of its upvalues is joined to a variable of the old closure of the same name — so it
/// shares `self`, the screen, the locals of the method that made it — except file-level locals, which it
/// takes from the new version of its enclosing top-level function (a reloaded module, a new local table).
struct Rebinder {
    let runtime: ScriptRuntime
    let oldTexts: [String: String]
    let newTexts: [String: String]
    /// Scanned on first use, per path.
    var oldSources: [String: LuaSource] = [:]
    var newSources: [String: LuaSource] = [:]
    /// Functions the scripts define where they can be found, by where they were defined.
    let oldDefinitions: [Definition: LuaFunction]
    let newDefinitions: [Definition: LuaFunction]
    let newFunctions: Set<LuaFunction>
    var memo: [LuaFunction: LuaFunction] = [:]
    var updated = 0, unchanged = 0
    var kept: [String] = []

    struct Definition: Hashable {
        var path: String
        var line: Int
        var lastLine: Int
    }

    init(runtime: ScriptRuntime, old: [ScriptFile], new: [ScriptFile], oldDefinitions: [LuaFunction], newDefinitions: [LuaFunction]) {
        func texts(_ files: [ScriptFile]) -> [String: String] {
            Dictionary(files.compactMap { file in file.text.map { (file.path, $0) } }, uniquingKeysWith: { a, _ in a })
        }
        func index(_ functions: [LuaFunction]) -> [Definition: LuaFunction] {
            Dictionary(functions.compactMap { f in
                f.info.flatMap { info in info.path.map { (Definition(path: $0, line: info.lineDefined, lastLine: info.lastLineDefined), f) } }
            }, uniquingKeysWith: { a, _ in a })
        }
        self.runtime = runtime
        self.oldTexts = texts(old)
        self.newTexts = texts(new)
        self.oldDefinitions = index(oldDefinitions)
        self.newDefinitions = index(newDefinitions)
        self.newFunctions = Set(newDefinitions)
    }

    mutating func sources(for path: String) -> (old: LuaSource, new: LuaSource)? {
        guard let oldText = oldTexts[path], let newText = newTexts[path] else { return nil }
        if oldSources[path] == nil { oldSources[path] = LuaSource(oldText) }
        if newSources[path] == nil { newSources[path] = LuaSource(newText) }
        guard let old = oldSources[path], let new = newSources[path] else { return nil }
        return (old, new)
    }

    mutating func rebind(_ function: LuaFunction) -> LuaFunction {
        if let done = memo[function] { return done }
        let result: LuaFunction
        switch replacement(for: function) {
        case .unchanged:
            unchanged += 1
            result = function
        case .replaced(let new):
            updated += 1
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
        case replaced(LuaFunction)
        case kept(String)
    }

    mutating func replacement(for function: LuaFunction) -> Outcome {
        guard let info = function.info, info.isLua, let path = info.path else { return .unchanged }
        // Functions stored where the scripts define them (class methods) were replaced by running the file.
        if newFunctions.contains(function) { return .unchanged }
        guard let (oldSource, newSource) = sources(for: path) else { return .unchanged }
        let candidates = oldSource.functions(line: info.lineDefined, lastLine: info.lastLineDefined)
        guard candidates.count == 1, let oldIndex = candidates.first else {
            return .kept(candidates.isEmpty ? "its text was not found in the file as it was loaded"
                                            : "more than one function is defined on those lines")
        }
        guard let newIndex = newSource.function(at: oldSource.path(of: oldIndex)) else {
            return .kept("the function that made it is no longer in the file")
        }
        let newFunction = newSource.functions[newIndex]
        if newSource.source(of: newIndex) == oldSource.source(of: oldIndex) && newFunction.line == info.lineDefined {
            return .unchanged
        }
        // The enclosing top-level functions, old and new, as values (to tell file-level locals apart).
        let oldTop = oldDefinitions[Definition(path, oldSource.functions[oldSource.outermost(oldIndex)])]
        let newTop = newDefinitions[Definition(path, newSource.functions[newSource.outermost(newIndex)])]
        do {
            let names = newSource.namesInScope(of: newIndex).filter { $0 != "_ENV" }
            var chunk = names.isEmpty ? "" : "local " + names.joined(separator: ", ") + ";"
            chunk += String(repeating: "\n", count: max(0, newFunction.line - 1)) + "return " + newSource.expression(of: newIndex)
            let made = try runtime.lua.load(chunk, name: "@" + path).call(as: LuaFunction.self)
            let oldUpvalues = try function.upvalues()
            let oldTopUpvalues = try oldTop?.upvalues() ?? []
            let newTopUpvalues = try newTop?.upvalues() ?? []
            for upvalue in try made.upvalues() {
                let mine = oldUpvalues.first { $0.name == upvalue.name }
                if upvalue.name == "_ENV" {
                    if let mine { try made.joinUpvalue(upvalue.index, to: function, upvalue: mine.index) }
                    continue
                }
                let fileLevel = mine.map { mine in oldTopUpvalues.contains { $0.name == mine.name && $0.id == mine.id } } ?? false
                if let mine, !fileLevel {
                    try made.joinUpvalue(upvalue.index, to: function, upvalue: mine.index)
                } else if let newTop, let theirs = newTopUpvalues.first(where: { $0.name == upvalue.name }) {
                    try made.joinUpvalue(upvalue.index, to: newTop, upvalue: theirs.index)
                } else if let mine {
                    try made.joinUpvalue(upvalue.index, to: function, upvalue: mine.index)
                } else {
                    return .kept("the new code uses '\(upvalue.name)', which did not exist when this handler was made")
                }
            }
            return .replaced(made)
        } catch {
            return .kept("\(error)")
        }
    }
}

extension Rebinder.Definition {
    init(_ path: String, _ f: LuaSource.Function) { self.init(path: path, line: f.line, lastLine: f.lastLine) }
}

/// The whole file as text, or nil when it cannot be read.
func readTextFile(_ path: String) -> String? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count > 0 { bytes.append(contentsOf: buffer[0..<count]) }
        if count < buffer.count { break }
    }
    return String(decoding: bytes, as: UTF8.self)
}
