import CoordinatorScript

/// The tools run the app's code and then report on it: an `os.exit` in that code would end the process
/// with the status it chose and no report — a CI job that passes on a test that never finished. Every
/// runtime a tool makes (flow tests, exploration, the route check) replaces `os.exit` with a function
/// that raises an error at the caller's line instead, so the step, test or route that called it fails.
package enum ExitGuard {
    /// The error's message, the same in every tool that reports (a finding's test fails as its
    /// exploration did).
    package static let message = "os.exit is refused here: coordrun would end without its report"
    /// The message of a server that many pages share (`coordrun serve`): one page's action must not end it
    /// for all.
    package static let serverMessage = "os.exit is refused here: the preview would end for every page"

    static let source = """
        local message = ...
        if os then
          os.exit = function() error(message, 2) end
        end
        """

    /// Refuses `os.exit` in `runtime`, with `message`.
    package static func install(in runtime: ScriptRuntime, message: String = message) throws {
        try runtime.lua.load(source, name: "=(coordrun)", cached: true).call(message)
    }
}
