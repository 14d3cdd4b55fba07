import CoordinatorCore
import CoordinatorLua

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
///
/// The runtime is the front of parts that each own one concept: the `coordinator` module and what
/// `flow.app` declared, screens in Lua, coordinator classes, frozen data, the files the app was loaded
/// from, live reload, the routes, snapshots, and the driver functions.
public final class ScriptRuntime {
    /// The Lua state the app's scripts run in: for a host's own functions and values
    /// (`runtime.lua.globals.set("hostVersion", ...)`).
    public let lua: LuaState
    /// The application the scripts drive: the window, the coordinator tree, the gateway, events.
    public let app: Application

    /// The `coordinator` module, and what `flow.app` declared.
    let scriptModule = ScriptModule()
    /// Screen types and the screen userdata.
    let screens: ScreenBridge
    /// Coordinator classes, Lua's and the host's Swift ones.
    let classes = CoordinatorClasses()
    /// Frozen data.
    let data = DataBridge()
    /// The files the app was loaded from.
    var files = ScriptFiles()
    /// What live reload keeps between reloads.
    let reloads = LiveReload()
    /// How the app was launched, for its launch again.
    let launch = Launch()
    /// Where the app's storage is kept between launches.
    let storageKeeper = StorageKeeper()
    /// The deep links the scripts declare.
    let routes = RouteTable()
    /// Tells the app's states apart (``stateIdentity(views:also:excluding:randomState:)``).
    package let identities = StateIdentities()
    /// The invariants and reachable properties the scripts declare.
    let properties = Properties()
    /// Snapshots, and their codec.
    package let snapshots = Snapshots()
    /// `tap`, `back`, `top`, ... for scripts that act as the user.
    package let driverFunctions = DriverFunctions()
    /// How it was made, for ``fresh(quiet:sources:)``.
    /// How it was made, and making another the same (``fresh(quiet:sources:)``).
    var recipe: RuntimeRecipe
    /// The `print` the state started with: while the global is that one, a REPL prints values itself.
    package let standardPrint: LuaValue?

    /// Whether the scripts run in the sandbox (no files, no processes): the tools over the runtime then
    /// write nothing on the scripts' behalf either.
    package var isSandboxed: Bool { recipe.sandbox }

    /// Whether the app's steps are kept free of loops (on for ``ScriptSession`` and ``ScriptHost``, off by
    /// default): the state's identity is noted when the app starts and at every ``snapshot()``, and a
    /// snapshot that finds the app in a state it was in after fewer of its steps drops the steps taken since
    /// (from ``Application/steps`` too). A conversation that goes back and forth then restores as fast as a
    /// short one. A snapshot carries what was noted (`stateKeys`) and a restore takes it back. Costs a walk of
    /// the state at each snapshot; the REPL and the flow tests keep every step (time travel and recording
    /// read them).
    public var dropsStepLoops = false

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
    ///
    /// With `imageable`, the scripts' heap lives in one region of address space the runtime owns (a
    /// gigabyte reserved, used as the heap grows), so that exploration can take it back in microseconds
    /// instead of replaying a path: its branches then run from images of it (docs/Explore.md). The region's
    /// size is then a memory limit of its own.
    public init(state: AppState = .authorization, libraries: LuaLibraries = .all, driverFunctions: Bool = false,
                sandbox: Bool = false, ignoringEnvironment: Bool = false, imageable: Bool = false) throws {
        recipe = RuntimeRecipe(state: state, libraries: libraries, sandbox: sandbox, ignoringEnvironment: ignoringEnvironment)
        let arena = imageable ? Self.arenaBytes : nil
        if sandbox {
            lua = try LuaState(sandbox: LuaSandbox(), arenaBytes: arena)
        } else if libraries.contains(.package) {
            lua = try LuaState(libraries: libraries, ignoringEnvironment: ignoringEnvironment, arenaBytes: arena)
        } else {
            // The module "coordinator" is found through `package`: opened, but loading only it and the app's
            // own Lua modules (as a sandbox does), since the host left `package` out.
            lua = try LuaState(libraries: libraries.union(.package), ignoringEnvironment: ignoringEnvironment, arenaBytes: arena)
            try lua.restrictModules()
        }
        app = Application(state: state)
        screens = ScreenBridge(lua: lua, app: app)
        standardPrint = try lua.globals.get("print", as: LuaValue.self)
        try screens.install(in: self)
        try classes.install(in: self)
        try data.install(in: self)
        try scriptModule.install(in: self)
        app.scripting.openLink = holding(self) { runtime, link in try runtime.open(link) }
        app.scripting.relaunch = { [weak self] in
            guard let self else { throw ScriptRuntime.gone() }
            try launch.relaunch(self)
        }
        // A later (`self:later`) that fails is undone alone, unless what stopped it stops everything.
        app.scripting.isFatal = { error in
            guard let error = error as? LuaError else { return false }
            return [.memory, .interrupted, .budgetExhausted, .misuse].contains(error.kind)
        }
        app.dataNotation = \.luaLiteral
        if driverFunctions { try installDriverFunctions() }
    }

