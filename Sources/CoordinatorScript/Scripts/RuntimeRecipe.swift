import CoordinatorCore
import CoordinatorLua

/// How a runtime was made (its gateway state, libraries, sandbox, limits, the host's router), kept to make
/// another the same: exploration's fresh runtimes, a test's, a reload from nothing.
struct RuntimeRecipe {
    let state: AppState
    let libraries: LuaLibraries
    let sandbox: Bool
    let ignoringEnvironment: Bool
    var memory: Int?
    var instructions: Int?
    /// How the host makes its router for the app (``ScriptRuntime/start(router:)``), for every start.
    var routerMaker: ((Application) -> any Router)?

    /// A new runtime made as `runtime` was (``ScriptRuntime/fresh(quiet:sources:)`` says what it shares).
    func make(like runtime: ScriptRuntime, quiet: Bool, sources: [String: String]) throws -> ScriptRuntime {
        let new = try ScriptRuntime(state: state, libraries: libraries, driverFunctions: runtime.driverFunctions.installed,
                                    sandbox: sandbox, ignoringEnvironment: ignoringEnvironment)
        if memory != nil || instructions != nil {
            try new.limit(memory: memory, instructions: instructions)
        }
        new.classes.swiftCoordinators = runtime.classes.swiftCoordinators
        new.recipe.routerMaker = routerMaker
        // The storage this one began with, not saved anywhere until the new one takes this one's store
        // (``takeStorage(from:)``).
        try new.seedStorage(runtime.launch.initialStorage)
        new.app.setIdiom(runtime.app.idiom) // the same device
        new.lua.sourceOverrides = sources
        try new.silencingPrint(quiet) {
            for file in runtime.files.mains {
                let arguments = file.arguments.filter { if case .table = $0 { false } else if case .function = $0 { false } else { true } }
                try new.load(script: file.path, arguments: arguments)
            }
            if new.declaresApplication { try new.start() }
        }
        return new
    }
}
