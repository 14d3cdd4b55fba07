import CoordinatorCore
import CoordinatorLua

/// Live reload: runs the app's script files again without restarting the app, keeping its state
/// (``ScriptRuntime/reload(fresh:)``). What it keeps between reloads: the prelude's savepoint and
/// definitions, and the functions the scripts handed to Swift.
final class LiveReload {
    /// The prelude's savepoint of what running the scripts again can change (a failed reload puts it back).
    var savepoint: LuaFunction?
    /// The prelude's list of the functions the scripts define where they can be found.
    var definitions: LuaFunction?
    /// The functions scripts handed to the module that only Swift holds (screen renderings, factories'
    /// choices): where a reload finds closures of the files' new run besides ``definitions``.
    var scriptFunctions: [LuaFunction] = []

    /// Reloads the runtime's scripts: ``ScriptRuntime/reload(fresh:)`` says what it keeps and what it changes.
    func reload(_ runtime: ScriptRuntime, fresh: Set<String>) throws -> ReloadReport {
        let app = runtime.app, lua = runtime.lua
        let mains = runtime.files.mains
        guard !mains.isEmpty else {
            throw LuaError(.misuse, "there is nothing to reload: no script file was loaded")
        }
        let oldFiles = runtime.files
        let oldDefinitions = try definitions?.call(as: [LuaFunction].self) ?? []
        let oldShapes = Definitions(runtime)
        let holders = Self.handlerHolders(in: app)
        let oldModules = Set(try lua.loadedValues())
        let restore = try savepoint?.call(as: LuaFunction.self)
        let saved = (runtime.scriptModule.declaration, scriptFunctions, runtime.routes.routes, runtime.properties.declared)
        var newFiles = runtime.files
        do {
            scriptFunctions = []
            runtime.routes.removeAll() // declared again by the scripts: a route taken out of a file goes
            runtime.properties.removeAll() // so is a property
            try app.atomically {
                let loaded: LuaTable = try lua.globals.get("package", as: LuaTable.self).get("loaded")
                for file in runtime.files.files { if let module = file.module { try loaded.set(module, LuaValue.nil) } }
                let before = try lua.loadedModules()
                for file in mains { _ = try lua.runMainScript(file.path, arguments: file.arguments) }
                try newFiles.add(modules: lua.loadedModules().subtracting(before), in: lua)
                try runtime.routes.check(runtime)
            }
        } catch {
            _ = try? restore?.callValues()
            (runtime.scriptModule.declaration, scriptFunctions) = (saved.0, saved.1)
            runtime.routes.restore(saved.2)
            runtime.properties.restore(saved.3)
            if var lua = error as? LuaError {
                lua.message = "reload failed, nothing changed: " + lua.message
                throw lua
            }
            throw error
        }
        newFiles.readAll(overrides: lua.sourceOverrides)
        runtime.files = newFiles
        if let root = app.root as? ApplicationCoordinator { runtime.scriptModule.declaration.wire(root, runtime: runtime) }
        var report = ReloadReport(files: newFiles.paths)
        var sources = SourcePairs(old: oldFiles.files, new: newFiles.files)
        var sites = HandlerSites(holders: holders, sources: &sources)
        let newDefinitions = try definitions?.call(as: [LuaFunction].self) ?? []

        // One variable per file-level local, shared by old and new closures.
        let live = Self.liveFunctions(in: runtime)
        let variables = FileVariables(sources: &sources,
                                      old: FileVariables.closures(from: oldDefinitions + live),
                                      new: FileVariables.closures(from: newDefinitions + scriptFunctions),
                                      oldModules: oldModules, fresh: fresh)
        // Live closures take their new code.
        var rebinder = Rebinder(runtime: runtime, sources: sources, variables: variables, newDefinitions: newDefinitions)
        for callback in lua.liveCallbacks {
            try callback.replace(with: rebinder.rebind(callback.function))
        }
        for handlers in lua.liveFunctionSlots {
            for (slot, function) in try handlers.functions {
                let replaced = rebinder.rebind(function)
                if replaced != function { try handlers.set(slot, to: replaced) }
            }
        }
        for coordinator in Self.liveScriptedCoordinators(in: app) {
            guard let instance = coordinator.instance else { continue }
            for (key, value) in try instance.pairs() {
                guard let function = value.functionValue, key.stringValue != nil else { continue }
                let replaced = rebinder.rebind(function)
                if replaced != function { try instance.rawSet(key, replaced) }
            }
        }
        sources = rebinder.sources
        // Handlers added to or removed from code that already ran.
        sites.apply(runtime: runtime, sources: &sources, variables: variables, rebinder: rebinder)

        let newShapes = Definitions(runtime)
        let methods = Definitions.methodChanges(from: oldShapes, to: newShapes, sources: &sources, runtime: runtime)
        report.changedHandlers = rebinder.changed.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        report.movedHandlers = rebinder.moved
        report.unchangedHandlers = rebinder.unchanged
        report.addedHandlers = sites.added
        report.removedHandlers = sites.removed
        report.changedFunctions = variables.changedFunctions.sorted()
        report.changedScreenTypes = Definitions.screenChanges(from: oldShapes, to: newShapes, sources: &sources, live: app.window.allScreens)
        report.addedMethods = methods.added
        report.removedMethods = methods.removed
        report.keptLocals = variables.kept.sorted()
        report.renewedLocals = variables.renewed.sorted() + variables.unknownFresh.map { "\($0): no file-level local of a reloaded file has this name" }
        report.keptHandlers = rebinder.kept + sites.notApplied
        report.waitingHandlers = sites.waiting
        return report
    }

    /// Every Lua function the app holds live: callbacks, screen handlers, coordinator instances' fields.
    static func liveFunctions(in runtime: ScriptRuntime) -> [LuaFunction] {
        let lua = runtime.lua
        var result = lua.liveCallbacks.compactMap { try? $0.function }
        for handlers in lua.liveFunctionSlots { result += ((try? handlers.functions) ?? []).map(\.function) }
        for coordinator in liveScriptedCoordinators(in: runtime.app) {
            for (_, value) in (try? coordinator.instance?.pairs()) ?? [] { if let f = value.functionValue { result.append(f) } }
        }
        return result
    }

    /// The running coordinators whose behaviour is Lua, parents first.
    static func liveScriptedCoordinators(in app: Application) -> [ScriptedCoordinator] {
        var result: [ScriptedCoordinator] = []
        var pending = app.root.map { [$0] } ?? []
        while let coordinator = pending.popLast() {
            if let scripted = coordinator as? ScriptedCoordinator { result.append(scripted) }
            pending += coordinator.children.reversed()
        }
        return result
    }
}
