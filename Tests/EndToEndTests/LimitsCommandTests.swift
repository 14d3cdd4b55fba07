import Foundation
import Testing
import TestSupport

/// The README's limits (`--sandbox --memory-limit --instruction-limit --timeout`) hold wherever the user's
/// code runs: a plain script, an `-e` chunk, a message handler, an error object's `__tostring`.
@Suite struct LimitsCommandTests {
    static let sandboxed = ["--sandbox", "--memory-limit", "64000000", "--instruction-limit", "10000000", "--timeout", "2"]
    /// The sandbox and the budget without a clock: a case that expects the budget to end it must not race a
    /// timeout (on a busy machine 10,000,000 instructions can take longer than any timeout would allow).
    static let budgeted = ["--sandbox", "--memory-limit", "64000000", "--instruction-limit", "10000000"]

    @Test func eachRunawayLineEndsWithAnError() throws {
        let folder = try TemporaryDirectory()
        let spin = try folder.write("spin.lua", "while true do end\n")
        let tostring = try folder.write("tostring.lua", "error(setmetatable({}, { __tostring = function() while true do end end }))\n")
        let backtrack = "string.find(('a'):rep(100000), '.-.-.-.-b')"
        let matchOnLoad = try folder.write("match.lua", "local found = string.match(('a'):rep(100000), '.-.-.-.-b')\n")
        let cases: [(arguments: [String], message: String)] = [
            (Self.budgeted + ["-e", backtrack], "(command line):1: instruction budget of 10000000 instructions exhausted"),
            (["--timeout", "1", "-e", backtrack], "(command line):1: timed out"),
            (["--timeout", "1", matchOnLoad], "match.lua:1: timed out"),
            // Inside a wrapped coroutine the error names the user's line, not the wrapper's.
            (["--timeout", "1", "-e", "local f = coroutine.wrap(function() while true do end end) f()"], "coordrun: (command line):1: timed out"),
            (["--timeout", "1", spin], "spin.lua:1: timed out"),
            (["--sandbox", "--timeout", "1", "-e", "while true do end"], "(command line):1: timed out"),
            (Self.budgeted + ["-e", "xpcall(error, function() while true do end end)"], "instruction budget of 10000000 instructions exhausted"),
            (["--timeout", "1", "-e", "xpcall(error, function() while true do end end)"], "timed out"),
            (Self.sandboxed + [tostring], "__tostring failed"),
            ([tostring], "__tostring failed"),
        ]
        for (arguments, message) in cases {
            // The limit ends the line; the guard only ends a hang (a limit that did not hold).
            let outcome = try Programs.run(arguments, input: "", within: 60)
            #expect(outcome.status == 1 && outcome.err.contains(message), "\(arguments): \(outcome.status) \(outcome.err)")
        }
        _ = try folder.write("home.lua", "local flow = require 'coordinator'\nflow.screen 'Home' {}\nlocal Main = flow.coordinator 'Main'\nfunction Main:start() self.router:push('Home') end\nflow.app { authorization = Main }\n")
        let matchTest = try folder.write("match_test.lua", "app 'home.lua'\ntest('matches', function() string.match(('a'):rep(100000), '.-.-.-.-b') end)\n")
        let tested = try Programs.run(["test", "--timeout", "2", matchTest], input: "", within: 60)
        #expect(tested.status == 1 && tested.err.contains("match_test.lua:2: matches: timed out"), "\(tested.status) \(tested.out)\(tested.err)")
        // A command the line runs, and a finalizer that would loop when the runtime closes, end within the limit too.
        let commandTest = try folder.write("command_test.lua", """
            app 'home.lua'
            test('sleeps', function() os.execute('sleep 30') end)
            test('leaves a finalizer', function() setmetatable({}, { __gc = function() while true do end end }) end)
            """)
        let commands = try Programs.run(["test", "--timeout", "2", commandTest], input: "", within: 60)
        #expect(commands.status == 1 && commands.out == "0 passed, 2 failed\n", "\(commands.status) \(commands.out)\(commands.err)")
        #expect(commands.err.contains("sleeps: timed out") && commands.err.contains("__gc metamethods are not run here"), "\(commands.err)")
        let nan = try Programs.run(["--timeout", "nan", "-e", "print(1)"], input: "")
        #expect(nan.status == 1 && nan.err.contains("--timeout takes a number of seconds"), "\(nan.err)")
    }