    /// Creates a runtime whose gateway starts in the state named `state` (`"authorization"`, `"main"`, or
    /// any state the app declares).
    public convenience init(stateNamed state: String, driverFunctions: Bool = false, sandbox: Bool = false,
                            ignoringEnvironment: Bool = false, imageable: Bool = false) throws {
        try self.init(state: AppState(state), driverFunctions: driverFunctions, sandbox: sandbox, ignoringEnvironment: ignoringEnvironment,
                      imageable: imageable)
    }

    /// The address space an imageable runtime reserves for its scripts' heap.
    static let arenaBytes = 1 << 30

    /// Limits for scripts: `memory` caps the bytes the Lua state holds (what Swift makes for Lua in data
    /// conversions counts too), `instructions` the VM instructions of each call into Lua (a driven line, a
    /// handler Swift calls; coroutines count toward the call that resumes them). Exceeding one ends that
    /// call with an error, and the app is as before it. With either set, scripts cannot set `__gc`
    /// metamethods (finalizers run where no limit can stop them). nil lifts a limit.
    public func limit(memory: Int?, instructions: Int?) throws {
        if memory != nil || instructions != nil { try lua.refuseFinalizers() }
        lua.memoryLimit = memory
        lua.instructionBudget = instructions
        (recipe.memory, recipe.instructions) = (memory, instructions)
    }

    /// A new runtime of the same app, not sharing anything with this one: the same gateway state, device,
    /// libraries, sandbox, limits, driver functions and Swift coordinators, the storage this one had before
    /// its scripts first ran (saved nowhere: ``takeStorage(from:)`` gives it this one's store), its main scripts loaded again
    /// from their files (as they are now: after an edit, the new code) with the same arguments, and started
    /// when the scripts declare an app. What a host set in the Lua state itself is not in it. With `quiet`,
    /// what the scripts `print` while they load and start is dropped. `sources` (path → text) stand for
    /// those files (`LuaState.sourceOverrides`): the app as it was when its files had those texts.
    public func fresh(quiet: Bool = false, sources: [String: String] = [:]) throws -> ScriptRuntime {
        try recipe.make(like: self, quiet: quiet, sources: sources)
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
        classes.swiftCoordinators[name] = make
    }

    /// Installs the driver functions as globals, once: `tap(output [, payload])`, `back()`, `dismiss()` (the
    /// swipe-down of the whole top modal), `open(url)` (a deep link: ``open(_:)``), `top()` (the visible
    /// screen), `tab(n)` or `tab("Title")`, `stack()` (the visible stack's screen names), `tree()` (the
    /// coordinator tree), `snapshot()` and `restore(json)` (``snapshot()``, ``restore(_:)``) and
    /// `reload(...)` (``reload(fresh:)``).
    public func installDriverFunctions() throws { try driverFunctions.install(in: self) }

    /// Installs the driver functions (``installDriverFunctions()``) as soon as the scripts declare an app
    /// (`flow.app`), not before: a plain script's globals are Lua's own, as under `lua`.
    package func installDriverFunctionsWhenAppDeclared() { driverFunctions.whenAppDeclared = true }

    // MARK: Storage

    /// Whether ``relaunch()`` can run the scripts again: a main script was loaded.
    package var canRelaunch: Bool { launch.canRelaunch }

    /// The storage's values before the scripts first ran (where a new runtime of the same session starts).
    package var initialStorage: FlowRecord { launch.initialStorage }

    /// Where the app's storage lives between launches, once ``useStorage(_:)`` named it.
    public var storageStore: (any ScriptStorage)? { storageKeeper.store }

