import CoordinatorScript

/// Ctrl-C for a REPL on a terminal, as the stand-alone `lua` handles it: while a line runs
/// (``REPL/handle(_:)``), Ctrl-C stops its Lua code with an "interrupted!" error (lua.c's words), and the app is as it was
/// before the line; at a prompt it is only counted, for the line reader to notice with ``takePending()``.
///
/// ```swift
/// CtrlC.install()
/// repl.handle("while true do end")   // Ctrl-C: "stdin:1: interrupted!", and the prompt comes back
/// ```
public enum CtrlC {
    /// Installs the process's SIGINT handler, without `SA_RESTART`: a blocking `read` at a prompt fails
    /// with `EINTR` when Ctrl-C is pressed.
    public static func install() { InterruptSignal.install() }
    /// Gives SIGINT its default action back.
    public static func uninstall() { InterruptSignal.uninstall() }
    /// Whether Ctrl-C was pressed since the last call.
    public static func takePending() -> Bool { InterruptSignal.takePending() }
    /// Runs `body` (a script, an `-e` chunk) so that Ctrl-C stops the runtime's Lua code with an
    /// "interrupted!" error; a second Ctrl-C before any Lua code ran again (a long C call) ends the process,
    /// as with `lua`.
    package static func interrupts<R>(_ runtime: ScriptRuntime, during body: () throws -> R) rethrows -> R {
        try runtime.lua.interruptible(body)
    }
}
