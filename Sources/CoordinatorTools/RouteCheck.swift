import CoordinatorScript

/// The deep-link check for CI (`coordrun routes SCRIPT`): every route the script declares, opened with the
/// example parameters it declares, each as in a fresh runtime of the app. A route that requires a gateway
/// state (a deferred link) is opened both ways: in that state (the user signed in first), and in the app's
/// start state, where it must be held, then continue once the app gets to that state's flow the way the
/// user would (the link first, then the sign-in: the shortest path exploration finds from the app's start to
/// the state, at most ``heldSearchDepth`` steps, is taken). That way is found once for each state, before any
/// link opens, under its own time limit (``heldSearchSeconds``), and every held route takes it.
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
        /// state), `"held until main"` (opened in the start state, then continued); nil for other routes.
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
        // The user's way into each state a held route waits for: found once, before the link opens (a search
        // of its own: its time is never the link's).
        var ways: [AppState: Swift.Result<[UserStep], LuaError>] = [:]
        func way(to requires: AppState) throws -> [UserStep] {
            if let known = ways[requires] { return try known.get() }
            let found: Swift.Result<[UserStep], LuaError>
            do { found = .success(try pathToState(requires, script: script, state: state, limits: limits, stepTimeLimit: timeLimit)) } catch {
                found = .failure(error as? LuaError ?? LuaError(.runtime, "\(error)"))
            }
            ways[requires] = found
            return try found.get()
        }
        for route in reader.declaredRoutes {
            let url: String
            do { url = try route.exampleURL() } catch {
                results.append(Result(route: route, url: nil, failure: "\(error)", stack: [], order: nil))
                continue
            }
            guard let requires = route.requires else {
                results.append(open(route, url, order: nil, timeLimit: timeLimit) {
                    let runtime = try runtimes.next()
                    return (runtime, { runtimes.done(runtime) })
                } then: { _, _ in })
                continue
            }
            // The user in the state first: a runtime that starts in it.
            results.append(open(route, url, order: "in \(requires)", timeLimit: timeLimit) {
                let runtime = try load(in: requires.rawValue)
                try runtime.lua.withTimeLimit(timeLimit) { try runtime.reset(to: requires, starting: false) }
                return (runtime, { runtime.lua.close() })
            } then: { _, outcome in
                guard outcome == .opened else { throw LuaError(.runtime, "opened in \(requires), the link was held instead of opened") }
            })
            // The link first, in the start state: held, then continued once the user gets to the state's flow.
            guard requires != gateway else { continue }
            let path: [UserStep]
            do { path = try way(to: requires) } catch {
                results.append(Result(route: route, url: url, failure: "\(error)", stack: [], order: "held until \(requires)"))
                continue
            }
            results.append(open(route, url, order: "held until \(requires)", timeLimit: timeLimit) {
                let runtime = try runtimes.next()
                return (runtime, { runtimes.done(runtime) })
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

    /// The most steps the check looks for the user's way from the app's start to the state a held route
    /// requires.
    public static let heldSearchDepth = 12
    /// The most seconds that search may take, for each state (its own budget, not a link's).
    public static let heldSearchSeconds = 60.0

    /// The shortest user steps from the app's start (in `state`) to a state where the gateway is `requires`,
    /// found by exploring (``heldSearchDepth`` steps at most, stopping at the first such state, under
    /// ``heldSearchSeconds``; each step under `stepTimeLimit`), or an error saying none was found.
    static func pathToState(_ requires: AppState, script: String, state: String, limits: RuntimeLimits,
                            stepTimeLimit: Double?) throws -> [UserStep] {
        var options = Explorer.Options()
        options.depth = heldSearchDepth
        options.maxStates = 10_000
        options.timeLimit = heldSearchSeconds
        options.stepTimeLimit = stepTimeLimit
        options.stopAt = { $0.gateway == requires.rawValue }
        let explorer = try Explorer(options: options) {
            let runtime = try limits.runtime(stateNamed: state, timed: stepTimeLimit != nil, imageable: true)
            try Explorer.prepare(runtime)
            try runtime.load(script: script)
            return runtime
        }
        let report = try explorer.run()
        guard let found = report.states.first(where: { $0.gateway == requires.rawValue }) else {
            throw LuaError(.runtime, "held until \(requires), but the search for the user's way to \(requires) (its own, \(Int(heldSearchSeconds)) s at most) "
                           + "found none: \(report.reach) (\(report.states.count) states explored)")
        }
        return found.path
    }

    /// Opens `url` in the runtime `host` gives (with what to do when done), then runs `then` on it: the result.
    private static func open(_ route: Route, _ url: String, order: String?, timeLimit: Double?,
                             host: () throws -> (ScriptRuntime, () -> Void),
                             then: (ScriptRuntime, LinkOutcome) throws -> Void) -> Result {
        do {
            let (runtime, done) = try host()
            defer { done() }
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
