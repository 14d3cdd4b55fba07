import Foundation
import Testing
import TestSupport

/// `coordrun` as a drop-in for `lua`, checked side by side with the system's `lua5.4` (scripts/test
/// installs it): the same inputs to both REPLs, the same command lines, the same `arg`. Where the two
/// differ on purpose (docs/Lua.md, "coordrun and lua"), the difference is normalized here and tested on
/// its own.
@Suite struct LuaCompatibilityTests {
    static let lua = "/usr/bin/lua5.4"

    static func requireLua() throws {
        try #require(FileManager.default.isExecutableFile(atPath: lua), "lua5.4 is missing: ./scripts/test installs it")
    }

    /// What both print, without what differs on purpose: addresses and the line numbers of session chunks
    /// (`lua` counts each chunk from 1, coordrun counts the session's lines). Both show each line read from
    /// a pipe after its prompt, as `lua`'s line editor does.
    static func normalized(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .map { $0.replacing(/0x[0-9a-f]+/, with: "0x?").replacing(/stdin:[0-9]+:/, with: "stdin:?:") }
    }

    /// Messages without the program's name in front (`lua5.4: ...`, `coordrun: ...`).
    static func withoutProgram(_ text: String) -> String {
        text.replacingOccurrences(of: lua + ":", with: "P:").replacingOccurrences(of: "lua5.4:", with: "P:")
            .replacingOccurrences(of: "coordrun:", with: "P:")
    }

    /// The first line of an error output, without the program's name.
    static func firstMessage(_ text: String) -> String? {
        withoutProgram(text).split(separator: "\n").first.map(String.init)
    }

    /// Inputs whose printed values and errors `lua -i` and `coordrun -i` agree on.
    static let replInputs = [
        "1+1", "0.1 + 0.2", "math.pi", "-0.0", "1e300*10", "-(0/0)", "2^63", "math.maxinteger", "math.mininteger",
        "7 // 2", "7 / 2", "3 % -2", "1e15", "1e16", "123456789012345678",
        "\"a\\0b\"", "nil", "true, nil, 3", "x = 5", "x", "local y = 1", "y",
        "setmetatable({}, {__tostring=function() return 'T!' end})", "setmetatable({}, {__name='My'})",
        "io.stdout", "print", "coroutine.create(print)",
        "error()", "error('boom')", "error({})", "error(42)", "error(true)",
        "1 +", "2",
        "for i = 1, 2 do", "print(i)", "end",
        "io.write('a')", "io.write('b\\n')", "print(1, nil, 'x')",
        "string.format('%q', 'x\\n')", "select('#', ...)",
        "function f() return 1, 2 end", "f()",
        "local t <const> = 1; t = 2", "\"unterminated", "x = = 1", "return", "=x", "=1, 2",
        "goto nowhere", "local a <close> = 4",
    ]

    @Test func theREPLPrintsWhatLuaPrints() throws {
        try Self.requireLua()
        let input = Self.replInputs.joined(separator: "\n") + "\n"
        let lua = try Programs.run(Self.lua, ["-i"], input: input)
        let ours = try Programs.run(["-i"], input: input)
        let expected = Self.normalized(lua.out + lua.err)
        let actual = Self.normalized(ours.out + ours.err)
        #expect(actual == expected)
        if actual != expected {
            for (i, (a, e)) in zip(actual, expected).enumerated() where a != e { Issue.record("line \(i): \(a.debugDescription) ≠ lua's \(e.debugDescription)"); break }
        }
    }

