import CoordinatorTools

extension CoordRun {
    /// Where text goes, coloured per stream: on a terminal unless `NO_COLOR` is set or `TERM` is `dumb`
    /// (standard error redirected to a file gets no escape codes); always when `FORCE_COLOR` is set to
    /// anything but empty or `0` (a CI log that shows colours), whatever else says.
    struct Streams {
        let out: TextStyle
        let err: TextStyle

        init() {
            let force = Processes.environment("FORCE_COLOR").map { !$0.isEmpty && $0 != "0" }
            func colourful(_ fd: Int32) -> Bool {
                force ?? (Terminal.isTerminal(fd) && Processes.environment("NO_COLOR") == nil && Processes.environment("TERM") != "dumb")
            }
            out = TextStyle(colour: colourful(1))
            err = TextStyle(colour: colourful(2))
        }

        /// lua.c's `l_message`: `coordrun: message` on standard error, as lua writes it (the script form).
        func message(_ text: String) { Terminal.writeError(err.error(program + ": " + text) + "\n") }

        /// A subcommand's message (`coordrun: message`), made inert for the terminal (``TextStyle/inert(_:)``):
        /// it names the app's screens and repeats its errors.
        func notice(_ text: String) { message(TextStyle.inert(text)) }
    }
}
