import CoordinatorCore
import CoordinatorLua
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
    /// A main script's `...` (its command-line arguments), given again when it runs again.
    var arguments: [LuaValue] = []
    var text: String?

    init(path: String, module: String?) {
        self.path = path
        self.module = module
    }

    mutating func read(overrides: [String: String]) { text = overrides[path] ?? readTextFile(path) }
}

extension ScriptRuntime {
    /// The paths of the files ``reload(fresh:)`` runs again and `--watch` watches.
    public var scriptFiles: [String] { files.map(\.path) }

    /// Runs the app's script files again without restarting the app.
    ///
    /// Screen types and coordinator classes are redefined in place: the coordinator tree, the navigation
    /// stacks and every screen's inputs stay as they are, live screens take the new inputs, outputs and
    /// rendering, and live coordinators run the new methods from then on. Handlers that running
    /// coordinators installed earlier (`screen.onSelectCity = function() ... end` inside `start`) are
    /// matched with their new text and rebuilt around the same variables (`self`, the screen, locals of
    /// the method that made them), so the next `tap` runs the new code; handlers added to (or removed from)
    /// code that already ran reach the live screens it made (`HandlerSites`).
    ///
    /// The app keeps one state: every file-level local stays one variable that old and new closures share,
    /// with its old value unless it holds code or static data (`FileVariables` gives the rules) or is
    /// named in `fresh`, which takes its new value.
    ///
    /// If a script fails, nothing changes: globals, classes, screen types, modules and navigation are as
    /// before, and the error says where.
    ///
    /// ```swift
    /// try runtime.load(script: "scripts/app.lua")
    /// try runtime.start()
    /// // ... edit scripts/app.lua ...
    /// let report = try runtime.reload()   // "reloaded scripts/app.lua, scripts/cities.lua: 1 handler changed ..."
    /// try runtime.reload(fresh: ["cities"])   // the same, and the file-level local `cities` takes its new value
    /// ```
    @discardableResult
    public func reload(fresh: Set<String> = []) throws -> ReloadReport {
        let mains = files.filter { $0.module == nil }
        guard !mains.isEmpty else {
            throw LuaError(.misuse, "there is nothing to reload: no script file was loaded")
        }
        let oldFiles = files
        let oldDefinitions = try definitions?.call(as: [LuaFunction].self) ?? []
        let oldShapes = Definitions(self)
        let holders = handlerHolders()
        let oldModules = Set(try loadedValues())
        let restore = try savepoint?.call(as: LuaFunction.self)
        let savedFlows = (flows, rootClass, scriptFunctions, routes)
        var newFiles = files
        do {
            scriptFunctions = []
            routes = [] // declared again by the scripts: a route taken out of a file goes
            try app.atomically {
                let loaded: LuaTable = try lua.globals.get("package", as: LuaTable.self).get("loaded")
                for file in files { if let module = file.module { try loaded.set(module, LuaValue.nil) } }
                let before = try loadedModules()
                for file in mains { _ = try lua.runMainScript(file.path, arguments: file.arguments) }
                for name in try loadedModules().subtracting(before).sorted()
                    where !newFiles.contains(where: { $0.module == name }) {
                    if let path = try modulePath(name) { newFiles.append(ScriptFile(path: path, module: name)) }
                }
                try checkRoutes()
            }
        } catch {
            _ = try? restore?.callValues()
            (flows, rootClass, scriptFunctions, routes) = savedFlows
            if var lua = error as? LuaError {
                lua.message = "reload failed, nothing changed: " + lua.message
                throw lua
            }
            throw error
        }
        for i in newFiles.indices { newFiles[i].read(overrides: lua.sourceOverrides) }
        files = newFiles
        if let root = app.root as? ApplicationCoordinator {
            for (state, type) in flows { root.flows[state] = { [unowned self] in ScriptedCoordinator(runtime: self, type: type) } }
        }
        var report = ReloadReport(files: files.map(\.path))
        var sources = SourcePairs(old: oldFiles, new: newFiles)
        var sites = HandlerSites(holders: holders, sources: &sources)
        let newDefinitions = try definitions?.call(as: [LuaFunction].self) ?? []

        // One variable per file-level local, shared by old and new closures.
        let live = liveFunctions()
        let variables = FileVariables(sources: &sources,
                                      old: FileVariables.closures(from: oldDefinitions + live),
                                      new: FileVariables.closures(from: newDefinitions + scriptFunctions),
                                      oldModules: oldModules, fresh: fresh)
        // Live closures take their new code.
        var rebinder = Rebinder(runtime: self, sources: sources, variables: variables, newDefinitions: newDefinitions)
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
        sources = rebinder.sources
        // Handlers added to or removed from code that already ran.
        sites.apply(runtime: self, sources: &sources, variables: variables, rebinder: rebinder)

        let newShapes = Definitions(self)
        let methods = Definitions.methodChanges(from: oldShapes, to: newShapes, sources: &sources, runtime: self)
        report.changedHandlers = rebinder.changed.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        report.movedHandlers = rebinder.moved
        report.unchangedHandlers = rebinder.unchanged
        report.addedHandlers = sites.added
        report.removedHandlers = sites.removed
        report.changedScreenTypes = Definitions.screenChanges(from: oldShapes, to: newShapes, live: app.window.allScreens)
        report.addedMethods = methods.added
        report.removedMethods = methods.removed
        report.keptLocals = variables.kept.sorted()
        report.renewedLocals = variables.renewed.sorted() + variables.unknownFresh.map { "\($0): no file-level local of a reloaded file has this name" }
        report.keptHandlers = rebinder.kept + sites.notApplied
        report.waitingHandlers = sites.waiting
        return report
    }