    /// Where the REPL differs on purpose: tables are pretty-printed as Lua that reads back, and session
    /// lines are numbered.
    @Test func tablesArePrettyPrintedAsLuaThatReadsBack() throws {
        let inputs = ["{ 1, 2, x = 'y', ['end'] = true, [2.5] = 'f', ['\\0' .. '1'] = 0 }", "nosuch()"]
        let ours = try Programs.run(["-i"], input: inputs.joined(separator: "\n") + "\n")
        #expect(ours.out.contains(#"{ 1, 2, ["\0001"] = 0, ["end"] = true, [2.5] = "f", x = "y" }"#), "\(ours.out)")
        #expect(ours.err.contains("stdin:2: attempt to call a nil value (global 'nosuch')"))
        // What is printed reads back as the same table.
        let back = try Programs.run(["-e", #"local t = { 1, 2, ["\0001"] = 0, ["end"] = true, [2.5] = "f", x = "y" } print(#t, t["\0" .. "1"], t["end"], t[2.5])"#], input: "")
        #expect(back.out == "2\t0\ttrue\tf\n")
    }

    /// A script that prints `arg` from its lowest index up, and `...`.
    static let argScript = """
        local low = 0
        while arg[low - 1] ~= nil do low = low - 1 end
        local parts = {}
        for i = low, #arg do parts[#parts + 1] = i .. "=" .. (i == low and "<interpreter>" or tostring(arg[i])) end
        print(table.concat(parts, " "))
        print("...", select("#", ...), ...)
        """

    @Test(arguments: [
        ["SCRIPT"], ["SCRIPT", "a", "b c", "-x", "--"], ["-e", "x=1", "SCRIPT", "a"], ["-eprint('e')", "SCRIPT"],
        ["-W", "SCRIPT", "-i"], ["--", "SCRIPT", "z"], ["-lstring", "SCRIPT"], ["-l", "s=string", "-e", "print(s == string)", "SCRIPT"],
        ["-E", "SCRIPT", "1"], ["-", "a", "b"], ["-e", "print(#arg, arg[0], arg[-1])"], ["-v", "SCRIPT", "q"],
    ])
    func theCommandLineAndArgMatchLua(_ arguments: [String]) throws {
        try Self.requireLua()
        let folder = try TemporaryDirectory()
        let script = try folder.write("args.lua", Self.argScript)
        let argv = arguments.map { $0 == "SCRIPT" ? script : $0 }
        let stdin = arguments.contains("-") ? Self.argScript : ""
        let lua = try Programs.run(Self.lua, argv, input: stdin)
        let ours = try Programs.run(Programs.coordrun, argv, input: stdin)
        let luaOut = lua.out.replacingOccurrences(of: Self.lua, with: "<interpreter>")
        let ourOut = ours.out.replacingOccurrences(of: Programs.coordrun, with: "<interpreter>")
        #expect(Self.normalized(ourOut) == Self.normalized(luaOut))
        #expect(ours.status == lua.status)
        #expect(ours.err == lua.err)
    }

    @Test(arguments: [["-x"], ["-e"], ["-ix"], ["-l"], ["--x"], ["-E", "-h"], ["-", "-"]])
    func badOptionsAreRefusedAsLuaRefusesThem(_ arguments: [String]) throws {
        try Self.requireLua()
        let lua = try Programs.run(Self.lua, arguments, input: "")
        let ours = try Programs.run(Programs.coordrun, arguments, input: "")
        #expect(ours.status == lua.status)
        #expect(Self.firstMessage(ours.err) == Self.firstMessage(lua.err), "\(ours.err)")
        // The usage text after the message is lua's, byte for byte but for the program's name.
        func named(_ text: String) -> String {
            text.replacingOccurrences(of: Self.lua, with: "P").replacingOccurrences(of: Programs.coordrun, with: "P")
                .replacingOccurrences(of: "lua5.4", with: "P").replacingOccurrences(of: "coordrun", with: "P")
        }
        #expect(named(ours.err) == named(lua.err), "\(ours.err)")
    }

    @Test func scriptErrorsAndMissingScriptsExitAsInLua() throws {
        try Self.requireLua()
        let folder = try TemporaryDirectory()
        let failing = try folder.write("fails.lua", "local x = 1\nerror('boom')\n")
        for argv in [[failing], [folder.path + "/nosuch.lua"], ["-e", "error('e')"], ["-e", "x = = 1"]] {
            let lua = try Programs.run(Self.lua, argv, input: "")
            let ours = try Programs.run(Programs.coordrun, argv, input: "")
            #expect(ours.status == lua.status && ours.status == 1)
            #expect(Self.firstMessage(ours.err) == Self.firstMessage(lua.err), "\(argv): \(ours.err)")
        }
    }

    /// An error in `-l`'s `require` has lua's whole traceback, down to its `[C]: in ?` (lua.c runs it under
    /// pmain), for a module that is missing and one that fails.
    @Test func aFailingLibraryHasLuasTraceback() throws {
        try Self.requireLua()
        let folder = try TemporaryDirectory()
        _ = try folder.write("failing.lua", "error('cannot load')\n")
        for argv in [["-l", "nosuchmodule"], ["-l", "failing"], ["-l", "g=failing"]] {
            let lua = try Programs.run(Self.lua, argv, input: "", folder: folder.path)
            let ours = try Programs.run(Programs.coordrun, argv, input: "", folder: folder.path)
            #expect(ours.status == lua.status && ours.status == 1)
            #expect(Self.withoutProgram(ours.err) == Self.withoutProgram(lua.err), "\(argv): \(ours.err)")
            #expect(ours.err.hasSuffix("\t[C]: in ?\n"), "\(ours.err)")
        }
    }

    /// A mistyped subcommand is a script name to lua: the first line stays lua's, the status too, and a
    /// second line names the subcommand meant. A real file, a path or a far word gets no hint.
    @Test func aMistypedSubcommandKeepsLuasMessageAndSaysWhatWasMeant() throws {
        try Self.requireLua()
        let folder = try TemporaryDirectory()
        for (word, meant) in [("tset", "test"), ("explroe", "explore"), ("dif", "diff"), ("annotation", "annotations")] {
            let lua = try Programs.run(Self.lua, [word], input: "", folder: folder.path)
            let ours = try Programs.run(Programs.coordrun, [word], input: "", folder: folder.path)
            #expect(ours.status == lua.status && ours.status == 1)
            let lines = ours.err.split(separator: "\n").map(String.init)
            #expect(lines.count == 2 && Self.firstMessage(ours.err) == Self.firstMessage(lua.err), "\(ours.err)")
            #expect(lines.last?.hasPrefix("coordrun: did you mean '") == true && lines.last?.contains(" \(meant)'?") == true, "\(ours.err)")
        }
        // A subcommand after coordrun's own options: lua's message, then where the subcommand goes.
        let late = try Programs.run(Programs.coordrun, ["--sandbox", "test"], input: "", folder: folder.path)
        #expect(late.status == 1 && late.err.contains("cannot open test") && late.err.contains("a subcommand comes first, before any option"), "\(late.err)")
        for word in ["zzz", "./tset", "tset.lua"] {
            let ours = try Programs.run(Programs.coordrun, [word], input: "", folder: folder.path)
            #expect(ours.status == 1 && !ours.err.contains("did you mean"), "\(word): \(ours.err)")
        }
    }

    @Test func luaInitRunsFirstUnlessIgnored() throws {
        try Self.requireLua()
        let folder = try TemporaryDirectory()
        let initFile = try folder.write("init.lua", "print('from file', ...)\n")
        for (environment, arguments) in [(["LUA_INIT": "print('init')"], ["-e", "print('e')"]),
                                         (["LUA_INIT_5_4": "print('5.4')", "LUA_INIT": "print('init')"], ["-e", "print('e')"]),
                                         (["LUA_INIT": "@" + initFile], ["-e", "print('e')"]),
                                         (["LUA_INIT": "print('init')"], ["-E", "-e", "print('e')"]),
                                         (["LUA_INIT": "error('bad init')"], ["-e", "print('e')"])] {
            let lua = try Programs.run(Self.lua, arguments, input: "", environment: environment)
            let ours = try Programs.run(Programs.coordrun, arguments, input: "", environment: environment)
            #expect(ours.out == lua.out, "\(environment)")
            #expect(ours.status == lua.status)
        }
    }

    /// Cases from Lua's own test of the stand-alone interpreter (testes/main.lua), run through both.
    @Test(arguments: [
        (["-e", "arg[1] = 100", "-"], "print(...)"),                          // `...` is arg as -e left it
        (["-e", "arg = 1", "-"], ""),                                          // 'arg' is not a table
        (["-e", "print=nil", "-i"], "10"),                                     // error calling 'print'
        (["-W", "-"], "warn('@allow') warn('@off', 'XXX', '@off') warn('@off') warn('@on', 'YYY', '@on') warn('@off') warn('@on') warn('', '@on') warn('Z', 'Z', 'Z')"),
        (["-"], "io.stderr:write(1); warn[[XXX]]"),                           // no warnings by default
        (["-"], "print('creating 1') setmetatable({}, {__gc = function () print(1) end}) print('creating 2')"), // finalizers at exit
        (["-e", "_PROMPT='' _PROMPT2=''", "-i"], "(6*2-6) -- ===\na =\n10\nprint(a)\na"),
        (["-e", "_PROMPT='' _PROMPT2=''", "-i"], "a = [[b\nc\nd\ne]]\n=a"),
        (["-"], "os.exit(false, true)"), (["-"], "os.exit(true, true)"), (["-"], "os.exit(3)"),
        (["-"], "local x <close> = setmetatable({}, {__close = function() print('Ok') end}) os.exit(true, true)"),
        (["-v", "-e", "print'hello'"], ""),
    ])
    func casesFromLuasOwnTests(_ arguments: [String], _ input: String) throws {
        try Self.requireLua()
        let lua = try Programs.run(Self.lua, arguments, input: input + "\n")
        let ours = try Programs.run(Programs.coordrun, arguments, input: input + "\n")
        #expect(Self.normalized(ours.out) == Self.normalized(lua.out))
        #expect(ours.status == lua.status)
        #expect(Self.normalized(Self.withoutProgram(ours.err)) == Self.normalized(Self.withoutProgram(lua.err)), "\(arguments)")
    }

    /// Scripts whose every byte of output lua5.4 and coordrun agree on: what a debugger, a profiler, a
    /// coroutine library or `luac`'s user relies on.
    @Test(arguments: [
        // A hook set on a coroutine is called in it, and debug.gethook gives it back.
        """
        local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b * 2 end)
        local events = {}
        local function hook(event) events[#events + 1] = event end
        debug.sethook(co, hook, "cr")
        print(coroutine.resume(co, 1)) print(coroutine.resume(co, 5))
        print(table.concat(events, " "), debug.gethook(co) == hook, debug.gethook())
        """,
        // The error a wrapped coroutine's to-be-closed variables raise replaces the original one.
        """
        local x = 0
        local co = coroutine.wrap(function()
          local xx <close> = setmetatable({}, { __close = function(_, msg) x = x + 1 assert(msg:find("@XXX")) error("@YYY") end })
          local xv <close> = setmetatable({}, { __close = function() x = x + 1 error("@XXX") end })
          coroutine.yield(100)
          error(200)
        end)
        print(co(), x) print(pcall(co)) print(x)
        """,
        // Binary chunks load, as luac's output does.
        """
        local f = load(string.dump(function(...) return select('#', ...), ... end))
        print(f(1, 2)) print(load("return 1", "t", "b"))
        """,
        // A plain script's globals are Lua's own: no driver functions.
        "print(tap, back, dismiss, open, top, stack, tree, tab, snapshot, restore, reload)",
        // The collector runs in generational mode, as lua.c sets it.
        "print(collectgarbage('incremental'), collectgarbage('generational'))",
        // Tracebacks end with the interpreter's own frame.
        "local function f() print(debug.traceback('here', 1)) end f()",
        // A wrapped coroutine's error names the caller's line, as the library's wrap does.
        "print(pcall(coroutine.wrap(function() error('in') end)))",
    ])
    func scriptsPrintWhatLuaPrints(_ code: String) throws {
        try Self.requireLua()
        let folder = try TemporaryDirectory()
        let script = try folder.write("same.lua", code + "\n")
        let lua = try Programs.run(Self.lua, [script], input: "")
        let ours = try Programs.run(Programs.coordrun, [script], input: "")
        #expect(lua.status == 0, "\(lua.err)")
        #expect(ours.out.replacing(/0x[0-9a-f]+/, with: "0x?") == lua.out.replacing(/0x[0-9a-f]+/, with: "0x?"))
        #expect(ours.err == lua.err)
        #expect(ours.status == lua.status)
    }

    @Test func anOpenFileIsFlushedWhenTheScriptEnds() throws {
        let folder = try TemporaryDirectory()
        let out = folder.path + "/out.txt"
        let script = try folder.write("w.lua", "io.output(\"\(out)\"); io.write('alo')\n")
        let ours = try Programs.run([script], input: "")
        #expect(ours.status == 0)
        #expect(readFile(out) == "alo")
    }

    @Test func aScriptWithoutAnAppIsPlainLua() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("plain.lua", "io.write('plain ', ...) print()\n")
        let ours = try Programs.run([script, "x"], input: "1\n")
        #expect(ours.out == "plain x\n")
        #expect(ours.err.isEmpty)
        #expect(ours.status == 0)
    }

    @Test func anAppDeclaredAtThePromptStarts() throws {
        let inputs = [
            "flow = require 'coordinator'",
            "flow.screen 'Hello' { outputs = { 'wave' } }",
            "App = flow.coordinator 'App'",
            "function App:start() self:push('Hello').onWave = function() waved = true end end",
            "flow.app(App)",
            "tap('wave')", "waved",
        ]
        let ours = try Programs.run(["-i"], input: inputs.joined(separator: "\n") + "\n")
        #expect(ours.out.contains("> flow.app(App)\n== Hello ==\n  :1. wave\nstack: Hello\n"), "\(ours.out)")
        #expect(ours.out.hasSuffix("> waved\ntrue\n> \n"))
        #expect(ours.err.isEmpty)
    }

    @Test func outputIsInTheOrderItWasMade() throws {
        let ours = try Programs.run(["-i"], input: "io.write('a')\nprint(1+1)\nio.write('b')\nprint('c')\n")
        let addressesHidden = ours.out.replacing(/0x[0-9a-f]+/, with: "0x?")
        #expect(addressesHidden.hasSuffix("> io.write('a')\nafile (0x?)\n> print(1+1)\n2\n> io.write('b')\nbfile (0x?)\n> print('c')\nc\n> \n"), "\(ours.out)")
    }
}
