import ArgumentParser
import CoordinatorOptions
import CoordinatorTools

/// `coordrun`: a drop-in for the stand-alone `lua` (its options, `arg`, `LUA_INIT`, the REPL) that also
/// walks the app a script declares. The steps follow lua.c's `pmain`: read the arguments, print the
/// version, make the state, set `arg`, run `LUA_INIT`, run `-e`/`-l`/`-W` in order, run the script, then
/// the app (run mode), the REPL, or standard input as a script.
@main
enum CoordRun {
    static let version = "0.5.0"
    static let program = "coordrun"

    static func main() {
        let argv = CommandLine.arguments
        // A subcommand, help, the version alone, completion scripts and the manual's dump go to the command
        // tree; anything else is read as lua reads its command line.
        if argv.count > 1, CoordRunCommand.takes(Array(argv.dropFirst())) {
            // A subcommand parses its own command line: through the tree, coordrun's own options (--timeout,
            // --state, --open, --restore) would take the subcommand's options of the same names.
            var arguments = Array(argv.dropFirst())
            // `coordrun help [SUBCOMMAND]` is that command's --help (the tree's root takes a script as its
            // argument, so `help` would be read as one).
            if arguments.first == "help" { arguments = Array(arguments.dropFirst().prefix(1)) + ["--help"] }
            if let script = CompletionScripts.script(for: arguments) {
                Terminal.writeOut(script)
                Processes.exit(0)
            }
            // `serve` is read here too (its help, completion and mistakes are coordrun's), then its program runs
            // (``ServeCommand``).
            if let name = arguments.first, let command = CoordRunCommand.subcommand(named: name) {
                runCommand(command, typedAs: "coordrun \(name)", Array(arguments.dropFirst()))
            } else {
                runCommand(CoordRunCommand.self, typedAs: "coordrun", arguments)
            }
            Processes.exit(0)
        }
        Processes.exit(run(argv))
    }

    /// Runs `command` on its own command line, as ArgumentParser's `main` does, but naming it as users type
    /// it (`See 'coordrun explore --help'`, not `'explore --help'`) and ending a usage mistake with status 2.
    static func runCommand(_ command: ParsableCommand.Type, typedAs name: String, _ arguments: [String]) -> Never {
        do {
            var parsed = try command.parseAsRoot(arguments)
            try parsed.run()
            Processes.exit(0)
        } catch {
            let ending = CommandEnding(command, error: error, typedAs: name)
            if !ending.message.isEmpty {
                if ending.isOutput { Terminal.writeOut(ending.message + "\n") } else { Terminal.writeError(ending.message + "\n") }
            }
            Processes.exit(ending.status)
        }
    }

