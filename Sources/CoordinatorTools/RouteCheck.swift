import CoordinatorScript

/// The deep-link check for CI (`coordrun routes SCRIPT`): every route the script declares, opened with the
/// example parameters it declares, each as in a fresh runtime of the app.
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
    }

    /// Loads `script` to read its routes, then opens each one from the app as the script left it, not
    /// started (gateway state `state`), so that a `from = "current"` route opens from the app's start; a
    /// link that runs longer than `timeLimit` seconds fails with "timed out"; every runtime runs under
    /// `limits`. Each link opens as in a fresh runtime: the runtime is used again only when the link before
    /// left no trace in its state (its exact state identity is as before), else the script is loaded again in a new one. Throws
    /// when the script does not load (a route that names an unknown screen is such an error).
    public static func run(script: String, state: String = "authorization", timeLimit: Double? = 5,
                           limits: RuntimeLimits = RuntimeLimits()) throws -> [Result] {
        func load() throws -> ScriptRuntime {
            let runtime = try limits.runtime(stateNamed: state, timed: timeLimit != nil)
            try ExitGuard.install(in: runtime)
            try runtime.load(script: script)
            return runtime
        }
        let reader = try load()
        let gateway = reader.app.gateway.state
        let runtimes = FreshHosts(make: load, runtime: { $0 }) { runtime in
            try runtime.lua.withTimeLimit(timeLimit) { try runtime.reset(to: gateway, starting: false) }
        }
        try runtimes.adopt(reader)
        defer { runtimes.close() }
        return reader.declaredRoutes.map { route in
            let url: String
            do { url = try route.exampleURL() } catch {
                return Result(route: route, url: nil, failure: "\(error)", stack: [])
            }
            do {
                let runtime = try runtimes.next()
                defer { runtimes.done(runtime) }
                try runtime.lua.withTimeLimit(timeLimit) { try runtime.app.atomicallyRendering { try runtime.open(url) } }
                return Result(route: route, url: url, failure: nil, stack: runtime.app.window.visibleStack.map(\.name))
            } catch {
                return Result(route: route, url: url, failure: "\(error)", stack: [])
            }
        }
    }
}
