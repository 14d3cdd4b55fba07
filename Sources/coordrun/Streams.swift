import CoordinatorTools

extension CoordRun {
    /// Where text goes, coloured per stream (standard error redirected to a file gets no escape codes).
    struct Streams {
        let out: TextStyle
        let err: TextStyle

        init() {
            func colourful(_ fd: Int32) -> Bool {
                Terminal.isTerminal(fd) && Processes.environment("NO_COLOR") == nil && Processes.environment("TERM") != "dumb"
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