    /// Runs coordrun with `argv` (the program's name first); the exit status.
    static func run(_ argv: [String]) -> Int32 {
        let streams = Streams()
        let invocation: Invocation
        do {
            invocation = try Invocation(argv)
        } catch {
            streams.message("\(error)")
            Terminal.writeError(Invocation.usage(program: program) + "\n")
            return 1
        }
        if invocation.help {
            Terminal.writeOut(CoordRunCommand.helpMessage() + "\n")
            return 0
        }
        let options: RunSettings
        do {
            options = try RunSettings.parse(invocation.longOptions)
        } catch {
            streams.message(CoordRunOptions.message(for: error))
            return 1
        }
        if invocation.printsCoordrunVersion { Terminal.writeOut("coordrun \(version)\n") }
        if invocation.showVersion { Terminal.writeOut(LuaState.copyright + "\n") }

        let runtime: ScriptRuntime
        do {
            runtime = try makeRuntime(invocation, options)
        } catch {
            streams.message(REPL.message(for: error))
            return 1
        }
        // The state is closed on the way out, as lua.c's: finalizers run, open files are flushed.
        defer { runtime.lua.close() }
        let events = EventLog(app: runtime.app) // before the start: `:events` lists what the start did
        CtrlC.install()
        // The secrets a snapshot's steps need are asked once, before the time limit starts (time travel
        // restores again with the same answers).
        let secrets = options.start.restore.map(askSecrets(of:)) ?? [:]
        do {
            let warning = try CtrlC.interrupts(runtime) { try runtime.lua.withTimeLimit(options.timeLimit) { try startUp(
                runtime,
                invocation,
                options,
                secrets: secrets
            ) } }
            if let warning { streams.message("warning: \(warning)") }
        } catch {
            streams.message(REPL.message(for: error))
            if case .file(let path) = invocation.script, let subcommand = mistypedSubcommand(path, error: error) {
                streams.message(subcommand == path
                    ? """
                        a subcommand comes first, before any option: \(Processes.commandName()) \(subcommand) \
                        [options] (\(path) was read as a script, as lua reads it)
                        """
                    : "did you mean '\(Processes.commandName()) \(subcommand)'? (\(path) was read as a script, as lua reads it)")
            }
            return 1
        }

        let tty = Terminal.isTerminal(0)
        let mode: REPL.Mode
        if invocation.interactive {
            mode = .repl
        } else if case .file = invocation.script, runtime.app.root != nil {
            mode = .run // the app the script declared is walked
        } else if invocation.script != nil || invocation.hasExecute || invocation.showVersion {
            if case .file(let path) = invocation.script, !runtime.declaresApplication, let note = undeclaredApp(runtime, path) {
                streams.message(note)
                return 1
            }
            return 0 // plain Lua, as with lua
        } else if tty {
            if !invocation.showVersion { Terminal.writeOut(LuaState.copyright + "\n") }
            mode = .repl
        } else {
            // lua with no script and standard input not a terminal: standard input is the script.
            do {
                let code = String(decoding: Terminal.readAllStandardInput(), as: UTF8.self)
                try CtrlC.interrupts(runtime) {
                    try runtime.lua.withTimeLimit(options.timeLimit) {
                        try runtime.run(code, name: "=stdin")
                        if runtime.declaresApplication && runtime.app.root == nil { try runtime.start() }
                    }
                }
                return 0
            } catch {
                streams.message(REPL.message(for: error))
                return 1
            }
        }
        do { try runtime.installDriverFunctions() } catch { // a REPL is open: they are there
            streams.message(REPL.message(for: error))
            return 1
        }
        return session(runtime: runtime, events: events, mode: mode, options: options, streams: streams, tty: tty) { sources in
            // Time travel in the REPL: a new runtime made and started as this one was, quietly, its script
            // files read as the texts given.
            guard case .file? = invocation.script else {
                throw REPL.TimeTravelUnavailable(message: "time travel needs the app's script in a file (the REPL read it from standard input)")
            }
            let fresh = try makeRuntime(invocation, options, storage: false)
            // The storage the session began with (the file's store is taken over once travel succeeds).
            try fresh.seedStorage(runtime.initialStorage)
            fresh.lua.sourceOverrides = sources
            _ = try fresh.silencingPrint { try fresh.lua.withTimeLimit(options.timeLimit) { try startUp(fresh, invocation, options, secrets: secrets) } }
            return fresh
        }
    }

    /// The subcommand `word` is one or two letters away from (`tset` for `test`), when lua could not open
    /// it as a script: a word, not a path, and no file of that name.
    static func mistypedSubcommand(_ word: String, error: Error) -> String? {
        guard let lua = error as? LuaError, lua.message.hasPrefix("cannot open " + word + ":"), !word.contains("/"), !word.contains("."),
              !Files.exists(word) else { return nil }
        let names = CoordRunCommand.configuration.subcommands.map { $0.configuration.commandName ?? "" }.filter { !$0.isEmpty }
        let scored = names.map { (name: $0, distance: editDistance(Array(word), Array($0))) }
        guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= min(2, best.name.count / 2) else { return nil }
        return best.name
    }

