import CoordinatorScript

/// The deep-link check for CI (`coordrun routes SCRIPT`): every route the script declares, opened with the
/// example parameters it declares, each as in a fresh runtime of the app. A route that requires a gateway
/// state (a deferred link) is opened both ways: in that state (the user signed in first), and in the app's
/// start state, where it must be held, then continue once the app gets to that state's flow the way the
/// user would (the link first, then the sign-in: the shortest path exploration finds from the app's start to
/// the state, at most ``heldSearchDepth`` steps, is taken). A route that starts at a coordinator class
/// (`from = "Browser"`) opens after the user's shortest way to a state where that class runs, found the same
/// way. Each way is found once, before any link opens, under its own time limit (``heldSearchSeconds``), and
/// every route that needs it takes it.
public enum RouteCheck {
    /// How opening one route went.
    public struct Result {
        /// The route.
        public let route: Route
        /// The link opened (the pattern with its example values), or nil when it could not be built.
        public let url: String?
        /// Why it failed, or nil when it opened.
        public let failure: String?
        /// Where the link led: the visible stack's screen names, bottom to top.
        public let stack: [String]
        /// For a route that requires a gateway state, which way it was opened: `"in main"` (the app in that
        /// state), `"held until main"` (opened in the start state, then continued); for one that starts at a
        /// class, where the user was (`"at Browser after tap(\"menu\")"`); nil for other routes.
        public let order: String?
    }

    /// Loads `script` to read its routes, then opens each one from the app as the script left it, not
    /// started (gateway state `state`), so that a `from = "current"` route opens from the app's start; a
    /// link that runs longer than `timeLimit` seconds fails with "timed out"; every runtime runs under
    /// `limits`. Each link opens as in a fresh runtime: the runtime is used again only when the link before
    /// left no trace in its state (its exact state identity is as before), else the script is loaded again in a new one. Throws
    /// when the script does not load (a route that names an unknown screen is such an error).
    public static func run(script: String, state: String = "authorization", timeLimit: Double? = 5,
                           limits: RuntimeLimits = RuntimeLimits()) throws -> [Result] {
        func load(in state: String) throws -> ScriptRuntime {
            let runtime = try limits.runtime(stateNamed: state, timed: timeLimit != nil)
            try ExitGuard.install(in: runtime)
            try runtime.load(script: script)
            return runtime
        }
        let reader = try load(in: state)
        let gateway = reader.app.gateway.state
        let runtimes = FreshHosts(make: { try load(in: state) }, runtime: { $0 }) { runtime in
            try runtime.lua.withTimeLimit(timeLimit) { try runtime.reset(to: gateway, starting: false) }
        }
        try runtimes.adopt(reader)
        defer { runtimes.close() }
        var results: [Result] = []
        // The user's way into each state a link needs (the gateway state a held route waits for, a state where
        // the class a route starts at runs): found once, before the link opens (a search of its own: its time
        // is never the link's).
        var ways: [String: Swift.Result<[UserStep], LuaError>] = [:]
        func way(from start: String, to goal: Goal) throws -> [UserStep] {
            let key = start + "\u{0}" + goal.description
            if let known = ways[key] { return try known.get() }
            let found: Swift.Result<[UserStep], LuaError>
            do { found = .success(try path(to: goal, script: script, state: start, limits: limits, stepTimeLimit: timeLimit)) } catch {
                found = .failure(error as? LuaError ?? LuaError(.runtime, "\(error)"))
            }
            ways[key] = found
            return try found.get()
        }
        /// Starts the app in `runtime` and takes the user's way to where the class `name` runs.
        func reachFlow(_ name: String, from start: AppState, in runtime: ScriptRuntime) throws -> String {
            let path = try way(from: start.rawValue, to: .running(name))
            try runtime.lua.withTimeLimit(timeLimit) {
                try runtime.app.atomicallyRendering { try runtime.reset(to: start, starting: true) }
                for step in path { try runtime.app.atomicallyRendering { try runtime.app.perform(step) } }
            }
            return path.isEmpty ? "at \(name) from the start" : "at \(name) after " + path.map(\.luaSource).joined(separator: " ")
        }
        for route in reader.declaredRoutes {
            let url: String
            do { url = try route.exampleURL() } catch {
                results.append(Result(route: route, url: nil, failure: "\(error)", stack: [], order: nil))
                continue
            }
            var flow: String?
            if case .flow(let name) = route.from { flow = name }
            guard let requires = route.requires else {
                results.append(open(route, url, order: flow.map { "at \($0)" }, timeLimit: timeLimit) {
                    let runtime = try runtimes.next()
                    guard let flow else { return (runtime, nil, { runtimes.done(runtime) }) }
                    do { return (runtime, try reachFlow(flow, from: gateway, in: runtime), { runtimes.done(runtime) }) } catch {
                        runtimes.done(runtime)
                        throw error
                    }
                } then: { _, _ in })
                continue
            }
            // The user in the state first: a runtime that starts in it.
            results.append(open(route, url, order: "in \(requires)", timeLimit: timeLimit) {
                let runtime = try load(in: requires.rawValue)
                do {
                    try runtime.lua.withTimeLimit(timeLimit) { try runtime.reset(to: requires, starting: false) }
                    let order = try flow.map { "in \(requires), " + (try reachFlow($0, from: requires, in: runtime)) }
                    return (runtime, order, { runtime.lua.close() })
                } catch {
                    runtime.lua.close()
                    throw error
                }
            } then: { _, outcome in
                guard outcome == .opened else { throw LuaError(.runtime, "opened in \(requires), the link was held instead of opened") }
            })
            // The link first, in the start state: held, then continued once the user gets to the state's flow.
            guard requires != gateway else { continue }
            let path: [UserStep]
            do { path = try way(from: state, to: .gateway(requires)) } catch {
                results.append(Result(route: route, url: url, failure: "\(error)", stack: [], order: "held until \(requires)"))
                continue
            }
            results.append(open(route, url, order: "held until \(requires)", timeLimit: timeLimit) {
                let runtime = try runtimes.next()
                return (runtime, nil, { runtimes.done(runtime) })
            } then: { runtime, outcome in
                guard outcome == .held else { throw LuaError(.runtime, "opened in \(gateway), the link was not held until \(requires)") }
                var dropped: String?
                let observation = runtime.app.observe { if case let .linkDropped(_, reason) = $0 { dropped = reason } }
                defer { observation.cancel() }
                for step in path { try runtime.app.atomicallyRendering { try runtime.app.perform(step) } }
                let taken = path.map(\.luaSource).joined(separator: " ")
                if let dropped { throw LuaError(.runtime, "held until \(requires), it did not continue after \(taken): \(dropped)") }
                if runtime.heldLink != nil { throw LuaError(.runtime, "held until \(requires), it is still held after \(taken)") }
            })
        }
        return results
    }

