import ArgumentParser
import CoordinatorScript

/// `coordrun`: a drop-in for the stand-alone `lua` (its options, `arg`, `LUA_INIT`, the REPL) that also
/// walks the app a script declares. The steps follow lua.c's `pmain`: read the arguments, print the
/// version, make the state, set `arg`, run `LUA_INIT`, run `-e`/`-l`/`-W` in order, run the script, then
/// the app (run mode), the REPL, or standard input as a script.
@main
enum CoordRun {
    static let version = "0.4.0"
    static let program = "coordrun"

    static func main() {
        Platform.exit(run(CommandLine.arguments))
    }

    /// Where text goes, coloured per stream (standard error redirected to a file gets no escape codes).
    struct Streams {
        let out: TextStyle
        let err: TextStyle

        init() {
            func colourful(_ fd: Int32) -> Bool {
                Platform.isTerminal(fd) && Platform.environment("NO_COLOR") == nil && Platform.environment("TERM") != "dumb"
            }
            out = TextStyle(colour: colourful(1))
            err = TextStyle(colour: colourful(2))
        }

        /// lua.c's `l_message`: `coordrun: message` on standard error.
        func message(_ text: String) { Platform.writeError(err.error(program + ": " + text) + "\n") }
    }

    /// Runs coordrun with `argv` (the program's name first); the exit status.
    static func run(_ argv: [String]) -> Int32 {
        let streams = Streams()
        let invocation: Invocation
        do {
            invocation = try Invocation(argv)
        } catch {
            streams.message("\(error)")
            Platform.writeError(Invocation.usage(program: program) + "\n")
            return 1
        }
        if invocation.help {
            Platform.writeOut(Invocation.usage(program: program) + "\n")
            return 0
        }
        let options: CoordRunOptions
        do {
            options = try CoordRunOptions.parse(invocation.longOptions)
        } catch {
            streams.message(CoordRunOptions.message(for: error))
            return 1
        }
        if invocation.showVersion { Platform.writeOut(ScriptRuntime.luaRelease + "\n") }
        if invocation.printsCoordrunVersion { Platform.writeOut("coordrun \(version)\n") }

        let runtime: ScriptRuntime
        do {
            runtime = try ScriptRuntime(stateNamed: options.state, driverFunctions: true, sandbox: options.sandbox,
                                        ignoringEnvironment: invocation.ignoreEnvironment)
            if options.memoryLimit != nil || options.instructionLimit != nil {
                try runtime.limit(memory: options.memoryLimit.map { max($0, 1) }, instructions: options.instructionLimit.map { max($0, 1) })
            }
            runtime.lua.warningsEnabled = false // as in lua: -W or warn("@on") turns them on
            try setArguments(invocation, in: runtime)
        } catch {
            streams.message(REPL.message(for: error))
            return 1
        }
        // The state is closed on the way out, as lua.c's: finalizers run, open files are flushed.
        defer { runtime.lua.close() }
        CtrlC.install()
        // LUA_INIT, then -e, -l and -W in order, then the script: the first failure ends the run.
        do {
            try CtrlC.interrupts(runtime) {
                if !invocation.ignoreEnvironment { try runInit(runtime) }
                for step in invocation.steps {
                    switch step {
                    case .execute(let code): try runtime.run(code, name: "=(command line)")
                    case .require(let global, let module):
                        try runtime.run("_G[\(luaQuoted(global))] = require(\(luaQuoted(module)))", name: "=(command line)")
                    case .warningsOn: runtime.lua.warningsEnabled = true
                    }
                }
                if let script = invocation.script {
                    // lua.c's pushargs: the script's `...` are arg[1..#arg] as they are now (-e may change them).
                    let arguments = try runtime.scriptArguments()
                    switch script {
                    case .file(let path): try runtime.load(script: path, arguments: arguments)
                    case .standardInput:
                        let code = String(decoding: Platform.readAllStandardInput(), as: UTF8.self)
                        try runtime.run(code, name: "=stdin", arguments: arguments)
                    }
                }
                if runtime.declaresApplication { try runtime.start() }
            }
        } catch {
            streams.message(REPL.message(for: error))
            return 1
        }

        let tty = Platform.isTerminal(0)
        let mode: REPL.Mode
        if invocation.interactive {
            mode = .repl
        } else if case .file = invocation.script, runtime.app.root != nil {
            mode = .run // the app the script declared is walked
        } else if invocation.script != nil || invocation.hasExecute || invocation.showVersion {
            return 0 // plain Lua, as with lua
        } else if tty {
            if !invocation.showVersion { Platform.writeOut(ScriptRuntime.luaRelease + "\n") }
            mode = .repl
        } else {
            // lua with no script and standard input not a terminal: standard input is the script.
            do {
                try CtrlC.interrupts(runtime) {
                    let code = String(decoding: Platform.readAllStandardInput(), as: UTF8.self)
                    try runtime.run(code, name: "=stdin")
                    if runtime.declaresApplication && runtime.app.root == nil { try runtime.start() }
                }
                return 0
            } catch {
                streams.message(REPL.message(for: error))
                return 1
            }
        }
        return session(runtime: runtime, mode: mode, options: options, streams: streams, tty: tty)
    }

