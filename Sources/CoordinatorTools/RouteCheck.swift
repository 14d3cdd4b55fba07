import CoordinatorScript

/// The deep-link check for CI (`coordrun routes SCRIPT`): every route the script declares, opened with the
/// example parameters it declares, each in a fresh runtime of the app.
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

    /// Loads `script` once to read its routes, then opens each one in a new runtime of the same script
    /// (gateway state `state`), so that a `from = "current"` route opens from the app's start; a link that
    /// runs longer than `timeLimit` seconds fails with "timed out"; every runtime runs under `limits`. Throws
    /// when the script does not load (a route that names an unknown screen is such an error).
    public static func run(script: String, state: String = "authorization", timeLimit: Double? = 5,
                           limits: RuntimeLimits = RuntimeLimits()) throws -> [Result] {
        let reader = try limits.makeRuntime(stateNamed: state, timed: timeLimit != nil)
        try ExitGuard.install(in: reader)
        try reader.load(script: script)
        return reader.declaredRoutes.map { route in
            let url: String
            do { url = try route.exampleURL() } catch {
                return Result(route: route, url: nil, failure: "\(error)", stack: [])
            }
            do {
                let runtime = try limits.makeRuntime(stateNamed: state, timed: timeLimit != nil)
                defer { runtime.lua.close() }
                try ExitGuard.install(in: runtime)
                try runtime.load(script: script)
                try runtime.lua.withTimeLimit(timeLimit) { try runtime.app.atomicallyRendering { try runtime.open(url) } }
                return Result(route: route, url: url, failure: nil, stack: runtime.app.window.visibleStack.map(\.name))
            } catch {
                return Result(route: route, url: url, failure: "\(error)", stack: [])
            }
        }
    }
}
