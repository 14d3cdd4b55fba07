import Foundation
import Testing
import TestSupport

/// A terminal program running in its own tmux server (a real terminal: line editing, Ctrl-C, job
/// control), driven key by key. Waiting is polling the screen for the text a step must produce.
final class TerminalSession {
    let socket = "ct-\(UUID().uuidString.prefix(8))"

    init(_ command: [String], environment: [String: String] = [:], folder: String) throws {
        let env = environment.map { "\($0.key)=\(shellQuote($0.value))" }.joined(separator: " ")
        let line = "cd \(shellQuote(folder)) && env \(env) " + command.map(shellQuote).joined(separator: " ")
            + "; echo \"[exit $?]\"; sleep 60"
        try tmux(["new-session", "-d", "-x", "120", "-y", "50", line])
    }

    deinit { _ = try? tmux(["kill-server"]) }

    /// Runs a tmux client. Spawned directly, with only /dev/null and (for capture-pane) one pipe open in
    /// the child: the tmux server it may start must not inherit any other descriptor of this process.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        var argv = ["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments
        if arguments.first == "new-session" { // starts the server: close every inherited descriptor first
            argv = ["/bin/bash", "-c", "for f in /proc/$$/fd/*; do n=${f##*/}; if [ \"$n\" -gt 2 ]; then eval \"exec $n>&-\"; fi; done; exec \"$@\"", "tmux"] + argv
        }
        var pipeFDs: [Int32] = [-1, -1]
        let capture = arguments.first == "capture-pane"
        if capture { guard pipe(&pipeFDs) == 0 else { throw POSIXError(.EIO) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if capture { posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1) }
        else { posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0) }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Test threads block signals, and a spawned process inherits the mask: give it a clean one, or
        // Ctrl-C would never reach the program in the terminal.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        let status = posix_spawn(&pid, argv[0], &actions, &attributes, cArgs, environ)
        if capture { close(pipeFDs[1]) }
        guard status == 0 else { throw POSIXError(.ENOENT) }
        var output: [UInt8] = []
        if capture {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(pipeFDs[0], &buffer, buffer.count)
                if n > 0 { output += buffer[..<n] } else if n < 0 && errno == EINTR { continue } else { break }
            }
            close(pipeFDs[0])
        }
        var exitStatus: Int32 = 0
        while waitpid(pid, &exitStatus, 0) < 0 && errno == EINTR {}
        return String(decoding: output, as: UTF8.self)
    }

    /// Types `text` literally, then Enter.
    func type(_ text: String, enter: Bool = true) throws {
        try tmux(["send-keys", "-t", "0", "-l", text])
        if enter { try tmux(["send-keys", "-t", "0", "Enter"]) }
    }

    func press(_ key: String) throws { try tmux(["send-keys", "-t", "0", key]) }

    /// Everything on the terminal, scrollback included, without trailing blank lines (tmux drops the
    /// spaces at the end of lines, so a prompt `> ` shows as `>`).
    func screen() throws -> String {
        try tmux(["capture-pane", "-p", "-J", "-S", "-1000", "-t", "0"])
            .split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingSuffix() }
            .joined(separator: "\n").trimmingCharacters(in: .newlines)
    }

    /// Waits until the screen shows `text` `count` times (a net of 60 s); returns the screen.
    @discardableResult
    func waitFor(_ text: String, count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let deadline = Date().addingTimeInterval(60) // a net, not the test: the whole suite runs beside it on two cores
        var last = ""
        while Date() < deadline {
            last = try screen()
            if last.components(separatedBy: text).count - 1 >= count { return last }
        }
        Issue.record("the terminal never showed \(text.debugDescription) \(count) time(s); it shows:\n\(last)", sourceLocation: sourceLocation)
        return last
    }
}

extension Substring {
    func trimmingSuffix() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}



/// The REPL through a real terminal: what `lua` users expect, line editing, and live reload.
@Suite struct REPLTests {
    let folder: TemporaryDirectory
    let history: String