    /// Where the check needs the app before a link opens: in a gateway state (a held route's), or where a
    /// coordinator class runs (a route that starts at it, `from = "Browser"`).
    enum Goal: CustomStringConvertible {
        case gateway(AppState)
        case running(String)

        var description: String {
            switch self {
            case .gateway(let state): "\(state)"
            case .running(let name): "a state where \(name) runs"
            }
        }

        /// Whether `app` is there.
        func isReached(in app: Application) -> Bool {
            switch self {
            case .gateway(let state): app.gateway.state == state
            case .running(let name): app.runningCoordinator(named: name) != nil
            }
        }
    }

    /// The most steps the check looks for the user's way from the app's start to the state a held route
    /// requires.
    public static let heldSearchDepth = 12
    /// The most seconds that search may take, for each state (its own budget, not a link's).
    public static let heldSearchSeconds = 60.0

    /// The shortest user steps from the app's start (in `state`) to `goal`, found by exploring
    /// (``heldSearchDepth`` steps at most, stopping at the first such state, under ``heldSearchSeconds``;
    /// each step under `stepTimeLimit`), or an error saying none was found.
    static func path(to goal: Goal, script: String, state: String, limits: RuntimeLimits, stepTimeLimit: Double?) throws -> [UserStep] {
        var options = Explorer.Options()
        options.depth = heldSearchDepth
        options.maxStates = 10_000
        options.timeLimit = heldSearchSeconds
        options.stepTimeLimit = stepTimeLimit
        options.stopAt = goal.isReached(in:)
        let explorer = try Explorer(options: options) {
            let runtime = try limits.runtime(stateNamed: state, timed: stepTimeLimit != nil, imageable: true)
            try Explorer.prepare(runtime)
            try runtime.load(script: script)
            return runtime
        }
        let report = try explorer.run()
        guard let found = report.states.first(where: \.seen.isStop) else {
            let why = switch goal {
            case .gateway(let requires): "held until \(requires)"
            case .running(let name): "it starts at \(name)"
            }
            throw LuaError(.runtime, "\(why), but the search for the user's way to \(goal) (its own, \(Int(heldSearchSeconds)) s at most) "
                           + "found none: \(report.reach) (\(report.states.count) states explored)")
        }
        return found.path
    }

    /// Opens `url` in the runtime `host` gives (with what to do when done), then runs `then` on it: the result.
    private static func open(_ route: Route, _ url: String, order: String?, timeLimit: Double?,
                             host: () throws -> (ScriptRuntime, String?, () -> Void),
                             then: (ScriptRuntime, LinkOutcome) throws -> Void) -> Result {
        var order = order
        do {
            let (runtime, how, done) = try host()
            defer { done() }
            order = how ?? order
            try runtime.lua.withTimeLimit(timeLimit) {
                let outcome = try runtime.app.atomicallyRendering { try runtime.open(url) }
                try then(runtime, outcome)
            }
            return Result(route: route, url: url, failure: nil, stack: runtime.app.window.visibleStack.map(\.name), order: order)
        } catch {
            return Result(route: route, url: url, failure: "\(error)", stack: [], order: order)
        }
    }
}
