import CoordinatorCore
import CoordinatorLua

// Where things are, by Lua concept: Module/ (the `coordinator` module's functions and its Lua prelude),
// Screens/ (screen types, the screen userdata and its methods, script handlers), Coordinators/ (classes,
// instance methods, the scripted coordinator, tree()), Data/ (FlowValue <-> Lua, frozen data, the memo),
// DriverFunctions.swift (tap, back, top, ...), Reload/ (live edit), REPL/ (the engine coordrun drives).
// This file is the front.

/// The scripting runtime: a Lua state and an `Application` wired together, so that an app's flows are Lua
/// scripts (`require "coordinator"`) over the Swift coordinator core.
///
/// ```swift
/// let runtime = try ScriptRuntime(driverFunctions: true)
/// try runtime.load(script: "scripts/app.lua")   // defines screens, coordinators and `flow.app { ... }`
/// try runtime.start()                           // runs the flow the gateway asks for
/// try runtime.app.tap("login", payload: ["name": "Ann", "password": "secret"])
/// try runtime.run("tap('selectCity')")          // any Lua chunk (tap: a driver function)
/// runtime.app.window.visibleScreen?.name        // "Regions"
/// ```
///
/// Every call that changes the app is atomic: if Lua code fails halfway, the navigation state (window,
/// tree, inputs, handlers, gateway) is exactly as before the call.
public final class ScriptRuntime {
    /// The Lua state the app's scripts run in: for a host's own functions and values
    /// (`runtime.lua.globals.set("hostVersion", ...)`).
    public let lua: LuaState
    /// The application the scripts drive: the window, the coordinator tree, the gateway, events.
    public let app: Application
    /// The Lua module table (`require "coordinator"`).
    public internal(set) var module: LuaTable?
    /// The prelude's `metaFor(class)`: the metatable of a coordinator class's instances.
    var metaFor: LuaFunction?
    var flows: [AppState: LuaTable] = [:]
    var rootClass: LuaTable?
    /// How many times scripts called `flow.app` (a REPL starts the app a line declares).
    package internal(set) var appDeclarations = 0
    var swiftCoordinators: [String: () -> Coordinator] = [:]
    /// Coordinator classes run so far, by the address of their table (see ``coordinatorClass(_:_:)``).
    var classCache: [UnsafeRawPointer: CoordinatorClass] = [:]
    /// The files the app was loaded from (main scripts and the modules they required), as last loaded.
    var files: [ScriptFile] = []
    /// The prelude's savepoint of what running the scripts again can change (a failed reload puts it back).
    var savepoint: LuaFunction?
    var definitions: LuaFunction?
    /// The codec of the coordinators' `self` data for snapshots (``StateCodec``): compiled at the first
    /// snapshot or restore, not by every runtime that starts (it would be a third of a runtime's start-up).
    var stateCodec: StateCodec.Loaded = .none
    /// The functions scripts handed to the module that only Swift holds (screen renderings, factories'
    /// choices): where a reload finds closures of the files' new run besides ``definitions``.
    var scriptFunctions: [LuaFunction] = []
    /// The metamethods every frozen table shares (see ``FrozenValue``).
    var dataMetamethods: [(name: String, value: LuaValue)] = []
    /// The `__index` of frozen stores whose nested fields are made on first read (``LazyStores``).
    var lazyStoreIndex: LuaValue?
    /// The names a screen answers in Lua besides its inputs and handlers (methods, `name`, `id`).
    package internal(set) var screenFields: Set<String> = []

    var hasDriverFunctions = false
    /// How the driver functions take a step (its label, such as `tap("login") at app_test.lua:12`, and the
    /// step): nil, as it is; flow tests drive strictly (a tap no handler hears, a screen that does not
    /// render, fail the step) and let the lifecycle oracle follow each step.
    package var stepDriver: ((_ label: String, _ step: () throws -> Void) throws -> Void)?
    /// How it was made, for ``fresh()``.
    struct Configuration {
        let state: AppState
        let libraries: LuaLibraries
        let sandbox: Bool
        let ignoringEnvironment: Bool
        var memory: Int?
        var instructions: Int?
    }
    var configuration: Configuration
    /// How the host makes its router for the app (``start(router:)``), for every start.
    var routerMaker: ((Application) -> any Router)?
    /// The routes the scripts declared (``declaredRoutes``).
    var routes: [Route] = []
    /// The `print` the state started with: while the global is that one, a REPL prints values itself.
    package internal(set) var standardPrint: LuaValue?

