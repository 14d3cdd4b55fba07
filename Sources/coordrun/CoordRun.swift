import ArgumentParser
import CoordinatorCore
import CoordinatorScript
import LuaKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    @Option(help: "The gateway state to start in (authorization, main, or any state the app declares).")
    var state: String = "authorization"

    func run() throws {
        let tty = isatty(0) != 0
        let dumb = getenv("TERM").map { String(cString: $0) == "dumb" } ?? false
        let terminal = Terminal(colour: tty && isatty(1) != 0 && getenv("NO_COLOR") == nil && !dumb)
        let runtime: ScriptRuntime
        do {
            runtime = try ScriptRuntime(state: AppState(state))
            if let script {
                try runtime.load(script: script)
                try runtime.start()
            }
        } catch {
            terminal.error(describe(error))
            throw ExitCode.failure
        }
        let driver = Driver(runtime: runtime, terminal: terminal, mode: interactive || script == nil ? .repl : .run)
        let input: LineInput = tty ? EditLineInput(historyFile: historyFile(), completer: Completer(driver: driver)) : PlainInput()
        if watch {
            if runtime.scriptFiles.isEmpty { terminal.error("--watch: there is no script to watch") }
            let watcher = FileWatcher(paths: runtime.scriptFiles)
            input.idle = {
                guard watcher.changed() else { return false }
                driver.reload()
                watcher.paths = runtime.scriptFiles
                return true
            }
        }
        if tty { InterruptSignal.install() }
        if driver.mode == .repl && tty {
            terminal.write(terminal.dim("coordrun \(Self.configuration.version) REPL over Lua 5.4 - :help for commands, Ctrl-D to quit") + "\n")
        }
        if script != nil { driver.show() }
        var failed = false
        while true {
            switch input.read(prompt: tty ? terminal.prompt(driver.isContinuing ? ">> " : "> ") : nil) {
            case .end:
                if driver.isContinuing { failed = !driver.finishPending() || failed }
                if tty { terminal.write("\n") }
                if failed && !tty { throw ExitCode.failure }
                return
            case .interrupted:
                driver.cancelPending()
                terminal.write("\n")
            case .line(let line):
                let before = driver.signature
                let ok = runtime.lua.interruptible { driver.handle(line) }
                if !ok { failed = true }
                if driver.signature != before { driver.show() }
            }
        }
    }

    func historyFile() -> String? {
        if let path = getenv("COORDRUN_HISTORY") { return String(cString: path) }
        guard let home = getenv("HOME") else { return nil }
        return String(cString: home) + "/.coordrun_history"
    }
}

func describe(_ error: any Error) -> String {
    if let lua = error as? LuaError { return lua.fullDescription }
    return "error: \(error)"
}
