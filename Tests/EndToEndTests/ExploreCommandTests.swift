import Foundation
import Testing
import TestSupport
import CoordinatorTools

/// `coordrun explore`: the report, the JSON, the graph coloured by coverage, worker processes.
@Suite struct ExploreCommandTests {
    @Test func exploreOnTheCommandLine() throws {
        let folder = try TemporaryDirectory()
        let outcome = try Programs.run(["explore", "scripts/app.lua", "--json", folder.path + "/r.json", "--graph", folder.path + "/g.mmd"], input: "")
        #expect(outcome.status == 0, "\(outcome.err)")
        #expect(outcome.out.hasPrefix("explored scripts/app.lua: 52 states, 193 transitions"))
        #expect(outcome.out.contains("graph: \(folder.path)/g.mmd ("))
        let report = try FlowValue(json: String(contentsOfFile: folder.path + "/r.json", encoding: .utf8))
        #expect(report["format"] == 1 && report["states"] == 52 && report["fixedPoint"] == true && report["complete"] == true && report["errors"] == [])
        #expect(report["reach"] == "every reachable state" && report["explorerFaults"] == [])
        // The flow tests' coverage colours the graph: what they reached, and what they did not.
        let coverage = folder.path + "/coverage.json"
        _ = try Programs.run(["test", "--coverage-json", coverage, "examples/ab-picker_test.lua"], input: "")
        let coloured = try Programs.run(["explore", "examples/ab-picker.lua", "--graph", folder.path + "/g.dot", "--coverage", coverage], input: "")
        #expect(coloured.status == 0, "\(coloured.err)")
        let dot = try String(contentsOfFile: folder.path + "/g.dot", encoding: .utf8)
        #expect(dot.contains("fillcolor=\"#c8f7c5\""), "\(dot)") // reached by the tests
        // Worker processes share each level: the same report as one process.
        let shared = try Programs.run(["explore", "examples/multi-select.lua", "--depth", "60", "--workers", "2"], input: "")
        let alone = try Programs.run(["explore", "examples/multi-select.lua", "--depth", "60"], input: "")
        #expect(shared.status == 0 && alone.status == 0, "\(shared.err)")
        #expect(shared.out.split(separator: "\n").first == alone.out.split(separator: "\n").first)
        #expect(shared.out.hasPrefix("explored examples/multi-select.lua: 221 states, 788 transitions"), "\(shared.out)")
        let bad = try Programs.run(["explore", "scripts/app.lua", "--graph", folder.path + "/g.txt"], input: "")
        #expect(bad.status == 2 && bad.err.contains("must end in .mmd, .dot, .json, .svg or .png"))
    }

