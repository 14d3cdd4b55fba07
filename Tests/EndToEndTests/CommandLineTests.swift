import Foundation
import Testing
import TestSupport

/// `coordrun`'s command line: one tree of subcommands (help, version, completion scripts, the man page),
/// beside lua's own command line, which keeps reading a script and its arguments as `lua` does.
@Suite struct CommandLineTests {
    /// `:events` right after the start lists what the start did: the log is made before the app starts.
    @Test func eventsListWhatTheStartDid() throws {
        let outcome = try Programs.run(["-i", "scripts/app.lua"], input: ":events\n")
        #expect(outcome.status == 0)
        #expect(outcome.out.contains("> :events\n1. start App#"), "\(outcome.out)")
        #expect(outcome.out.contains(". push Login#"))
        #expect(!outcome.out.contains("(no navigation events yet)"))
    }

    /// A script that defines screens or coordinators but never declares the app would end at once having
    /// shown nothing: it is told what is missing, and the run fails.
    @Test func aScriptWithoutFlowAppSaysSo() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("half.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { }
            local App = flow.coordinator "App"
            function App:start() self:push("Home") end
            """)
        let outcome = try Programs.run([script], input: "")
        #expect(outcome.status == 1)
        #expect(outcome.err == "coordrun: \(script) defines screens (Home) and coordinators (App) but never calls flow.app, so there is no app to walk: end it with flow.app(App) (or flow.app { authorization = Login, main = Main })\n", "\(outcome.err)")
        // A plain Lua program (even one that loads the module) is left alone, as lua would.
        let plain = try folder.write("plain.lua", "local flow = require 'coordinator'\nprint(type(flow.screen))\n")
        let ran = try Programs.run([plain], input: "")
        #expect(ran.status == 0 && ran.out == "function\n" && ran.err.isEmpty, "\(ran.err)")
    }

    /// `--open` given again opens each link in turn; an option that takes one value, given twice, is refused
    /// (ArgumentParser alone would keep the last).
    @Test func repeatedOptionsOpenEachLinkOrAreRefused() throws {
        let links = try Programs.run(["--open", "shop://catalog/shoes", "--open", "shop://cart", "examples/shop.lua"], input: "=stack()\n")
        #expect(links.status == 0, "\(links.err)")
        #expect(links.out.contains("tabs: Catalog | [Cart] | Profile"), "\(links.out)")
        let twice = try Programs.run(["--state", "main", "--state=authorization", "scripts/app.lua"], input: "")
        #expect(twice.status == 1)
        #expect(twice.err.contains("--state was given more than once: give it once"), "\(twice.err)")
    }

    /// Hints name coordrun as it was typed: through scripts/coordrun, that; found on the PATH, its name.
    /// A subcommand's command line it does not understand ends with status 2, as every other mistake in a
    /// coordrun command, saying what and pointing at its help as typed; help itself is status 0 on
    /// standard output. The script form keeps lua's status 1.
    /// A missing script ends every subcommand that takes one with status 2, as a usage mistake does.
    @Test func aMissingScriptEndsEverySubcommandWithStatusTwo() throws {
        for arguments in [["annotations", "nosuch.lua"], ["routes", "nosuch.lua"], ["explore", "nosuch.lua"], ["test", "nosuch_test.lua"],
                          ["diff", "nosuch.lua", "scripts/app.lua"]] {
            let outcome = try Programs.run(arguments, input: "")
            #expect(outcome.status == 2 && outcome.err.contains("nosuch"), "\(arguments): \(outcome.status) \(outcome.err)")
        }
    }

    /// `FORCE_COLOR` colours what goes to a pipe (a CI log); `FORCE_COLOR=0` and `NO_COLOR` leave it plain.
    @Test func forceColorColoursAPipe() throws {
        let escape = "\u{1B}["
        func err(_ environment: [String: String?]) throws -> String {
            try Programs.run(Programs.coordrun, ["nosuch.lua"], input: "", environment: environment).err
        }
        #expect(try err(["FORCE_COLOR": "1", "NO_COLOR": nil]).contains(escape))
        #expect(try err(["FORCE_COLOR": "1", "NO_COLOR": "1"]).contains(escape)) // asked for, whatever else says
        #expect(try !err(["FORCE_COLOR": "0", "NO_COLOR": nil]).contains(escape))
        #expect(try !err(["FORCE_COLOR": nil, "NO_COLOR": nil]).contains(escape)) // a pipe: plain
        let folder = try TemporaryDirectory()
        let failing = try folder.write("fails_test.lua", "app \"\(repositoryRoot)/scripts/app.lua\"\ntest(\"fails\", function() expect.stack { \"Nowhere\" } end)\n")
        let tests = try Programs.run(Programs.coordrun, ["test", failing], input: "", environment: ["FORCE_COLOR": "1"])
        #expect(tests.status == 1 && tests.err.contains(escape), "\(tests.err)")
    }

    @Test func aCommandLineASubcommandDoesNotUnderstandEndsWithStatusTwo() throws {
        for arguments in [["test", "--bogus"], ["explore"], ["routes", "--nope", "x"], ["serve", "--bogus"], ["explore", "--depth", "x", "a.lua"],
                          ["--generate-completion-script", "nope"], ["explore", "--open", "a://x", "--open", "b://y", "a.lua"],
                          ["routes", "--open", "a://x", "a.lua"]] {
            let outcome = try Programs.run(arguments, input: "")
            #expect(outcome.status == 2 && outcome.out.isEmpty, "\(arguments): \(outcome.status) \(outcome.err)")
            let command = arguments[0].hasPrefix("-") ? "coordrun" : "coordrun " + arguments[0]
            #expect(outcome.err.contains("See '\(command) --help'"), "\(arguments): \(outcome.err)")
        }
        let help = try Programs.run(["explore", "--help"], input: "")
        #expect(help.status == 0 && help.out.contains("USAGE: coordrun explore") && help.err.isEmpty, "\(help.err)")
        #expect(try Programs.run(["--bogus"], input: "").status == 1)
    }

    /// `coordrun serve`'s help, its mistakes and its shell completion are coordrun's own: a coordrun copied
    /// where no preview program sits beside it answers them all, and only running the preview needs it.
    @Test func serveHelpMistakesAndCompletionNeedNotThePreviewsProgram() throws {
        // A hard link in a folder of its own beside the build (a copy could not run while another test's
        // child still held the copy's file open: "text file busy").
        let folder = URL(fileURLWithPath: Programs.coordrun).deletingLastPathComponent()
            .appendingPathComponent("coordrun-alone-" + UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let alone = folder + "/coordrun"
        try FileManager.default.linkItem(atPath: Programs.coordrun, toPath: alone)
        let help = try Programs.run(alone, ["serve", "--help"], input: "")
        #expect(help.status == 0 && help.out.contains("USAGE: coordrun serve") && help.out.contains("--port <port>")
                && help.out.contains("--snapshot-key <file>"), "\(help.status) \(help.out)\(help.err)")
        #expect(try Programs.run(alone, ["help", "serve"], input: "").out == help.out)
        let mistake = try Programs.run(alone, ["serve", "--port", "x", "app.lua"], input: "")
        #expect(mistake.status == 2 && mistake.err.contains("--port"), "\(mistake.status) \(mistake.err)")
        let missing = try Programs.run(alone, ["serve"], input: "")
        #expect(missing.status == 2 && missing.err.contains("<script>"), "\(missing.status) \(missing.err)")
        // serve's options (`--port` is serve's alone), as each shell's script spells them.
        for (shell, port) in [("bash", "--port"), ("zsh", "--port"), ("fish", "'port='")] {
            let script = try Programs.run(alone, ["--generate-completion-script", shell], input: "")
            #expect(script.status == 0 && script.out.contains(port), "\(shell): \(script.err)")
        }
        // Running the preview is what needs its program: without it, a clear error.
        let run = try Programs.run(alone, ["serve", repositoryRoot + "/scripts/app.lua"], input: "")
        #expect(run.status == 1 && run.err.contains("cannot run") && run.err.contains("coordrun-serve"), "\(run.err)")
    }

    @Test func hintsNameCoordrunAsItWasTyped() throws {
        let folder = try TemporaryDirectory()
        let recorded = folder.path + "/tests/session_test.lua"
        try FileManager.default.createDirectory(atPath: folder.path + "/tests", withIntermediateDirectories: true)
        _ = try folder.write("app.lua", try #require(readFile(repositoryRoot + "/scripts/app.lua")))
        _ = try folder.write("cities.lua", try #require(readFile(repositoryRoot + "/scripts/cities.lua")))
        let bin = folder.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin + "/coordrun", withDestinationPath: Programs.coordrun)
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")
        let onPath = try Programs.run(bin + "/coordrun", ["app.lua"], input: ":record \(recorded)\n:record stop\n",
                                      environment: ["PATH": path, "COORDRUN_COMMAND": nil], folder: folder.path)
        #expect(onPath.out.contains("recorded \(recorded): coordrun test \(recorded) replays it"), "\(onPath.out)\(onPath.err)")
        let text = try #require(readFile(recorded))
        // The app, relative to the test file's folder.
        #expect(text.contains("\napp \"../app.lua\"\n") && text.hasPrefix("-- Recorded by coordrun's :record: coordrun test "), "\(text)")
        // Another session does not write over the first one's file: it records to its own.
        let again = folder.path + "/tests/again_test.lua"
        let wrapped = try Programs.run(Programs.coordrun, ["app.lua"], input: ":record \(recorded)\n:record \(again)\n:record stop\n",
                                       environment: ["COORDRUN_COMMAND": "./scripts/coordrun"], folder: folder.path)
        #expect(wrapped.err.contains("\(recorded) exists and was not recorded by the running session"), "\(wrapped.err)")
        #expect(wrapped.out.contains("recorded \(again): ./scripts/coordrun test \(again) replays it"), "\(wrapped.out)")
        #expect(try Programs.run(["test", recorded, again], input: "").status == 0)
    }

    /// What coordrun itself writes to a terminal (a screen's title, name and rendering, an action, an
    /// error about the app, an echoed line, exploration's report, a test's failure) carries no control
    /// character but the line end and the tab: an app's names cannot set the window's title or write the
    /// clipboard (OSC 52). What a script writes stays as lua writes it.
    @Test func coordrunsOwnTextIsInertAndTheScriptsIsLuas() throws {
        let folder = try TemporaryDirectory()
        let app = try folder.write("app.lua", """
            local flow = require "coordinator"
            local osc = "\\27]52;c;ZXZpbA==\\7"
            local stuck = "Stuck\\27[31m\\0\\r"
            flow.screen("Home" .. osc) { title = "T\\rTitle" .. osc, outputs = { "go" .. osc, "fail", "stuck" },
                                         render = function() return "text" .. osc end }
            flow.screen(stuck) {}
            local Main = flow.coordinator "Main"
            function Main:start()
              local home = self:push("Home" .. osc)
              home["onGo" .. osc] = function() end
              home.onFail = function() error("bad" .. osc) end
              home.onStuck = function() self:setRoot(stuck) end
            end
            flow.app { authorization = Main }
            """)
        let walked = try Programs.run([app], input: "fail\nprint('\\27[31mred')\n")
        let own = walked.out.replacingOccurrences(of: "\u{1B}[31mred", with: "")
        #expect(!own.contains("\u{1B}") && !own.contains("\r") && !walked.err.contains("\u{1B}") && !walked.err.contains("\u{07}"), "\(walked.out.debugDescription)\n\(walked.err.debugDescription)")
        #expect(walked.out.contains("text^[]52;c;ZXZpbA==^G") && walked.err.contains("bad^[]52"), "\(walked.out)\(walked.err)")
        #expect(walked.out.contains("\u{1B}[31mred\n"), "\(walked.out.debugDescription)") // print is the script's
        // The REPL echoes a piped line after its prompt, inert; the value it prints is the script's.
        let echoed = try Programs.run(["-i", app], input: "x = '\u{1B}]52;c;x\u{07}' return x\n")
        #expect(echoed.out.contains("> x = '^[]52;c;x^G' return x\n") && echoed.out.contains("\u{1B}]52;c;x\u{07}\n"), "\(echoed.out.debugDescription)")
        let explored = try Programs.run(["explore", app, "--depth", "2"], input: "")
        #expect(!explored.out.contains("\u{1B}") && !explored.err.contains("\u{1B}") && explored.out.contains("bad^[]52"), "\(explored.out.debugDescription)")
        // A name that holds one of coordrun's own colours, NUL and CR: the dead end's line shows each escaped.
        #expect(explored.out.contains("  Stuck^[[31m^@^M has no way forward and no way back\n"), "\(explored.out.debugDescription)")
        #expect(!explored.out.contains("\u{0}") && !explored.out.contains("\r"), "\(explored.out.debugDescription)")
        _ = try folder.write("app_test.lua", "app 'app.lua'\ntest('fails' .. '\\27]52;c;x\\7', function() tap('fail') end)\n")
        let tested = try Programs.run(["test", folder.path + "/app_test.lua"], input: "")
        #expect(tested.status == 1 && !tested.err.contains("\u{1B}") && tested.err.contains("fails^[]52;c;x^G"), "\(tested.err.debugDescription)")
        // The script form is lua's: an error message and print are written as they are.
        let script = try Programs.run(["-e", "io.write('\\27[1mbold') error('x\\27[0m')"], input: "")
        #expect(script.out == "\u{1B}[1mbold" && script.err.contains("x\u{1B}[0m"), "\(script.out.debugDescription) \(script.err.debugDescription)")
    }

    @Test func helpListsEverySubcommandAndLuasOptions() throws {
        let help = try Programs.run(["--help"], input: "")
        #expect(help.status == 0)
        for line in ["USAGE: coordrun [options] [script [args]]", "SUBCOMMANDS:", "  test ", "  routes ", "  explore ",
                     "-e stat runs 'stat'", "--memory-limit <bytes>"] {
            #expect(help.out.contains(line), "\(line)\n\(help.out)")
        }
        // After lua's options, --help is still coordrun's help.
        let late = try Programs.run(["-e", "x = 1", "--help"], input: "")
        #expect(late.status == 0 && late.out == help.out)
        let sub = try Programs.run(["help", "explore"], input: "")
        #expect(sub.status == 0 && sub.out.contains("USAGE: coordrun explore [<options>] <script>"), "\(sub.out)")
    }

    @Test func versionPrintsAndExitsZero() throws {
        let version = try Programs.run(["--version"], input: "")
        #expect(version.status == 0)
        #expect(version.out.hasPrefix("coordrun 0.5.0\nLua 5.4"), "\(version.out)")
        #expect(version.out.hasSuffix("PUC-Rio\n"))
        // As lua's -v, it can come before a script or a chunk, which then runs.
        let then = try Programs.run(["--version", "-e", "print(40 + 2)"], input: "")
        #expect(then.status == 0 && then.out.hasSuffix("PUC-Rio\n42\n"), "\(then.out)")
    }

    /// A long option given last, with no script after it, is an option: standard input is the script.
    @Test func aLongOptionLastIsNotAScriptName() throws {
        for option in ["--sandbox", "--watch"] {
            let outcome = try Programs.run([option], input: "print('from stdin')\n")
            #expect(outcome.status == 0, "\(option): \(outcome.err)")
            #expect(outcome.out == "from stdin\n", "\(option): \(outcome.out)")
            #expect(!outcome.err.contains("cannot open"))
        }
    }

    /// What a subcommand-less command line holds stays the script's: `--help` after the script is its argument.
    @Test func aScriptsArgumentsAreTheScripts() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("args.lua", "print(#arg, arg[1], arg[2])\n")
        let outcome = try Programs.run([script, "--help", "test"], input: "")
        #expect(outcome.status == 0 && outcome.out == "2\t--help\ttest\n", "\(outcome.out) \(outcome.err)")
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptsPassTheirShellsSyntaxCheck(_ shell: String) throws {
        let folder = try TemporaryDirectory()
        let script = try Programs.run(["--generate-completion-script", shell], input: "")
        #expect(script.status == 0 && script.out.contains("coordrun"))
        #expect(script.out.contains("explore") && script.out.contains("routes"))
        let path = try folder.write("completion.\(shell)", script.out)
        let check = try Programs.run("/usr/bin/env", [shell, "-n", path], input: "")
        #expect(check.status == 0, "\(shell) -n: \(check.err)")
    }

    /// What a shell offers for `line` (the word being completed last, empty after a space), in `folder`,
    /// with coordrun's completion script loaded: bash through its completion function, fish through
    /// `complete -C`.
    static func completions(_ shell: String, _ line: String, in folder: String) throws -> Set<String> {
        let script = try Programs.run(["--generate-completion-script", shell], input: "").out
        let path = folder + "/completion." + shell
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let outcome: Programs.Outcome
        if shell == "bash" {
            let words = line.split(separator: " ", omittingEmptySubsequences: false).map { shellQuote(String($0)) }
            let code = "source \(shellQuote(path)); COMP_WORDS=(\(words.joined(separator: " "))); COMP_CWORD=\(words.count - 1); "
                + "COMP_LINE=\(shellQuote(line)); COMP_POINT=${#COMP_LINE}; _coordrun coordrun \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"; "
                + "printf '%s\\n' \"${COMPREPLY[@]}\""
            outcome = try Programs.run("/usr/bin/env", ["bash", "-c", code], input: "", folder: folder)
        } else {
            outcome = try Programs.run("/usr/bin/env", ["fish", "-c", "source \(shellQuote(path)); complete -C \(shellQuote(line))"], input: "", folder: folder)
        }
        return Set(outcome.out.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") })
    }

    /// Scripts, test files and reports complete as file names: the script that is coordrun's first word
    /// (beside the subcommands), a subcommand's script (`.lua` only, and folders), its paths and its reports.
    @Test(arguments: ["bash", "fish"])
    func fileArgumentsComplete(_ shell: String) throws {
        let folder = try TemporaryDirectory()
        for name in ["app.lua", "app_test.lua", "notes.txt", "cov.json", "flows/.keep"] { try folder.write(name, "") }
        let first = try Self.completions(shell, "coordrun ", in: folder.path)
        #expect(first.isSuperset(of: ["app.lua", "app_test.lua", "explore", "test"]) && !first.contains("notes.txt"), "\(first)")
        let script = try Self.completions(shell, "coordrun explore ", in: folder.path)
        #expect(script.contains("app.lua") && script.contains(where: { $0.hasPrefix("flows") }) && !script.contains("notes.txt"), "\(script)")
        let coverage = try Self.completions(shell, "coordrun explore app.lua --coverage ", in: folder.path)
        #expect(coverage.contains("cov.json") && !coverage.contains("app.lua"), "\(coverage)")
        let report = try Self.completions(shell, "coordrun test --junit ", in: folder.path)
        #expect(report.isSuperset(of: ["notes.txt", "app.lua"]), "\(report)")
        let paths = try Self.completions(shell, "coordrun test ", in: folder.path)
        #expect(paths.contains("app_test.lua"), "\(paths)")
        let versions = try Self.completions(shell, "coordrun diff ", in: folder.path)
        #expect(versions.contains("app.lua"), "\(versions)")
    }

    /// zsh's script says the same with `_files` (its completion needs a terminal to run).
    @Test func zshCompletesFileArguments() throws {
        let script = try Programs.run(["--generate-completion-script", "zsh"], input: "").out
        #expect(script.contains("_describe -V subcommand subcommands && ret=0\n        _files -g '*.lua' && ret=0"))
        #expect(script.contains("':script:_files -g '\\''*.lua'\\'''"), "the explore script")
        #expect(script.contains("--coverage[") && script.contains(":file:_files -g '\\''*.json'\\'''"))
    }

    /// The man page has both forms of the command line, serve's own options, ENVIRONMENT, EXIT STATUS and
    /// SEE ALSO, and neither mandoc nor groff warns of anything in it; the help texts it is made from keep to
    /// ASCII (the manual plugin drops any other character).
    @Test func theManPageIsCompleteAndLintFree() throws {
        let page = repositoryRoot + "/docs/man/coordrun.1"
        let text = try String(contentsOfFile: page, encoding: .utf8)
        for section in [".Sh SYNOPSIS", ".Sh ENVIRONMENT", ".Sh \"EXIT STATUS\"", ".Sh \"SEE ALSO\"", ".Op Ar script Op Ar args ...", ".Ar subcommand",
                        ".It Fl -port Ar port", ".It Ev FORCE_COLOR", ".Xr lua 1"] {
            #expect(text.contains(section), "\(section)")
        }
        #expect(!text.contains("\n\n"), "a blank line")
        let lint = try Programs.run("/usr/bin/env", ["mandoc", "-T", "lint", "-W", "warning", page], input: "")
        #expect(lint.status == 0 && lint.out.isEmpty && lint.err.isEmpty, "mandoc: \(lint.out)\(lint.err)")
        let groff = try Programs.run("/usr/bin/env", ["groff", "-ww", "-z", "-mandoc", page], input: "")
        #expect(groff.status == 0 && groff.err.isEmpty, "groff: \(groff.err)")
        let dump = try Programs.run(["--experimental-dump-help"], input: "")
        let beyondASCII = dump.out.unicodeScalars.filter { !$0.isASCII }
        #expect(beyondASCII.isEmpty, "help texts beyond ASCII: \(String(String.UnicodeScalarView(beyondASCII)))")
    }

    /// docs/man/coordrun.1 (scripts/man) names every subcommand and option the command tree has.
    @Test func theManPageNamesEverySubcommandAndOption() throws {
        let page = try String(contentsOfFile: repositoryRoot + "/docs/man/coordrun.1", encoding: .utf8)
        let dump = try Programs.run(["--experimental-dump-help"], input: "")
        #expect(dump.status == 0)
        let tree = try #require(try JSONSerialization.jsonObject(with: Data(dump.out.utf8)) as? [String: Any])
        var missing: [String] = []
        func walk(_ command: [String: Any]) {
            let name = command["commandName"] as? String ?? ""
            if !page.contains(name) { missing.append(name) }
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                let isHidden = (argument["shouldDisplay"] as? Bool) == false
                for entry in argument["names"] as? [[String: Any]] ?? [] where !isHidden {
                    if let long = entry["name"] as? String, entry["kind"] as? String == "long", !page.contains(long) {
                        missing.append("\(name) --\(long)")
                    }
                }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { walk(sub) }
        }
        walk(try #require(tree["command"] as? [String: Any]))
        #expect(missing.isEmpty, "docs/man/coordrun.1 does not name \(missing): run scripts/man")
    }
}
