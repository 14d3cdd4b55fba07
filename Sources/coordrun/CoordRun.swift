import ArgumentParser
import CoordinatorScript

@main
struct CoordRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordrun",
        abstract: "Walk a Lua coordinator app in the terminal, or explore it in a REPL.",
        discussion: """
            coordrun SCRIPT shows the visible screen, then reads one line at a time:
              NUMBER            triggers that numbered action (list items of choice outputs are actions too)
              back              the system back: Back button on a stack, swipe-down on a modal
              OUTPUT [PAYLOAD]  the visible screen emits OUTPUT; PAYLOAD is a Lua expression
              :COMMAND          :help lists them (:reload, :tree, :screen, :events, ...)
              anything else     a Lua chunk, with tap(), back(), top(), stack(), tree(), reload() available;
                                an expression's values are printed
            coordrun -i SCRIPT (or coordrun alone) opens a Lua REPL over the app instead: every line is Lua
            (:N triggers action N), incomplete input continues on a `>>` prompt, Ctrl-C stops running code.
            A line that fails is reported with its location and leaves the app exactly as it was.
            Without a terminal on standard input there are no prompts or colours, the screen is printed
            after every change, and the exit status is 1 if any line failed.
            """,
        version: "0.3.0"
    )

    @Argument(help: "The app's main Lua script.")
    var script: String?

    @Flag(name: [.short, .customLong("interactive")], help: "Open the Lua REPL over the app (the default without a script).")
    var interactive = false

    @Flag(help: "Reload the app's scripts whenever one of them is saved.")
    var watch = false

    @Flag(help: "Run the scripts as untrusted: no files, processes, debug library or binary chunks; require only from the app's folder (docs/Security.md).")
    var sandbox = false

    @Option(name: .customLong("memory-limit"), help: ArgumentHelp("The most bytes the scripts may hold (Lua's heap, data converted for it included).", valueName: "bytes"))
    var memoryLimit: Int?

    @Option(name: .customLong("instruction-limit"), help: ArgumentHelp("The most Lua instructions one line (or one handler call) may run.", valueName: "n"))
    var instructionLimit: Int?

    @Option(help: ArgumentHelp("The most seconds one line may run.", valueName: "seconds"))
    var timeout: Double?

    @Option(help: "The gateway state to start in (authorization, main, or any state the app declares).")
    var state: String = "authorization"

    func run() throws {
        let tty = Platform.isTerminal(0)
        let colour = tty && Platform.isTerminal(1) && Platform.environment("NO_COLOR") == nil && Platform.environment("TERM") != "dumb"
        let style = TextStyle(colour: colour)
        let output = REPL.Output(write: { Platform.writeAll(1, $0) }, error: { Platform.writeAll(2, $0 + "\n") })
        let repl: REPL
        do {
            let runtime = try ScriptRuntime(stateNamed: state, driverFunctions: true, sandbox: sandbox)
            if memoryLimit != nil || instructionLimit != nil {
                try runtime.limit(memory: memoryLimit.map { max($0, 1) }, instructions: instructionLimit.map { max($0, 1) })
            }
            if let script {
                try runtime.load(script: script)
                try runtime.start()
            }
            repl = try REPL(runtime: runtime, mode: interactive || script == nil ? .repl : .run, style: style, output: output)
            repl.timeLimit = timeout.map { max($0, 0.001) }
        } catch {
            output.error(style.error(REPL.message(for: error)))
            throw ExitCode.failure
        }
        let input: LineInput = tty ? EditLineInput(historyFile: historyFile(), repl: repl) : PlainInput()
        if watch {
            if repl.runtime.scriptFiles.isEmpty { output.error(style.error("--watch: there is no script to watch")) }
            let watcher = FileWatcher(paths: repl.runtime.scriptFiles)
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
        if tty { CtrlC.install() }
        if repl.mode == .repl && tty {
            output.write(style.dim("coordrun \(Self.configuration.version) REPL over Lua 5.4 - :help for commands, Ctrl-D to quit") + "\n")
        }
        if script != nil { repl.show() }
        var failed = false
        while true {
            switch input.read(prompt: tty ? style.prompt(repl.prompt) : nil) {
            case .end:
                failed = !repl.endOfInput() || failed
                if tty { output.write("\n") }
                if failed && !tty { throw ExitCode.failure }
                return
            case .interrupted:
                repl.cancelPending()
                output.write("\n")
            case .line(let line):
                if !repl.handle(line) { failed = true }
            }
        }
    }

    func historyFile() -> String? {
        if let path = Platform.environment("COORDRUN_HISTORY") { return path }
        return Platform.environment("HOME").map { $0 + "/.coordrun_history" }
    }
}
