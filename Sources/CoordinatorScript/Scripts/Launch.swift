import CoordinatorCore
import CoordinatorLua

/// How the app was launched, and its launch again (``ScriptRuntime/relaunch()``): the part of a runtime
/// that knows what its scripts found when they first ran and what they changed, so that running them again
/// finds the same world a new process would, with only the storage and the clock carried over.
///
/// The scripts' first run is marked: the globals and modules before it, and what it changed (the prelude's
/// `launchMark`). A relaunch ends the app (its flows hear nothing; their timers and requests go with them),
/// puts the globals the scripts changed back as they were, unloads the modules they loaded, forgets every
/// coordinator class, the routes, `flow.app` and the storage's secret keys, runs the main scripts again as
/// they are now (a new process reads its files: an edit since takes effect) and starts the app in
/// the gateway state it was launched in (unless the scripts choose another as they load), its steps
/// beginning again there. It is one step of its operation: when that fails, all of it is undone, Lua's side
/// too.
final class Launch {
    /// Makes the prelude's mark of the globals and modules before the scripts first run.
    var makeMark: LuaFunction?
    /// The mark of the first run (`note` and `reset`), once a main script ran.
    private var mark: LuaTable?
    /// The gateway's state before the scripts first ran: where a new process starts.
    private(set) var launchState: AppState?
    /// The storage's values the scripts last ran with (what their reads found while they loaded).
    private(set) var storageAtLoad = FlowRecord()
    /// The storage's values before the scripts first ran: where a new runtime of the same session starts
    /// (time travel).
    private(set) var initialStorage = FlowRecord()

    /// A main script is about to run (the first one makes the mark).
    func willRun(_ runtime: ScriptRuntime) throws {
        storageAtLoad = runtime.app.storage.values
        if mark == nil, let makeMark {
            mark = try makeMark.call(as: LuaTable.self)
            launchState = runtime.app.gateway.state
            initialStorage = runtime.app.storage.values
        }
        try mark?.get("before", as: LuaFunction.self).call()
    }

    /// A main script ran: what it changed joins what a relaunch takes back.
    func didRun() throws {
        try mark?.get("note", as: LuaFunction.self).call()
    }

    /// The mark's Lua values: the runtime's own record of the scripts' runs, no part of an app's state.
    var markValues: [any LuaPushable] { mark.map { [$0] } ?? [] }

    /// Whether a relaunch can run the scripts again: a main script ran.
    var canRelaunch: Bool { mark != nil }

    /// Relaunches the app as one step of the running operation (``ScriptRuntime/relaunch()``): the scripts
    /// run again, with the storage as it is now, and the app starts.
    func relaunch(_ runtime: ScriptRuntime) throws {
        try runAgain(runtime, in: launchState ?? runtime.app.gateway.state, width: runtime.app.window.sizeClass)
        runtime.app.emit(.relaunched)
    }

    /// Ends the app, takes back what the scripts changed, runs them again and starts the app in `state`
    /// (unless the scripts set another as they load; with `starting` given, in that one whatever they set),
    /// `width` wide, inside the running operation. With `starting` false, the app is left ended.
    func runAgain(_ runtime: ScriptRuntime, in state: AppState, width: SizeClass, starting: (state: AppState?, start: Bool)? = nil) throws {
        let app = runtime.app, lua = runtime.lua
        guard let mark, !runtime.files.mains.isEmpty else {
            throw LuaError(.misuse, "relaunch: no script was loaded, so there is nothing to launch again")
        }
        // What running the scripts again changes, put back if the operation fails.
        let restore = try runtime.reloads.savepoint?.call(as: LuaFunction.self)
        let saved = (runtime.scriptModule.declaration, runtime.reloads.scriptFunctions, runtime.routes.routes, storageAtLoad, runtime.files,
                     runtime.properties.declared)
        app.undoLog.record(born: 0) { [weak self, weak runtime] in
            _ = try? restore?.callValues()
            guard let runtime else { return }
            (runtime.scriptModule.declaration, runtime.reloads.scriptFunctions, runtime.files) = (saved.0, saved.1, saved.4)
            runtime.routes.restore(saved.2)
            runtime.properties.restore(saved.5)
            self?.storageAtLoad = saved.3
        }
        try app.tearDown()
        runtime.routes.dropHeld(in: runtime) // it belonged to the process that ended
        app.gateway.state = state
        app.setStartingSizeClass(width)
        app.storage.forgetSecrets()
        let keep = try lua.newTable()
        if runtime.driverFunctions.installed { for name in DriverFunctions.names { try keep.rawSet(name, true) } }
        try mark.get("reset", as: LuaFunction.self).call(keep)
        runtime.classes.forgetClasses()
        var declaration = AppDeclaration()
        declaration.count = runtime.scriptModule.declaration.count
        runtime.scriptModule.declaration = declaration
        runtime.reloads.scriptFunctions = []
        runtime.routes.removeAll() // declared again by the scripts, as the properties are
        runtime.properties.removeAll()
        storageAtLoad = app.storage.values
        try mark.get("before", as: LuaFunction.self).call()
        let before = try lua.loadedModules()
        for file in runtime.files.mains { _ = try lua.runMainScript(file.path, arguments: file.arguments) }
        try didRun()
        // The files as they ran now (a new process reads them as they are: an edit since takes effect).
        try runtime.files.add(modules: lua.loadedModules().subtracting(before), in: lua)
        runtime.files.readAll(overrides: lua.sourceOverrides)
        try runtime.routes.check(runtime)
        // A new process starts with none of the old app's garbage: once the operation holds none of it
        // either, it is collected, so that what the heap holds after a relaunch depends on the app alone.
        app.afterCommit { [weak lua] in lua?.collectGarbage(compacting: false) }
        if let starting {
            if let state = starting.state { app.gateway.state = state }
            guard starting.start else { return }
        }
        guard runtime.declaresApplication else {
            throw LuaError(.misuse, "relaunch: the scripts declare no application (flow.app) when they run again")
        }
        try runtime.startRoot()
    }
}
