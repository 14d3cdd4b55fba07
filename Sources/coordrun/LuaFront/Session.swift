import CoordinatorOptions
import CoordinatorTools

/// The session after the script: lua.c's `doREPL`, over the REPL engine, for the terminal (libedit) and
/// for pipes.
extension CoordRun {
    /// Reads lines until the end of input: run mode (walking the app) or the REPL. The exit status: 1 when
    /// input was not a terminal and a line failed.
    /// `events`: the log made before the app started, so that `:events` has the start's.
    static func session(runtime: ScriptRuntime, events: EventLog, mode: REPL.Mode, options: RunSettings, streams: Streams, tty: Bool,
                        fresh: @escaping (_ sources: [String: String]) throws -> ScriptRuntime) -> Int32 {
        // coordrun's own text (screens, reports, messages about an app) is made inert for the terminal; what
        // the script writes and the values the REPL prints stay as lua writes them, and so do the errors of
        // plain Lua (no app declared), as `lua -i` reports them.
        let colours = streams.out.colour
        let output = REPL.Output(write: { Terminal.writeOut(TextStyle.inert($0, keepingColours: colours)) },
                                 error: { message in
                                     let text = runtime.declaresApplication ? TextStyle.inert(message) : message
                                     Terminal.writeError(streams.err.error(text) + "\n")
                                 },
                                 values: { Terminal.writeOut($0) })
        let repl: REPL
        do {
            repl = try REPL(runtime: runtime, mode: mode, style: streams.out, output: output, events: events)
        } catch {
            streams.message(REPL.message(for: error))
            return 1
        }
        repl.timeLimit = options.timeLimit
        repl.commandName = Processes.commandName()
        if let history = options.history { repl.historyLimit = history }
        repl.makeFreshRuntime = fresh
        let input: LineInput = tty ? EditLineInput(historyFile: historyFile(), repl: repl) : PlainInput()
        if options.watch {
            if runtime.scriptFiles.isEmpty { streams.message("--watch: there is no script to watch") }
            let watcher = FileWatcher(paths: runtime.scriptFiles)
            // repl.runtime below, not runtime: time travel puts a fresh runtime in its place.
            input.idle = {
                guard watcher.changed() else { return false }
                // The report goes above the prompt: the prompt line is cleared, and redrawn with the line
                // being typed after the report.
                if tty { output.write("\r\u{1B}[K") }
                repl.reload()
                watcher.paths = repl.runtime.scriptFiles
                return true
            }
        }
        if mode == .repl && tty {
            output.write(streams.out.dim("coordrun \(version) - :help for commands, Ctrl-D to quit") + "\n")
        }
        if mode == .run, tty, case let notes = repl.noteHiddenDriverFunctions(), !notes.isEmpty { output.write(streams.out.dim(notes)) }
        if runtime.app.root != nil { repl.showUnderLimits() }
        // The REPL prompts as lua -i does, also for lines from a pipe, and shows each line after its prompt
        // there as lua's line editor does (a transcript reads like the session); run mode prompts only on
        // a terminal.
        let prompts = tty || mode == .repl
        var failed = false
        while true {
            Terminal.flushOut()
            let prompt = repl.prompt
            let read = input.read(prompt: tty ? streams.out.prompt(prompt) : nil)
            if prompts && !tty {
                if case .line(let line) = read { Terminal.writeOut(prompt + TextStyle.inert(line) + "\n") } else { Terminal.writeOut(prompt) }
            }
            switch read {
            case .end:
                failed = !repl.endOfInput() || failed
                if prompts { output.write("\n") }
                return failed && !tty ? 1 : 0
            case .interrupted:
                guard tty else { return 130 } // Ctrl-C to a session reading a pipe ends it
                repl.cancelPending()
                output.write("\n")
            case .line(let line):
                if !repl.handle(line) { failed = true }
                if !repl.isContinuing { input.handled(typedSecret: repl.typedSecret) }
            }
        }
    }

    static func historyFile() -> String? {
        if let path = Processes.environment("COORDRUN_HISTORY") { return path }
        return Processes.environment("HOME").map { $0 + "/.coordrun_history" }
    }
}