    /// Creates a runtime whose gateway starts in `state`, with the Lua standard libraries `libraries`.
    /// With `driverFunctions`, Lua code can also act as the user (`tap`, `back`, `top`, ...: see
    /// ``installDriverFunctions()``), as in a REPL or a test.
    ///
    /// With `sandbox`, the scripts are untrusted: the Lua state is a `LuaSandbox` (no files, no
    /// processes, no `debug`, no binary chunks, `require` only from the app's own folders; `libraries` is
    /// ignored). docs/Security.md says what a sandboxed flow can and cannot do. Without `.package` in
    /// `libraries` (`LuaLibraries.safe`), `require` still loads `"coordinator"` and the app's own Lua
    /// modules from its folder, and nothing else.
    ///
    /// With `ignoringEnvironment` (`lua -E`), `package.path` and `package.cpath` do not come from `LUA_PATH`
    /// and `LUA_CPATH`.
    public init(state: AppState = .authorization, libraries: LuaLibraries = .all, driverFunctions: Bool = false,
                sandbox: Bool = false, ignoringEnvironment: Bool = false) throws {
        configuration = Configuration(state: state, libraries: libraries, sandbox: sandbox, ignoringEnvironment: ignoringEnvironment)
        if sandbox {
            lua = try LuaState(sandbox: LuaSandbox())
        } else if libraries.contains(.package) {
            lua = try LuaState(libraries: libraries, ignoringEnvironment: ignoringEnvironment)
        } else {
            // The module "coordinator" is found through `package`: opened, but loading only it and the app's
            // own Lua modules (as a sandbox does), since the host left `package` out.
            lua = try LuaState(libraries: libraries.union(.package), ignoringEnvironment: ignoringEnvironment)
            try lua.restrictModules()
        }
        app = Application(state: state)
        standardPrint = try lua.globals.get("print", as: LuaValue.self)
        try registerScreenClass()
        try registerCoordinatorClass()
        try registerFrozenData()
        try installModule()
        app.linkOpener = holding(self) { runtime, link in try runtime.open(link) }
        if driverFunctions { try installDriverFunctions() }
    }

    /// Creates a runtime whose gateway starts in the state named `state` (`"authorization"`, `"main"`, or
    /// any state the app declares).
    public convenience init(stateNamed state: String, driverFunctions: Bool = false, sandbox: Bool = false,
                            ignoringEnvironment: Bool = false) throws {
        try self.init(state: AppState(state), driverFunctions: driverFunctions, sandbox: sandbox, ignoringEnvironment: ignoringEnvironment)
    }

    /// Limits for scripts: `memory` caps the bytes the Lua state holds (what Swift makes for Lua in data
    /// conversions counts too), `instructions` the VM instructions of each call into Lua (a driven line, a
    /// handler Swift calls; coroutines count toward the call that resumes them). Exceeding one ends that
    /// call with an error, and the app is as before it. With either set, scripts cannot set `__gc`
    /// metamethods (finalizers run where no limit can stop them). nil lifts a limit.
    public func limit(memory: Int?, instructions: Int?) throws {
        if memory != nil || instructions != nil { try lua.refuseFinalizers() }
        lua.memoryLimit = memory
        lua.instructionBudget = instructions
        (configuration.memory, configuration.instructions) = (memory, instructions)
    }

    /// A new runtime of the same app, not sharing anything with this one: the same gateway state,
    /// libraries, sandbox, limits, driver functions and Swift coordinators, its main scripts loaded again
    /// from their files (as they are now: after an edit, the new code) with the same arguments, and started
    /// when the scripts declare an app. What a host set in the Lua state itself is not in it. With `quiet`,
    /// what the scripts `print` while they load and start is dropped. `sources` (path → text) stand for
    /// those files (`LuaState.sourceOverrides`): the app as it was when its files had those texts.
    public func fresh(quiet: Bool = false, sources: [String: String] = [:]) throws -> ScriptRuntime {
        let new = try ScriptRuntime(state: configuration.state, libraries: configuration.libraries, driverFunctions: hasDriverFunctions,
                                    sandbox: configuration.sandbox, ignoringEnvironment: configuration.ignoringEnvironment)
        if configuration.memory != nil || configuration.instructions != nil {
            try new.limit(memory: configuration.memory, instructions: configuration.instructions)
        }
        new.swiftCoordinators = swiftCoordinators
        new.routerMaker = routerMaker
        new.lua.sourceOverrides = sources
        try new.silencingPrint(quiet) {
            for file in files where file.module == nil {
                let arguments = file.arguments.filter { if case .table = $0 { false } else if case .function = $0 { false } else { true } }
                try new.load(script: file.path, arguments: arguments)
            }
            if new.declaresApplication { try new.start() }
        }
        return new
    }