    /// Keeps the app's storage (``Application/storage``, `flow.storage`) in `store`: its values are loaded
    /// now, in place of the storage's (call it before the scripts load, which may read them), and saved
    /// after every operation that changes one (a save that fails fails the operation). A store that cannot
    /// be loaded is an error, and nothing changes.
    public func useStorage(_ store: any ScriptStorage) throws { try storageKeeper.use(store, in: app) }

    /// The storage starts with `values`, saved nowhere (before the scripts load: a tool's seed, a new
    /// runtime of a session's start).
    package func seedStorage(_ values: FlowRecord) throws { try storageKeeper.seed(values, in: app) }

    /// Takes `other`'s store (``useStorage(_:)``) in place of this runtime's, and saves this one's values in
    /// it now: a new runtime of the same app (time travel) that becomes the one the user drives.
    package func takeStorage(from other: ScriptRuntime) throws { try storageKeeper.take(from: other.storageKeeper, in: app) }

    // MARK: Scripts

    /// The Lua module table (`require "coordinator"`).
    public var module: LuaTable? { scriptModule.table }

    /// Runs the app's main script (modules next to it are found first), with `arguments` as its `...`.
    /// ``reload(fresh:)`` runs it again, with the modules it required from files.
    public func load(script path: String, arguments: [LuaValue] = []) throws {
        let before = try lua.loadedModules()
        try app.atomically {
            try launch.willRun(self)
            _ = try lua.runMainScript(path, arguments: arguments)
            try launch.didRun()
        }
        try files.ran(main: path, arguments: arguments, loaded: lua.loadedModules().subtracting(before), in: lua)
        try routes.check(self)
    }

    /// Runs a Lua chunk with the driver functions (`tap`, `back`, `top`, `stack`, `tree`, `reload`), with
    /// `arguments` as its `...`; if it fails, the navigation state is restored.
    @discardableResult
    public func run(_ code: String, name: String = "input", arguments: [LuaValue] = []) throws -> [LuaValue] {
        try app.atomically { try lua.program(lua.load(code, name: name)).callValues(arguments: arguments) }
    }

    /// The paths of the files ``reload(fresh:)`` runs again and `--watch` watches: main scripts and the
    /// modules they required.
    public var scriptFiles: [String] { files.paths }

    /// The text each script file ran with (path → text): main scripts and the modules they required.
    public var sources: [String: String] { files.sources }