    init() throws {
        folder = try TemporaryDirectory()
        history = folder.path + "/history"
        let app = try #require(readFile(repositoryRoot + "/scripts/app.lua"))
        try folder.write("app.lua", app)
        try folder.write("cities.lua", try #require(readFile(repositoryRoot + "/scripts/cities.lua")))
    }

    func start(_ arguments: [String]) throws -> TerminalSession {
        let session = try TerminalSession([Programs.coordrun] + arguments,
                                          environment: ["COORDRUN_HISTORY": history, "TERM": "xterm", "NO_COLOR": "1"],
                                          folder: folder.path)
        try session.waitFor(">")
        return session
    }

    @Test func restoringASnapshotAsksForItsSecretsWithoutEchoingThem() throws {
        try folder.write("login.lua", """
            local flow = require "coordinator"
            flow.screen "Login" { outputs = { submit = { secret = { "password" } } } }
            flow.screen "Home" { inputs = { "user" } }
            local App = flow.coordinator "App"
            function App:start()
              self:push("Login").onSubmit = function(c)
                if c.password ~= "hunter2" then error("wrong password") end
                self:push("Home", { user = c.user })
              end
            end
            flow.app(App)
            """)
        let taken = try Programs.run(Programs.coordrun, ["-i", "login.lua"], input: """
            tap('submit', { user = 'ann', password = 'hunter2' })
            io.open('s.json', 'w'):write(snapshot()):close()
            """, folder: folder.path)
        #expect(taken.status == 0)
        #expect(try #require(readFile(folder.path + "/s.json")).contains("hunter2") == false)

        let restoring = try TerminalSession([Programs.coordrun, "-i", "--restore", "s.json", "login.lua"],
                                            environment: ["COORDRUN_HISTORY": history, "TERM": "xterm", "NO_COLOR": "1"],
                                            folder: folder.path)
        try restoring.waitFor("s.json needs the secret 'password' (not stored in snapshots):")
        try restoring.type("hunter2")
        let screen = try restoring.waitFor("stack: Login > Home")
        #expect(!screen.contains("hunter2")) // not echoed
        // Without a terminal to ask at, the restore names the secret it needs.
        let piped = try Programs.run(Programs.coordrun, ["--restore", "s.json", "login.lua"], input: "", folder: folder.path)
        #expect(piped.status == 1)
        #expect(piped.err.contains("step 1 needs the secret 'password' of Login's output submit, which a snapshot never holds"))
    }

    @Test func promptsComeFromPromptGlobalsAsInLua() throws {
        let repl = try start(["-e", "_PROMPT = 'lua> ' _PROMPT2 = setmetatable({}, { __tostring = function() return '..> ' end })", "-i"])
        try repl.waitFor("lua>")
        try repl.type("for i = 1, 2 do")
        try repl.waitFor("\n..>")
        try repl.type("io.write(i, ' ') end")
        try repl.waitFor("1 2 lua>") // io.write's text before the prompt, in order
        try repl.type("_PROMPT = nil")
        try repl.waitFor("\n..>")
    }

    @Test func errorsAreColouredOnlyWhereTheyGoToATerminal() throws {
        // Standard error to a file: no escape codes there; standard output on the terminal keeps its colours.
        let errors = folder.path + "/errors.txt"
        let session = try TerminalSession(["/bin/sh", "-c", "exec \(shellQuote(Programs.coordrun)) -i 2>\(shellQuote(errors))"],
                                          environment: ["COORDRUN_HISTORY": history, "TERM": "xterm"], folder: folder.path)
        try session.waitFor(">")
        try session.type("error('boom')")
        try session.type("1+1")
        try session.waitFor("\n2\n")
        let text = try #require(readFile(errors))
        #expect(text.contains("stdin:1: boom"))
        #expect(!text.contains("\u{1B}["))
    }

    @Test func expressionsStatementsErrorsAndContinuation() throws {
        let repl = try start([])
        try repl.type("1+1")
        try repl.waitFor("> 1+1\n2\n>")
        try repl.type("x = { 1, 2, name = 'Ann', city = { name = 'Kazan', region = { name = 'Tatarstan', deep = { deeper = { 1 } } } } }")
        try repl.type("x")
        // Array items first, then fields by name; what does not fit on a line is indented; depth is limited.
        try repl.waitFor("""
            {
              1,
              2,
              city = {
                name = "Kazan",
                region = { deep = { deeper = {...} }, name = "Tatarstan" }
              },
              name = "Ann"
            }
            """)
        try repl.type("=#x")
        try repl.waitFor("> =#x\n2\n")
        try repl.type("error('boom')")
        try repl.waitFor("stdin:5: boom")
        try repl.type("function twice(n)")
        try repl.waitFor(">>")
        try repl.type("  return n * 2")
        try repl.type("end")
        try repl.type("twice(21)")
        try repl.waitFor("\n42\n>")
        try repl.type("s = [[one")
        try repl.type("two]]")
        try repl.type("=s")
        try repl.waitFor("one\ntwo\n>")
        // Ctrl-D at the prompt ends the session with status 0.
        try repl.press("C-d")
        try repl.waitFor("[exit 0]")
    }

    @Test func ctrlDTypedWhileCodeRunsEndsTheSessionAfterIt() throws {
        let repl = try start([])
        // A second of work: the key arrives while it runs, when the terminal is in its own line mode.
        try repl.type("for i = 1, 1e8 do end print('done')")
        try repl.press("C-d")
        let screen = try repl.waitFor("[exit 0]")
        #expect(screen.contains("done\n>")) // the code ran to its end first (the terminal echoed the key as ^D)
    }

    @Test func ctrlCStopsRunningCodeAndTheSessionGoesOn() throws {
        let repl = try start([])
        try repl.type("n = 0 print('looping') while true do n = n + 1 end")
        try repl.waitFor("\nlooping") // the terminal drops typed-ahead input on Ctrl-C: wait until it runs
        try repl.press("C-c")
        try repl.waitFor("stdin:1: interrupted")
        try repl.type("=n > 0")
        try repl.waitFor("\ntrue\n")
        // At the prompt, Ctrl-C drops the line being typed.
        try repl.type("this is not sent", enter: false)
        try repl.waitFor("> this is not sent") // echoed at the prompt: Ctrl-C then reaches the line editor, not typed-ahead input
        try repl.press("C-c")
        try repl.type("=1 + 2")
        let screen = try repl.waitFor("\n3\n")
        #expect(!screen.contains("unexpected symbol"))
    }

    /// Ctrl-C reaches Lua code wherever it runs: inside a coroutine, and in a rendering that follows a line
    /// that navigated.
    @Test func ctrlCStopsCoroutinesAndRenderings() throws {
        let repl = try start(["-i", "app.lua"])
        try repl.type("co = coroutine.wrap(function() print('in coroutine') while true do end end) co()")
        try repl.waitFor("\nin coroutine")
        try repl.press("C-c")
        try repl.waitFor("interrupted")
        // The next screen's rendering loops: it runs after the line that pushed it.
        try repl.type("require('coordinator').screen 'UserEdit' { inputs = { 'user' }, outputs = { 'selectCity', 'logout' }, render = function() print('rendering') while true do end end }")
        try repl.type("tap('login', { name = 'Ann', password = 'secret' })")
        try repl.waitFor("\nrendering")
        try repl.press("C-c")
        try repl.waitFor("interrupted")
        try repl.type("=1 + 2")
        try repl.waitFor("\n3\n")
    }

    @Test func tabCompletesGlobalsFieldsAndTheVisibleScreensOutputs() throws {
        let repl = try start(["-i", "app.lua"])
        let cases = [
            ("tre", "> tree"),                        // a global
            ("string.for", "> string.format"),        // a table's field
            ("tap('log", "> tap('login"),             // the visible screen's output
            ("top():ren", "> top():render"),          // a screen method
            (":rel", "> :reload"),                    // a command
        ]
        for (typed, completed) in cases {
            try repl.type(typed, enter: false)
            try repl.press("Tab")
            try repl.waitFor(completed)
            try repl.press("C-u")
        }
    }

    @Test func historyIsKeptAcrossSessions() throws {
        do {
            let repl = try start([])
            try repl.type("remembered = 42")
            try repl.waitFor(">", count: 2) // the next prompt: line editing has the terminal again (keys typed
                                            // before that can be flushed when it takes it)
            try repl.press("C-d")
            try repl.waitFor("[exit 0]")
        }
        let repl = try start([])
        try repl.press("Up")
        try repl.waitFor("> remembered = 42")
    }

    @Test func reloadThreeScreensDeepChangesTheHandlerAndKeepsTheStack() throws {
        let repl = try start(["-i", "app.lua"])
        try repl.type("tap('login', { name = 'Ann', password = 'secret' }) tap('selectCity') tap('regionSelected', top().regions[1])")
        try repl.type("stack()")
        try repl.waitFor("{ \"UserEdit\", \"Regions\", \"Cities\" }")
        let original = try #require(readFile(folder.path + "/app.lua"))
        let edited = original.replacingOccurrences(
            of: "list.onCitySelected = function(city) self:finish(city) end",
            with: "list.onCitySelected = function(city) self:finish { name = city.name:upper() } end")
        #expect(edited != original)
        try folder.write("app.lua", edited)
        try repl.type(":reload")
        try repl.waitFor("1 handler changed\n  changed     list.onCitySelected in regions.onRegionSelected in CityPicker:start (app.lua:")
        try repl.type("stack()")
        try repl.waitFor("{ \"UserEdit\", \"Regions\", \"Cities\" }", count: 2)
        try repl.type(":tree")
        try repl.waitFor("    CityPicker#")
        try repl.type("tap('citySelected', top().cities[2])")
        try repl.type("=top().user.city.name")
        try repl.waitFor("\nDIMITROVGRAD\n")
        try repl.type(":events 5")
        try repl.waitFor("-> citySelected\n")
    }

    @Test func watchReloadsWhenAScriptIsSaved() throws {
        let repl = try start(["-i", "--watch", "app.lua"])
        try repl.type("tap('login', { name = 'Ann', password = 'secret' })")
        try repl.waitFor("== Profile (UserEdit) ==")
        let original = try #require(readFile(folder.path + "/app.lua"))
        try repl.type("=top().na", enter: false) // being typed when the file is saved
        try repl.waitFor("> =top().na")
        try folder.write("app.lua", original.replacingOccurrences(of: "title = \"Profile\"", with: "title = \"My profile\""))
        // The report above the prompt, and the line being typed redrawn below it.
        let shown = try repl.waitFor("1 screen type changed\n  screen      UserEdit: title \"My profile\" (live: UserEdit#6)\n> =top().na")
        #expect(!shown.contains("> =top().nareloaded"))
        try repl.type("me")
        try repl.waitFor("\nUserEdit\n")
        try repl.type(":show")
        try repl.waitFor("== My profile (UserEdit) ==")
        // A broken save is reported and changes nothing.
        try folder.write("app.lua", original + "\nlocal = 1\n")
        try repl.waitFor("reload failed, nothing changed")
        try repl.type("=top().name")
        try repl.waitFor("\nUserEdit\n")
    }
}