    /// A property broken is a finding of the command: exit 1, in the JSON's `properties` and
    /// `invariantViolations`, and in SARIF at the line that declares the property; with two workers, the
    /// same report as one process.
    /// `--idiom both`: the phone and the pad searched in one report (with two worker processes too), the
    /// fault only a pad has found with its device and reproduced by a test that runs there; a command that
    /// runs an app takes one device.
    @Test func bothDevicesInOneReport() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("app.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "share", "broken" } }
            flow.screen "Share" { outputs = { "done" } }
            local Home = flow.coordinator "Home"
            function Home:start()
              local home = self:push("Home")
              home.onShare = function() self:present("Share", nil, { presentation = "popover" }).onDone = function() self:dismiss() end end
              home.onBroken = function() if flow.idiom() == "pad" then error("only on a pad") end end
            end
            flow.app(Home)
            """)
        for workers in ["1", "2"] {
            let outcome = try Programs.run(["explore", "--idiom", "both", "--workers", workers, script, "--tests", folder.path + "/found_test.lua",
                                            "--json", folder.path + "/r.json", "--verify"], input: "")
            #expect(outcome.status == 1, "\(outcome.out)\(outcome.err)")
            #expect(outcome.out.contains("on phone and pad: 4 states, 7 transitions") && outcome.out.contains("after: (pad) tap(\"broken\")"), "\(outcome.out)")
            #expect(outcome.out.contains("verified: "), "\(outcome.out)")
            let json = try FlowValue(json: String(contentsOfFile: folder.path + "/r.json", encoding: .utf8))
            #expect(json["idioms"] == ["phone", "pad"] && json["errors"]?.listValue?.first?["idiom"] == "pad")
            let tests = try Programs.run(["test", folder.path + "/found_test.lua"], input: "")
            #expect(tests.out.hasPrefix("0 passed, 1 failed"), "the finding's test fails as the search did, on the pad: \(tests.out)\(tests.err)")
        }
        for command in [["--idiom", "both", script], ["serve", "--idiom", "both", script]] {
            let refused = try Programs.run(command, input: "")
            #expect(refused.status != 0 && refused.err.contains("--idiom both is for coordrun explore"), "\(refused.err)")
        }
    }

    @Test func aBrokenPropertyFailsTheCommandInEveryReport() throws {
        let folder = try TemporaryDirectory()
        let shop = try String(contentsOfFile: repositoryRoot + "/examples/shop.lua", encoding: .utf8)
        let planted = shop.replacingOccurrences(of: "      table.remove(self.items, i)\n", with: "")
        #expect(planted != shop)
        let script = try folder.write("shop.lua", planted)
        let (json, sarif) = (folder.path + "/r.json", folder.path + "/r.sarif")
        let alone = try Programs.run(["explore", script, "--depth", "7", "--json", json, "--sarif", sarif], input: "")
        #expect(alone.status == 1, "\(alone.out)\(alone.err)")
        let report = try FlowValue(json: String(contentsOfFile: json, encoding: .utf8))
        #expect(report["properties"]?[0]?["status"] == "violated" && report["properties"]?[1]?["status"] == "unchecked", "\(String(describing: report["properties"]))")
        #expect(report["properties"]?[0]?["path"]?.listValue?.count == 6)
        #expect(report["invariantViolations"]?.listValue?.count == 1)
        let declared = planted.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("flow.invariant(") }.map { $0 + 1 }
        let results = try FlowValue(json: String(contentsOfFile: sarif, encoding: .utf8))["runs"]?[0]?["results"]?.listValue ?? []
        let invariant = results.first { $0["ruleId"] == "explore/invariant" }
        #expect(invariant?["locations"]?[0]?["physicalLocation"]?["region"]?["startLine"]?.intValue == declared, "\(results)")
        let shared = try Programs.run(["explore", script, "--depth", "7", "--workers", "2"], input: "")
        #expect(shared.status == 1 && Self.findings(shared.out) == Self.findings(alone.out), "\(shared.out)")
    }

    /// The report as a user reads it, without the lines about cost (speed, fresh runtimes) and where the
    /// reproductions went.
    static func findings(_ out: String) -> [Substring] {
        out.split(separator: "\n").filter { !$0.hasSuffix("ms)") && !$0.hasPrefix("fresh runtimes:") && !$0.hasPrefix("reproductions:") }
    }

    /// Worker processes: one killed while it expands a batch loses nothing (the batch goes to another), and
    /// the report is the one process's, word for word and by fingerprint (the same states, numbered the
    /// same, with the same paths, transitions and findings).
    @Test func aKilledWorkersBatchGoesToAnother() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("faults.lua", explorationFaultsApp)
        let alone = try Programs.run(Programs.coordrun, ["explore", script, "--depth", "5", "--json", folder.path + "/alone.json",
                                                         "--tests", folder.path + "/alone_test.lua"], input: "")
        let marker = folder.path + "/killed"
        let shared = try Programs.run(Programs.coordrun, ["explore", script, "--depth", "5", "--workers", "3", "--json", folder.path + "/shared.json",
                                                          "--tests", folder.path + "/shared_test.lua"],
                                      input: "", environment: ["EXPLORE_KILL": "once:" + marker])
        #expect(FileManager.default.fileExists(atPath: marker)) // a worker was killed
        #expect(shared.err.contains("explore: a worker stopped while expanding state"), "\(shared.err)")
        #expect(alone.status == 1 && shared.status == 1, "\(alone.err)\(shared.err)")
        #expect(alone.out.contains("screen About left at tap(\"close\") but is still alive"), "\(alone.out)")
        #expect(Self.findings(alone.out) == Self.findings(shared.out), "\(alone.out)\n---\n\(shared.out)")
        let fingerprints = try ["alone", "shared"].map { try FlowValue(json: String(contentsOfFile: folder.path + "/\($0).json", encoding: .utf8))["fingerprint"] }
        #expect(fingerprints[0] != nil && fingerprints[0] == fingerprints[1])
        // A state that ends every process that expands it ends the exploration, after three tries.
        let doomed = try Programs.run(Programs.coordrun, ["explore", script, "--depth", "5", "--workers", "2"], input: "",
                                      environment: ["EXPLORE_KILL": "always"])
        #expect(doomed.status == 2 && doomed.err.contains("3 workers stopped while expanding state 0 (a state there ends the process that expands it)"),
                "\(doomed.err)")

        // A worker that fails on its own (here: it cannot load the app) ends the exploration with its reason.
        let loadsOnce = try folder.write("once.lua", firstLoadOnlyApp)
        let failing = try Programs.run(Programs.coordrun, ["explore", loadsOnce, "--workers", "2"], input: "",
                                       environment: ["EXPLORE_LOADED": folder.path + "/loaded"])
        #expect(failing.status == 2 && failing.err.contains("only the first process loads this app")
                && failing.err.contains("a worker could not go on (exit status 2; it says why above)"), "\(failing.err)")
    }

    /// A variant chosen by a global is explored with `--set` or `-e`; the findings' tests set it too, so
    /// they reproduce. Exit status: 0 nothing found, 1 a finding, 2 the tool could not explore.
    @Test func variantsExitStatusesAndSARIF() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("ab.lua", """
            local flow = require "coordinator"
            flow.screen "A" { outputs = { "go" } }
            flow.screen "B" { outputs = { "go" } }
            flow.screen "Done" {}
            flow.factory("Start", function() if VARIANT == "b" then return "B" end return "A" end)
            local Main = flow.coordinator "Main"
            function Main:start()
              local s = self.router:push("Start")
              s.onGo = function()
                if VARIANT == "b" then error("variant b breaks") end
                self.router:push("Done")
              end
            end
            flow.app { authorization = Main }
            """)
        let plain = try Programs.run(["explore", script, "--tests", folder.path + "/plain_test.lua"], input: "")
        #expect(plain.status == 0 && plain.out.contains("every reachable state"), "\(plain.out)\(plain.err)")
        #expect(plain.err.isEmpty) // no progress line where standard error is not a terminal
        for variant in [["--set", "VARIANT=b"], ["-e", "VARIANT = 'b'"]] {
            let sarif = folder.path + "/r.sarif", tests = folder.path + "/variant_test.lua"
            let found = try Programs.run(["explore", script, "--tests", tests, "--sarif", sarif] + variant, input: "")
            #expect(found.status == 1 && found.out.contains("variant b breaks") && found.out.hasPrefix("explored \(script): 1 state, 0 transitions (1 step), "), "\(found.out)\(found.err)")
            let rerun = try Programs.run(["test", tests], input: "")
            #expect(rerun.status == 1 && rerun.out.contains("0 passed, 2 failed"), "\(rerun.out)")
            let log = try FlowValue(json: String(contentsOfFile: sarif, encoding: .utf8))
            #expect(log["version"] == "2.1.0")
            let result = log["runs"]?[0]?["results"]?[0]
            #expect(result?["ruleId"] == "explore/error" && result?["level"] == "error")
            let place = result?["locations"]?[0]?["physicalLocation"]
            #expect(place?["artifactLocation"]?["uri"]?.stringValue?.hasSuffix("ab.lua") == true && place?["region"]?["startLine"] == 10, "\(String(describing: place))")
        }
        let missing = try Programs.run(["explore", folder.path + "/missing.lua"], input: "")
        #expect(missing.status == 2 && !missing.err.isEmpty)
        let badSet = try Programs.run(["explore", script, "--set", "1x=2"], input: "")
        #expect(badSet.status == 2 && badSet.err.contains("expected NAME=VALUE"))
        // The same scheme for flow tests and routes.
        #expect(try Programs.run(["test", folder.path + "/missing_test.lua"], input: "").status == 2)
        #expect(try Programs.run(["routes", folder.path + "/missing.lua"], input: "").status == 2)
    }

    /// What the app prints, while it is explored or while its findings' tests run, is not the report's.
    @Test func whatTheAppPrintsStaysOutOfTheReport() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("noisy.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "fail" } }
            local Main = flow.coordinator "Main"
            function Main:start() print("started") self.router:push("Home").onFail = function() print("failing") error("it fails") end end
            flow.app { authorization = Main }
            """)
        let outcome = try Programs.run(["explore", script, "--tests", folder.path + "/noisy_test.lua"], input: "")
        #expect(outcome.status == 1 && outcome.out.hasPrefix("explored ") && !outcome.out.contains("started"), "\(outcome.out)")
    }

    /// CI sees every failure: a picture that cannot be drawn says why and leaves its graph as DOT beside it
    /// (the exploration's status stays), a report that cannot be written fails the command, a limit that is
    /// not a number of seconds is refused, and `os.exit` in a handler is the step's error, not the end of
    /// the exploration.
    @Test func failuresReachTheExitStatus() throws {
        let folder = try TemporaryDirectory()
        // A graph of more than 64 KB for a `dot` that is not there.
        var app = "local flow = require 'coordinator'\nflow.screen 'Home' { outputs = { " + (1...300).map { "'open\($0)'" }.joined(separator: ", ") + " } }\n"
        for i in 1...300 { app += "flow.screen 'AScreenWithAVeryLongNameThatMakesTheGraphLarge\(i)' {}\n" }
        app += "local App = flow.coordinator 'App'\nfunction App:start()\n  local home = self:push('Home')\n"
        for i in 1...300 { app += "  home.onOpen\(i) = function() self:push('AScreenWithAVeryLongNameThatMakesTheGraphLarge\(i)') end\n" }
        app += "end\nflow.app(App)\n"
        let big = try folder.write("big.lua", app)
        let drawn = try Programs.run(Programs.coordrun, ["explore", big, "--depth", "1"], input: "")
        let noDot = try Programs.run(Programs.coordrun, ["explore", big, "--depth", "1", "--graph", folder.path + "/g.svg"], input: "",
                                     environment: ["PATH": folder.path])
        #expect(noDot.status == drawn.status && noDot.err.contains("could not be drawn (dot is not installed"), "\(noDot.status) \(noDot.err)")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/g.dot") && !FileManager.default.fileExists(atPath: folder.path + "/g.svg"))
        // A snapshot file is read only up to its bound: /dev/zero never ends.
        let endless = try Programs.run(["--restore", "/dev/zero", "scripts/app.lua"], input: "")
        #expect(endless.status == 1 && endless.err.contains("cannot read the snapshot /dev/zero (missing, unreadable, or over 64 MiB)"), "\(endless.status) \(endless.err)")
        let full = try Programs.run(["explore", "examples/tabs.lua", "--json", "/dev/full"], input: "")
        #expect(full.status == 2 && full.err.contains("--json: cannot write /dev/full"), "\(full.err)")
        for option in [["--timeout", "nan"], ["--timeout=-1"], ["--time-limit", "inf"]] {
            let refused = try Programs.run(["explore", "examples/tabs.lua"] + option, input: "")
            #expect(refused.status == 2 && refused.err.contains("takes a number of seconds"), "\(option) \(refused.err)")
            #expect(refused.err.contains("See 'coordrun explore --help'"), "\(refused.err)")
        }
        let exiting = try folder.write("exiting.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "quit" } }
            local Main = flow.coordinator "Main"
            function Main:start() self.router:push("Home").onQuit = function() os.exit(0) end end
            flow.app { authorization = Main }
            """)
        let explored = try Programs.run(["explore", exiting, "--tests", folder.path + "/exiting_test.lua"], input: "")
        #expect(explored.status == 1 && explored.out.contains("exiting.lua:4: os.exit is refused here"), "\(explored.out)\(explored.err)")
    }

    /// A property reads what the app keeps (`app.storage`, written by a step, and the rest of its view)
    /// without becoming another state: no explorer fault, the property holds, in branches and by replay.
    @Test func aPropertyThatReadsTheStorageIsNoFault() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("storage.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "seen" } }
            local App = flow.coordinator "App"
            function App:start() self:push("Home").onSeen = function() flow.storage.seen = true; flow.storage.list = { 1, 2 } end end
            flow.invariant("never 42", function(app) return app.storage.seen ~= 42 end)
            flow.invariant("reads the rest", function(app)
              return app.gateway ~= nil and app.now >= 0 and #app.stack() >= 1 and app.top() ~= nil and #app.screens() >= 1
                and #app.flows() >= 1 and app.tree() ~= nil and (app.storage.list == nil or app.storage.list[2] == 2)
            end)
            flow.app(App)
            """)
        for mode in [[], ["--replay"]] {
            let run = try Programs.run(["explore", script] + mode, input: "")
            #expect(run.status == 0, "\(mode): \(run.out)\(run.err)")
            #expect(!run.out.contains("explorer faults") && run.out.contains("invariant 'never 42': holds"), "\(mode): \(run.out)")
        }
    }


    /// A graph Graphviz cannot lay out with its clusters (2.43's "trouble in init_rank", played here by a
    /// `dot` that refuses clusters) is drawn without them; one it cannot draw at all leaves its DOT beside
    /// the picture, and the storyboard's page says so, the status as without a picture. The generated
    /// 50-flow, 200-screen app at depth 12 draws in the Graphviz the README installs.
    @Test func aGraphIsDrawnAtAnySizeOrLeftAsDOT() throws {
        let folder = try TemporaryDirectory()
        let tools = folder.path + "/tools"
        #expect(mkdir(tools, 0o755) == 0)
        let refusesClusters = try folder.write("tools/dot", """
            #!/bin/sh
            for last; do :; done
            if grep -q subgraph "$last"; then echo "Error: trouble in init_rank" >&2; exit 1; fi
            exec /usr/bin/dot "$@"
            """)
        #expect(chmod(refusesClusters, 0o755) == 0)
        let path = tools + ":/usr/bin:/bin"
        let shop = repositoryRoot + "/examples/shop.lua"
        let plain = try Programs.run(Programs.coordrun, ["explore", shop, "--depth", "4"], input: "")
        let flat = try Programs.run(Programs.coordrun, ["explore", shop, "--depth", "4", "--graph", folder.path + "/flat.svg"], input: "", environment: ["PATH": path])
        #expect(flat.status == plain.status && !flat.err.contains("could not be drawn"), "\(flat.err)")
        #expect(((try? String(contentsOfFile: folder.path + "/flat.svg", encoding: .utf8)) ?? "").contains("<svg"))
        let board = try Programs.run(Programs.coordrun, ["storyboard", shop, "--depth", "3", "--output", folder.path + "/board"], input: "", environment: ["PATH": path])
        #expect(board.status == 0 && ((try? String(contentsOfFile: folder.path + "/board/index.html", encoding: .utf8)) ?? "").contains("<svg"), "\(board.err)")
        let refusesAll = try folder.write("tools/dot", "#!/bin/sh\necho 'Error: trouble in init_rank' >&2\nexit 1\n")
        #expect(chmod(refusesAll, 0o755) == 0)
        let failing = try Programs.run(Programs.coordrun, ["explore", shop, "--depth", "4", "--graph", folder.path + "/none.png"], input: "", environment: ["PATH": path])
        #expect(failing.status == plain.status && failing.err.contains("none.png could not be drawn (dot: Error: trouble in init_rank)"), "\(failing.err)")
        #expect(((try? String(contentsOfFile: folder.path + "/none.dot", encoding: .utf8)) ?? "").hasPrefix("digraph flow {"))
        let undrawn = try Programs.run(Programs.coordrun, ["storyboard", shop, "--depth", "3", "--output", folder.path + "/undrawn"], input: "", environment: ["PATH": path])
        let page = (try? String(contentsOfFile: folder.path + "/undrawn/index.html", encoding: .utf8)) ?? ""
        #expect(undrawn.status == 0 && page.contains("The flow could not be drawn") && FileManager.default.fileExists(atPath: folder.path + "/undrawn/flow.dot"),
                "\(undrawn.err)")
        let unwritable = try Programs.run(Programs.coordrun, ["explore", shop, "--depth", "2", "--graph", "/dev/full/g.svg"], input: "")
        #expect(unwritable.status == 2 && unwritable.err.contains("--graph: cannot write /dev/full/g.svg"), "\(unwritable.err)")
        var generated = "local flow = require 'coordinator'\nflow.screen 'Home' { outputs = { " + (1...50).map { "'open\($0)'" }.joined(separator: ", ") + " } }\n"
        for f in 1...50 {
            for d in 1...4 { generated += "flow.screen 'F\(f)S\(d)' { inputs = { 'n' }, outputs = { \(d < 4 ? "'next'" : "'done'") } }\n" }
            generated += """
                local F\(f) = flow.coordinator 'F\(f)'
                function F\(f):start()
                  local function show(d)
                    local s = self:push('F\(f)S' .. d, { n = d })
                    if d < 4 then s.onNext = function() show(d + 1) end else s.onDone = function() self:finish() end end
                  end
                  show(1)
                end

                """
        }
        generated += "local App = flow.coordinator 'App'\nfunction App:start()\n  local home = self:push('Home')\n"
        for f in 1...50 { generated += "  home.onOpen\(f) = function() self:run(F\(f)) end\n" }
        generated += "end\nflow.app(App)\n"
        let large = try folder.write("generated.lua", generated)
        let real = try Programs.run(Programs.coordrun, ["explore", large, "--depth", "12", "--graph", folder.path + "/generated.svg"], input: "")
        #expect(real.status == 0 && real.out.contains("graph: \(folder.path)/generated.svg (201 screens"), "\(real.out)\(real.err)")
    }


    /// A finding whose shortest path crosses a state that breaks an invariant is the app's: its test says
    /// `expect.invariantFails` before each step that breaks it and goes on to the finding, which it
    /// reproduces (no explorer fault, exit 1). In a flow test, an invariant expected to break that holds
    /// fails the test, and a name no invariant has is an error at its line.
    @Test func aFindingPastABrokenInvariantIsTheApps() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("onboard.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "skip", "stay" } }
            flow.screen "Settings" { outputs = { "about" } }
            flow.screen "About" { outputs = { "done" } }
            local App = flow.coordinator "App"
            function App:start()
              self.onboarded = true
              local home = self:push("Home")
              home.onStay = function() end
              home.onSkip = function()
                self.onboarded = false
                self:push("Settings").onAbout = function() self:push("About") end
              end
            end
            flow.invariant("onboarded", function(app) return app.flows("App")[1].onboarded end)
            flow.app(App)
            """)
        let tests = folder.path + "/onboard_test.lua"
        let run = try Programs.run(["explore", script, "--tests", tests], input: "")
        #expect(run.status == 1 && run.out.contains("nothing handles done on About") && !run.out.contains("explorer faults"), "\(run.out)")
        let file = (try? String(contentsOfFile: tests, encoding: .utf8)) ?? ""
        #expect(file.contains("  expect.invariantFails(\"onboarded\")\n  tap(\"skip\")\n  expect.invariantFails(\"onboarded\")\n  tap(\"about\")"), "\(file)")
        let written = try folder.write("written_test.lua", """
            app "onboard.lua"
            test("expects a break that does not come", function()
              expect.invariantFails("onboarded")
              tap("stay")
            end)
            test("names no invariant", function()
              expect.invariantFails("onboard")
            end)
            """)
        let checked = try Programs.run(["test", written], input: "")
        #expect(checked.status == 1, "\(checked.out)\(checked.err)")
        let said = checked.out + checked.err
        #expect(said.contains("written_test.lua:4: expects a break that does not come: invariant 'onboarded' holds after tap(\"stay\") at "), "\(said)")
        #expect(said.contains(", where the test expects it to break (expect.invariantFails)"), "\(said)")
        #expect(said.contains("written_test.lua:7: names no invariant: expect.invariantFails: no invariant is named \"onboard\""), "\(said)")
    }


    /// A flow test's step that sends a signal nothing hears fails as one that taps an output nothing handles
    /// does; an exploration whose script was edited while it ran says so, not that the app depends on the
    /// clock.
    @Test func anUnheardSignalFailsAFlowTestAndAnEditedScriptIsSaid() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("signals.lua", """
            local flow = require "coordinator"
            flow.screen "A" { outputs = { "ping" } }
            local App = flow.coordinator "App"
            function App:start() self:push("A").onPing = function() self:send("ping") end end
            flow.app(App)
            """)
        let tests = try folder.write("signals_test.lua", "app \"signals.lua\"\ntest(\"pings\", function() tap(\"ping\") end)\n")
        let checked = try Programs.run(["test", tests], input: "")
        #expect(checked.status == 1 && (checked.out + checked.err).contains("signals_test.lua:2: pings: nothing hears the signal ping from App#"), "\(checked.out)\(checked.err)")
        let edits = folder.path + "/edits.lua"
        _ = try folder.write("edits.lua", """
            local flow = require "coordinator"
            flow.screen "Home" { outputs = { "edit" } }
            count = count or 0
            local App = flow.coordinator "App"
            function App:start()
              self:push("Home").onEdit = function()
                count = count + 1
                local file = io.open("\(edits)", "a") file:write("\\ncount = 100\\n") file:close()
              end
            end
            flow.app(App)
            """)
        let run = try Programs.run(["explore", edits, "--replay", "--depth", "3"], input: "")
        #expect(run.status == 2 && run.err.contains("edits.lua changed while it was explored (a fresh runtime loaded the new text)"), "\(run.err)")
    }

}