    /// The text each script file ran with (path → text): main scripts and the modules they required.
    public var sources: [String: String] {
        var result: [String: String] = [:]
        for file in files { if let text = file.text { result[file.path] = text } }
        return result
    }

    /// Runs `body` with the global `print` doing nothing (when `silent`), then gives `print` back unless
    /// the code replaced it meanwhile.
    package func silencingPrint<T>(_ silent: Bool = true, _ body: () throws -> T) throws -> T {
        guard silent else { return try body() }
        let saved = try lua.globals.get("print", as: LuaValue.self)
        let mute = lua.function(name: "print") { _ in }
        try lua.globals.set("print", mute)
        defer {
            if case .function(let now)? = try? lua.globals.get("print", as: LuaValue.self), now == mute { try? lua.globals.set("print", saved) }
        }
        return try body()
    }

    /// Supplies a coordinator written in Swift (a service such as storage or networking, or a whole flow)
    /// under a name: Lua runs it as `self:run(flow.coordinator "Name")`, like a Lua coordinator, and its
    /// result reaches Lua's `onFinish`.
    ///
    /// ```swift
    /// runtime.registerCoordinator("Storage") { StorageCoordinator(name: "Storage") }
    /// ```
    public func registerCoordinator(_ name: String, make: @escaping () -> Coordinator) {
        swiftCoordinators[name] = make
    }

    /// Runs the app's main script (modules next to it are found first), with `arguments` as its `...`.
    /// ``reload(fresh:)`` runs it again, with the modules it required from files.
    public func load(script path: String, arguments: [LuaValue] = []) throws {
        let before = try loadedModules()
        try app.atomically { _ = try lua.runMainScript(path, arguments: arguments) }
        if let i = files.firstIndex(where: { $0.path == path && $0.module == nil }) {
            files[i].arguments = arguments
        } else {
            var file = ScriptFile(path: path, module: nil)
            file.arguments = arguments
            files.append(file)
        }
        try noteModules(loadedModules().subtracting(before))
        for i in files.indices where files[i].text == nil { files[i].read(overrides: lua.sourceOverrides) } // earlier files keep the text they ran
        try checkRoutes()
    }

    /// Runs a Lua chunk with the driver functions (`tap`, `back`, `top`, `stack`, `tree`, `reload`), with
    /// `arguments` as its `...`; if it fails, the navigation state is restored.
    @discardableResult
    public func run(_ code: String, name: String = "input", arguments: [LuaValue] = []) throws -> [LuaValue] {
        try app.atomically { try lua.load(code, name: name).callValues(arguments: arguments) }
    }

    /// Whether the scripts declared an application (`flow.app`), which ``start(router:)`` starts.
    public var declaresApplication: Bool { rootClass != nil || !flows.isEmpty }

    /// Starts the application coordinator declared with `flow.app { state = Coordinator, ... }`.
    ///
    /// It navigates through the router `router` makes for the app (the host's own, such as one that mirrors
    /// a `UINavigationController`: see `Router`), or a headless one on the window's root
    /// stack. The runtime keeps `router` and calls it again whenever it starts the app anew (a link opened
    /// from the start, a restored snapshot), so the host's router always drives the live window.
    ///
    /// ```swift
    /// try runtime.start { app in LoggingRouter(wrapping: app.headlessRouter()) }
    /// ```
    public func start(router: ((Application) -> any Router)? = nil) throws {
        if let router { routerMaker = router }
        let router = routerMaker?(app)
        if let rootClass {
            try app.start(ScriptedCoordinator(runtime: self, type: rootClass), router: router)
            return
        }
        guard !flows.isEmpty else {
            throw LuaError(.misuse, "the script declares no application: call flow.app { authorization = Login, main = Main }")
        }
        let root = ApplicationCoordinator(name: "App")
        for (state, type) in flows {
            root.flows[state] = { [weak self, undo = app.undoLog] in ScriptedCoordinator(runtime: self, undo: undo, type: type) }
        }
        try app.start(root, router: router)
    }

    /// The error a bridge function or a coordinator gives once its runtime is gone (a host kept the Lua
    /// state, a function or a coordinator, and let the runtime go; or a finalizer runs while it closes).
    package static func gone(_ what: String? = nil) -> LuaError {
        LuaError(.misuse, (what.map { "\($0): " } ?? "") + "the coordinator runtime is gone (the ScriptRuntime was released)")
    }
}