    /// The first screen's rendering is the app's code too: `--timeout` ends one that never returns (it once
    /// ran forever, with only `--instruction-limit` to stop it), in run mode and in the preview.
    @Test func theFirstRenderingIsBoundedByTheTimeout() throws {
        let folder = try TemporaryDirectory()
        let app = try folder.write("loopy.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { render = function() while true do end end }
            local Main = flow.coordinator "Main"
            function Main:start() self:push("Home") end
            flow.app { authorization = Main }
            """)
        let walked = try Programs.run(["--sandbox", "--timeout", "1", app], input: "", within: 60)
        #expect(walked.out.contains("(rendering Home failed: ") && walked.out.contains("loopy.lua:2: timed out)"), "\(walked.out)\(walked.err)")
        let server = try PreviewBrowserTests.Server(["--sandbox", "--timeout", "1", app])
        let state = try Programs.run("/usr/bin/python3", ["-c", "import sys; sys.path.insert(0, 'Tests/Browser'); from preview_client import Preview; print(Preview(sys.argv[1]).request('state')[1])", server.url],
                                     input: "", within: 90)
        #expect(state.status == 0 && state.out.contains("loopy.lua:2: timed out"), "\(state.out)\(state.err)")
    }

    /// A line that ends by a limit in its error's `__tostring` leaves no deadline behind: the next line runs.
    @Test func theNextLineRunsAfterALimitedOne() throws {
        let outcome = try Programs.run(["--timeout", "1", "scripts/app.lua"],
                                       input: "error(setmetatable({}, { __tostring = function() while true do end end }))\n=20 + 22\n")
        #expect(outcome.out.contains("42"), "\(outcome.out)\(outcome.err)")
    }

    /// `coordrun test`, `explore` and `routes` take the sandbox and the limits, on every runtime they make.
    @Test func theSubcommandsRunUnderTheSandboxAndTheLimits() throws {
        let folder = try TemporaryDirectory()
        let app = try folder.write("files.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "save", "spin" } }
            local Main = flow.coordinator "Main"
            function Main:start()
              local home = self.router:push("Home")
              home.onSave = function() local f = io.open("/tmp/coordrun-limits-test", "w") f:close() end
              home.onSpin = function() local n = 0 for i = 1, 10000000 do n = n + i end end
            end
            flow.app { authorization = Main }
            flow.route("files://save", { { on = "Home", tap = "save" } })
            """)
        _ = try folder.write("files_test.lua", """
            app "files.lua"
            test("saves", function() tap("save") end)
            test("spins", function() tap("spin") end)
            """)
        let plain = try Programs.run(["test", folder.path + "/files_test.lua"], input: "")
        #expect(plain.status == 0 && plain.out == "2 passed, 0 failed\n", "\(plain.out)\(plain.err)")
        let limited = try Programs.run(["test", "--sandbox", "--instruction-limit", "100000", folder.path + "/files_test.lua"], input: "")
        #expect(limited.status == 1 && limited.out == "0 passed, 2 failed\n", "\(limited.out)\(limited.err)")
        #expect(limited.err.contains("global 'io'") && limited.err.contains("instruction budget of 100000 instructions exhausted"), "\(limited.err)")
        let explored = try Programs.run(["explore", app, "--sandbox", "--instruction-limit", "100000", "--tests", folder.path + "/x_test.lua"], input: "")
        #expect(explored.status == 1 && explored.out.contains("errors: 2"), "\(explored.out)\(explored.err)")
        #expect(!explored.out.contains("explorer faults"), "\(explored.out)") // the tests reproduce under the same limits
        let routes = try Programs.run(["routes", app, "--sandbox"], input: "")
        #expect(routes.status == 1 && routes.err.contains("global 'io'"), "\(routes.out)\(routes.err)")
        #expect(try Programs.run(["test", "--memory-limit", "0", folder.path], input: "").status == 2)
    }
}