    /// lua.c's `createargtable`: `arg[0]` the script, its arguments after, the interpreter and its options
    /// before (negative indices).
    static func setArguments(_ invocation: Invocation, in runtime: ScriptRuntime) throws {
        let table = try runtime.lua.newTable()
        for (index, value) in invocation.argTable { try table.rawSet(index, value) }
        try runtime.lua.globals.set("arg", table)
    }

    /// lua.c's `handle_luainit`: `LUA_INIT_5_4`, else `LUA_INIT`: `@file` runs the file, anything else is
    /// a chunk.
    static func runInit(_ runtime: ScriptRuntime) throws {
        let (name, value): (String, String)
        if let v = Platform.environment("LUA_INIT_5_4") { (name, value) = ("=LUA_INIT_5_4", v) }
        else if let v = Platform.environment("LUA_INIT") { (name, value) = ("=LUA_INIT", v) }
        else { return }
        if value.hasPrefix("@") {
            _ = try runtime.app.atomically { try runtime.lua.runFile(String(value.dropFirst())) }
        } else {
            try runtime.run(value, name: name)
        }
    }

    /// Reads lines until the end of input: run mode (walking the app) or the REPL. The exit status: 1 when
    /// input was not a terminal and a line failed.
    static func session(runtime: ScriptRuntime, mode: REPL.Mode, options: CoordRunOptions, streams: Streams, tty: Bool) -> Int32 {
        let output = REPL.Output(write: { Platform.writeOut($0) }, error: { Platform.writeError(streams.err.error($0) + "\n") })
        let repl: REPL
        do {
            repl = try REPL(runtime: runtime, mode: mode, style: streams.out, output: output)
        } catch {
            streams.message(REPL.message(for: error))
            return 1
        }
        repl.timeLimit = options.timeout.map { max($0, 0.001) }
        let input: LineInput = tty ? EditLineInput(historyFile: historyFile(), repl: repl) : PlainInput()
        if options.watch {
            if runtime.scriptFiles.isEmpty { streams.message("--watch: there is no script to watch") }
            let watcher = FileWatcher(paths: runtime.scriptFiles)
            input.idle = {
                guard watcher.changed() else { return false }
                // The report goes above the prompt: the prompt line is cleared, and redrawn with the line
                // being typed after the report.
                if tty { output.write("\r\u{1B}[K") }
                repl.reload()
                watcher.paths = runtime.scriptFiles
                return true
            }
        }
        if mode == .repl && tty {
            output.write(streams.out.dim("coordrun \(version) - :help for commands, Ctrl-D to quit") + "\n")
        }
        if runtime.app.root != nil { repl.show() }
        // The REPL prompts as lua -i does, also for lines from a pipe, and shows each line after its prompt
        // there as lua's line editor does (a transcript reads like the session); run mode prompts only on
        // a terminal.
        let prompts = tty || mode == .repl
        var failed = false
        while true {
            Platform.flushOut()
            let prompt = repl.prompt
            let read = input.read(prompt: tty ? streams.out.prompt(prompt) : nil)
            if prompts && !tty {
                if case .line(let line) = read { Platform.writeOut(prompt + line + "\n") } else { Platform.writeOut(prompt) }
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
            }
        }
    }

    /// `text` as a Lua string literal (every byte but letters, digits and spaces as `\ddd`).
    static func luaQuoted(_ text: String) -> String {
        "\"" + text.utf8.map { byte in
            let c = Character(Unicode.Scalar(byte))
            return byte < 128 && (c.isLetter || c.isNumber || c == " " || c == "_" || c == ".") ? String(c) : "\\" + String(byte)
        }.joined() + "\""
    }

    static func historyFile() -> String? {
        if let path = Platform.environment("COORDRUN_HISTORY") { return path }
        return Platform.environment("HOME").map { $0 + "/.coordrun_history" }
    }
}