    /// Every Lua function the app holds live: callbacks, screen handlers, coordinator instances' fields.
    func liveFunctions() -> [LuaFunction] {
        var result = lua.liveCallbacks.compactMap { try? $0.function }
        for handlers in lua.liveFunctionSlots { result += ((try? handlers.functions) ?? []).map(\.function) }
        for coordinator in liveScriptedCoordinators() {
            for (_, value) in (try? coordinator.instance?.pairs()) ?? [] { if let f = value.functionValue { result.append(f) } }
        }
        return result
    }

    /// The values of `package.loaded` (modules' tables).
    func loadedValues() throws -> [LuaValue] {
        guard let package = try lua.globals.get("package", as: LuaTable?.self),
              let loaded = try package.get("loaded", as: LuaTable?.self) else { return [] }
        return try loaded.pairs().map(\.value)
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
        return Set(try loaded.stringKeys())
    }

    func noteModules(_ names: Set<String>) throws {
        for name in names.sorted() where !files.contains(where: { $0.module == name }) {
            if let path = try modulePath(name) { files.append(ScriptFile(path: path, module: name)) }
        }
    }

    /// The file `require(name)` loads, for modules that come from Lua files.
    func modulePath(_ name: String) throws -> String? { try lua.moduleFile(name) }
}

/// The whole file as text, or nil when it cannot be read (also coordrun's reader of files).
package func readTextFile(_ path: String) -> String? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    // Read in place, starting at the file's size (one read for a regular file; a pipe's text grows the buffer).
    var info = stat()
    var bytes = [UInt8](repeating: 0, count: fstat(fileno(file), &info) == 0 && info.st_size > 0 ? Int(info.st_size) + 1 : 4096)
    var length = 0
    while true {
        let count = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { fread($0 + length, 1, buffer.count - length, file) } ?? 0
        }
        length += count
        if length < bytes.count { break }
        bytes.append(contentsOf: repeatElement(0, count: bytes.count))
    }
    if ferror(file) != 0 { return nil }
    return String(decoding: bytes[..<length], as: UTF8.self)
}
