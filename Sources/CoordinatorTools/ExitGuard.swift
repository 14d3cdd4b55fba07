import CoordinatorScript

/// The tools run the app's code and then report on it: an `os.exit` in that code would end the process
/// with the status it chose and no report — a CI job that passes on a test that never finished. Every
/// runtime a tool makes (flow tests, exploration, the route check) replaces `os.exit` with a function
/// that raises an error at the caller's line instead, so the step, test or route that called it fails.
enum ExitGuard {
    /// The error's message, the same in every tool (a finding's test fails as its exploration did).
    static let message = "os.exit is refused here: coordrun would end without its report"

    static let source = """
        local message = ...
        if os then
          os.exit = function() error(message, 2) end
        end
        """

    /// Refuses `os.exit` in `runtime`.
    static func install(in runtime: ScriptRuntime) throws {
        try runtime.lua.load(source, name: "=(coordrun)", cached: true).call(message)
    }
}