    /// The identity of the scripts this runtime loaded (``AppSnapshot``): a snapshot restores only into the
    /// same scripts.
    public var scriptsDigest: String { files.digest }

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
        let report = try reloads.reload(self, fresh: fresh)
        reloadCount &+= 1
        return report
    }

    /// How many reloads succeeded: a REPL draws the visible screen again when one changed its text.
    package private(set) var reloadCount = 0

    // MARK: The app

    /// Whether the scripts declared an application (`flow.app`), which ``start(router:)`` starts.
    public var declaresApplication: Bool { scriptModule.declaration.declaresApplication }

    /// What a coordinator class the scripts defined has of its own: its methods (the functions in its class
    /// table) and the fields its methods set on `self` (`self.user = ...`, read from the scripts' text), for
    /// editor annotations.
    package func members(ofCoordinatorClass name: String) -> (methods: [String], fields: [String]) {
        scriptModule.members(ofClass: name, texts: files.files.compactMap(\.text))
    }

    /// The methods every coordinator instance has in Lua (`push`, `run`, `finish`, ...).
    package var coordinatorMethodNames: [String] { CoordinatorMethods.all.map(\.name) }

    /// The coordinator classes the scripts declared (`flow.coordinator "Name"`), sorted.
    package var coordinatorClassNames: [String] { scriptModule.classNames }

    /// How many times scripts called `flow.app` (a REPL starts the app a line declares).
    package var appDeclarations: Int { scriptModule.declaration.count }

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
        try startRoot(router: router)
        if dropsStepLoops { try snapshots.loops.settle(in: self) } // the start's state, where a conversation may come back
    }

    /// Starts the root the scripts declare (``start(router:)`` without noting the state: a reset, a restore
    /// and a relaunch start it inside their operation).
    package func startRoot(router: ((Application) -> any Router)? = nil) throws {
        if let router { recipe.routerMaker = router }
        // A root flow that finishes starts again (`flow.app(Class)`), as the gateway's flows do; and
        // `flow.restart(state)` makes the root the scripts declare now.
        app.makeRootAgain = { [unowned self] in try scriptModule.declaration.makeRoot(self) }
        try app.start(scriptModule.declaration.makeRoot(self), router: recipe.routerMaker?(app))
    }

    /// Ends the app (its root flow finishes, the window empties) and puts the gateway in `state` and the
    /// window `width` wide, as one operation; with `starting`, starts the app again. For tools that do many
    /// pieces of work in one runtime (exploration's branches, flow tests, the route check), each from the
    /// app's start.
    ///
    /// With `storage`, the storage takes those values too (with `keepingSecrets`, its secret keys keep
    /// theirs unless given), and when the scripts last ran with other values (a relaunch since, or a
    /// storage written since they loaded), they run again first, as a relaunch runs them: the app is then
    /// the one a new process with that storage starts. With another `idiom`, the app runs on that device
    /// from now on, its scripts run again first too.
    package func reset(to state: AppState, width: SizeClass = .regular, storage: FlowRecord? = nil, keepingSecrets: Bool = false,
                       idiom: Idiom? = nil, starting: Bool) throws {
        try app.atomically {
            routes.dropHeld(in: self) // a link held belongs to the app that ends
            // Another device: the scripts run again on it, as a launch there runs them (they may ask).
            var again = false
            if let idiom, idiom != app.idiom {
                app.setIdiom(idiom)
                again = true
            }
            if let storage {
                app.storage.replaceAll(with: storage, keepingSecrets: keepingSecrets)
                if launch.storageAtLoad != app.storage.values { again = true }
            }
            if again, launch.canRelaunch {
                return try launch.runAgain(self, in: state, width: width, starting: (state, starting))
            }
            try app.tearDown()
            app.gateway.state = state
            app.setStartingSizeClass(width)
            if starting { try startRoot() }
        }
    }

    /// The app is closed and launched again, as a new process launches it (one step: ``Application/relaunch()``):
    /// its scripts run again from a clean slate — the globals they set and the modules they loaded taken back,
    /// every class, route and flow declared again — and the app starts in the gateway state it was launched
    /// in (or the one the scripts choose as they load: they can read ``Application/storage``). Only the
    /// storage and the clock carry over; the steps begin again. Fails, changing nothing, when the scripts
    /// fail or no script was loaded.
    public func relaunch() throws { try app.relaunch() }

    /// Opens a link: finds the route it matches and takes its steps (from the app's start, or from where it
    /// is, as the route says), as one atomic operation. An unknown link, a parameter that resolves to
    /// nothing, a step that finds the app elsewhere: an error naming the link and the step, and the app
    /// exactly as before. The steps record the link (`Application.steps`), not the taps it made.
    ///
    /// A link whose route requires a gateway state the app is not in (`requires = "main"`) is held instead
    /// (``LinkOutcome/held``): it continues, from where the app is, once the app runs that state's flow.
    @discardableResult
    public func open(_ url: String) throws -> LinkOutcome { try routes.open(url, in: self) }

    /// The link held until the app is in the gateway state its route requires, if any.
    public var heldLink: String? { routes.held?.url }

    /// The gateway state the held link waits for.
    package var heldLinkState: AppState? { routes.held?.route.requires }

    /// The routes the scripts declare, in the order declared (a route declared again, by a reload,
    /// replaces the old one in place).
    public var declaredRoutes: [Route] { routes.routes }

    /// The whole app's state as a JSON document (``AppSnapshot``): the format, the scripts' identity, the
    /// gateway's state, every container and screen with its inputs, every coordinator with its class and
    /// the plain data it keeps in `self`, and the steps that led there.
    public func snapshot() throws -> String { try snapshots.take(of: self) }

    /// Rebuilds the app a snapshot describes (``snapshot()``), in place of the app this runtime runs, as one
    /// atomic operation: the same scripts are required (the format and the scripts' digest are checked
    /// first), the snapshot's steps are taken again from the app's start, the data they do not rebuild is
    /// set, and the result must equal the snapshot. Any failure is an error that says where, and the app is
    /// as it was.
    ///
    /// In a fresh runtime (`coordrun --restore FILE`) the result is the snapshotted app; in one that ran
    /// before, data the scripts keep outside coordinators (a file-level local) is what this runtime has.
    ///
    /// A snapshot of steps that tapped an output with a secret payload (a password) cannot be restored
    /// here: the snapshot does not hold the secret. ``restore(_:secrets:)`` supplies it.
    ///
    /// A snapshot's scripts are named by their code (comments and layout aside). A snapshot of scripts whose
    /// code changed since is restored when its steps still build the same app here, and the warning says
    /// so (``RestoreWarning``); else it is refused with both reasons.
    @discardableResult
    public func restore(_ json: String) throws -> RestoreWarning? { try restore(json: json, secrets: nil) }

    /// ``restore(_:)``, asking `secrets` for each secret that a replayed step's payload needs
    /// (``SnapshotSecret``): the parts of payloads that outputs declare secret, which snapshots never hold.
    /// What `secrets` throws ends the restore (the app as before).
    @discardableResult
    public func restore(_ json: String, secrets: (SnapshotSecret) throws -> FlowValue) throws -> RestoreWarning? {
        try withoutActuallyEscaping(secrets) { secrets in try restore(json: json, secrets: secrets) }
    }

    /// The key that signs the snapshots this runtime takes, and without whose signature it restores none
    /// (``SnapshotKey``); nil (the default): snapshots are neither signed nor checked.
    public var snapshotKey: SnapshotKey? {
        get { snapshots.key }
        set { snapshots.key = newValue }
    }

    /// The most bytes a snapshot file may hold: 64 MiB, far above any app's (a snapshot holds the steps
    /// and what the screens show), far below what would exhaust memory on the way.
    public static let maximumSnapshotBytes = 64 << 20

    /// ``restore(_:)`` of the snapshot in the file at `path` (of at most ``maximumSnapshotBytes``).
    @discardableResult
    public func restore(contentsOf path: String) throws -> RestoreWarning? {
        try restore(json: Self.snapshotText(at: path), secrets: nil)
    }

    /// ``restore(_:secrets:)`` of the snapshot in the file at `path` (of at most ``maximumSnapshotBytes``).
    @discardableResult
    public func restore(contentsOf path: String, secrets: (SnapshotSecret) throws -> FlowValue) throws -> RestoreWarning? {
        try withoutActuallyEscaping(secrets) { secrets in try restore(json: Self.snapshotText(at: path), secrets: secrets) }
    }

    /// Every restore comes here: the snapshot's text, and the secrets' source if any.
    private func restore(json: String, secrets: ((SnapshotSecret) throws -> FlowValue)?) throws -> RestoreWarning? {
        try snapshots.restore(json, into: self, secrets: secrets)
    }

    /// The text of the snapshot file at `path`, read up to ``maximumSnapshotBytes``: what every front that
    /// restores a file reads.
    package static func snapshotText(at path: String) throws -> String {
        guard let json = readTextFile(path, limit: Self.maximumSnapshotBytes) else {
            throw SnapshotError(.unreadable, "cannot read the snapshot \(path) (missing, unreadable, or over \(Self.maximumSnapshotBytes >> 20) MiB)")
        }
        return json
    }

    /// `value` as frozen data for Lua: a read-only table that screens take without copying (see
    /// `flow.freeze` in docs/Lua.md). Scalars stay themselves.
    ///
    /// ```swift
    /// let cities: FlowValue = ["federal": [["name": "Moscow"]], "regions": []]
    /// try runtime.lua.globals.set("cities", runtime.frozen(cities))
    /// try runtime.run(#"self_test = cities.federal[1].name"#)   // "Moscow"; `cities.federal = 1` is an error
    /// ```
    public func frozen(_ value: FlowValue) -> FrozenValue { data.frozen(value) }

    /// The names a screen answers in Lua besides its inputs and handlers (methods, `name`, `id`).
    package var screenFields: Set<String> { screens.fields }

    /// The error a bridge function or a coordinator gives once its runtime is gone (a host kept the Lua
    /// state, a function or a coordinator, and let the runtime go; or a finalizer runs while it closes).
    package static func gone(_ what: String? = nil) -> LuaError {
        LuaError(.misuse, (what.map { "\($0): " } ?? "") + "the coordinator runtime is gone (the ScriptRuntime was released)")
    }
}