    /// The edits (an insertion, a deletion, a substitution, or two neighbours swapped) that make `a` into `b`.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var rows = [Array(0...b.count), [Int](repeating: 0, count: b.count + 1), [Int](repeating: 0, count: b.count + 1)]
        for i in 1...a.count {
            let (current, previous, before) = (i % 3, (i + 2) % 3, (i + 1) % 3)
            rows[current][0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(rows[previous][j] + 1, rows[current][j - 1] + 1, rows[previous][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { best = min(best, rows[before][j - 2] + 1) }
                rows[current][j] = best
            }
        }
        return rows[a.count % 3][b.count]
    }

    /// What a script that defines screens or coordinators but never declares the app is told (it would
    /// end at once, having shown nothing), or nil for a plain Lua program.
    static func undeclaredApp(_ runtime: ScriptRuntime, _ path: String) -> String? {
        let screens = runtime.app.catalog.names.filter { $0 != "Alert" }, classes = runtime.coordinatorClassNames
        guard !screens.isEmpty || !classes.isEmpty else { return nil }
        func list(_ names: [String]) -> String { names.prefix(5).joined(separator: ", ") + (names.count > 5 ? ", ..." : "") }
        let defined = [screens.isEmpty ? nil : "screens (\(list(screens)))", classes.isEmpty ? nil : "coordinators (\(list(classes)))"]
        return "\(path) defines " + defined.compactMap { $0 }.joined(separator: " and ") + " but never calls flow.app, so there is no app to walk: "
            + "end it with flow.app(\(classes.first ?? "App")) (or flow.app { authorization = Login, main = Main })"
    }

    /// Asks at the terminal, without echo, for each secret the snapshot in `file` stands in for (a
    /// password its steps typed, which snapshots never hold). Nothing when standard input is no
    /// terminal: the restore then says which secret it needs.
    static func askSecrets(of file: String) -> [String: FlowValue] {
        guard Terminal.isTerminal(0), let json = Files.readFile(file, limit: ScriptRuntime.maximumSnapshotBytes) else { return [:] }
        var answers: [String: FlowValue] = [:]
        for name in AppSnapshot.secretNames(in: json) {
            guard let answer = Terminal.readSecret(prompt: "\(file) needs the secret '\(name)' (not stored in snapshots): ") else { break }
            answers[name] = .string(answer)
        }
        return answers
    }

    /// The runtime as the command line asks for it: the gateway state, sandbox, limits, snapshot key,
    /// warnings, `arg`, and (with `storage`) the storage file.
    static func makeRuntime(_ invocation: Invocation, _ options: RunSettings, storage: Bool = true) throws -> ScriptRuntime {
        let limits = options.limits
        // The driver functions (tap, back, top, ...) are globals where an app is declared or a REPL is
        // open; a plain script's globals are lua's.
        let runtime = try ScriptRuntime(stateNamed: options.start.state, driverFunctions: invocation.interactive, sandbox: limits.sandbox,
                                        ignoringEnvironment: invocation.ignoreEnvironment)
        runtime.installDriverFunctionsWhenAppDeclared()
        try limits.apply(to: runtime, timed: options.timeLimit != nil)
        if let path = options.snapshotKey { runtime.snapshotKey = try SnapshotKey(contentsOf: path) }
        runtime.lua.warningsEnabled = false // as in lua: -W or warn("@on") turns them on
        runtime.lua.useGenerationalCollector() // as lua.c's pmain
        runtime.lua.chunksRunAsPrograms = true // and its chunks run under pmain's C frame
        try setArguments(invocation, in: runtime)
        if storage { try options.start.useStorage(in: runtime) }
        options.start.useIdiom(in: runtime)
        return runtime
    }

    /// LUA_INIT, then -e, -l and -W in order, then the script, then the app: at its start, at a link
    /// (--open) or where a snapshot was taken (--restore), then at each further link given. The first
    /// failure ends it.
    /// `secrets`: the answers to the secrets a snapshot's steps need (``askSecrets(of:)``).
    /// Returns the restore's warning, if any (a snapshot of scripts whose code changed, restored because its
    /// steps still build the same app).
    @discardableResult
    static func startUp(
        _ runtime: ScriptRuntime, _ invocation: Invocation, _ options: RunSettings, secrets: [String: FlowValue] = [:]
    ) throws -> RestoreWarning? {
        if !invocation.ignoreEnvironment { try runInit(runtime) }
        for step in invocation.steps {
            switch step {
            case .execute(let code): try runtime.run(code, name: "=(command line)")
            case .require(let global, let module): try require(module, as: global, in: runtime)
            case .warningsOn: runtime.lua.warningsEnabled = true
            }
        }
        if let script = invocation.script {
            // lua.c's pushargs: the script's `...` are arg[1..#arg] as they are now (-e may change them).
            let arguments = try scriptArguments(of: runtime)
            switch script {
            case .file(let path): try runtime.load(script: path, arguments: arguments)
            case .standardInput:
                let code = String(decoding: Terminal.readAllStandardInput(), as: UTF8.self)
                try runtime.run(code, name: "=stdin", arguments: arguments)
            }
        }
        guard !secrets.isEmpty else { return try options.start.start(runtime) }
        return try options.start.start(runtime) { secret in
            guard let value = secrets[secret.name] else { throw SnapshotError(.needsSecret, "no answer for \(secret)") }
            return value
        }
    }
}
