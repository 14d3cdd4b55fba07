import Foundation
import Testing
import TestSupport

/// `coordrun test`: the project's own flow tests pass, a changed app makes them fail at the test's line,
/// driving is strict, and the runner's options and reports work.
@Suite struct FlowTestCommandTests {
    @Test func theProjectsFlowTestsPass() throws {
        let outcome = try Programs.run(["test", "scripts", "examples"], input: "")
        #expect(outcome.status == 0, "\(outcome.err)")
        #expect(outcome.out.hasSuffix(" passed, 0 failed\n"), "\(outcome.out)")
        #expect(outcome.err.isEmpty)
    }

    /// The source app and its tests in a folder of their own, `edit` applied to the app.
    func appFolder(_ edit: (String) -> String = { $0 }) throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory()
        let app = try #require(readFile(repositoryRoot + "/scripts/app.lua"))
        _ = try folder.write("app.lua", edit(app))
        _ = try folder.write("cities.lua", try #require(readFile(repositoryRoot + "/scripts/cities.lua")))
        _ = try folder.write("app_test.lua", try #require(readFile(repositoryRoot + "/scripts/app_test.lua")))
        return folder
    }

    /// `app(script, options)` in a test file takes `state`, `sizeClass`, `idiom` and `storage`: a misspelt option fails the
    /// file at its line instead of starting somewhere the test did not mean.
    @Test func aMisspeltAppOptionFailsTheTestFile() throws {
        let folder = try appFolder { $0 }
        _ = try folder.write("app_test.lua", "app(\"app.lua\", { stat = \"main\" })\ntest(\"x\", function() end)\n")
        let outcome = try Programs.run(["test", folder.path], input: "")
        #expect(outcome.status == 1, "\(outcome.out)\(outcome.err)")
        #expect((outcome.out + outcome.err).contains("app_test.lua:1: app's options have no 'stat' (they take: state, sizeClass, idiom, storage)"), "\(outcome.out)\(outcome.err)")
    }

    @Test func aChangedPasswordCheckFailsTheTestsAtTheirLines() throws {
        let folder = try appFolder { $0.replacingOccurrences(of: "password ~= \"secret\"", with: "password ~= \"secret2\"") }
        let outcome = try Programs.run(["test", folder.path], input: "")
        #expect(outcome.status == 1)
        #expect(outcome.out.hasSuffix(" failed\n") && !outcome.out.hasSuffix(" 0 failed\n"), "\(outcome.out)")
        // The failing step of the test file, and what the app showed instead.
        #expect(outcome.err.contains("app_test.lua:30: a federal city is chosen on the regions screen: screen Alert has no output 'selectCity'"), "\(outcome.err)")
    }

    @Test func aHandlerThatPushesTheWrongScreenFailsWithExpectedAndActual() throws {
        let folder = try appFolder {
            $0.replacingOccurrences(of: "local list = self:push(\"Cities\"", with: "local list = self:push(\"Regions\", { federal = cities.federal, regions = cities.regions }) or self:push(\"Cities\"")
        }
        let outcome = try Programs.run(["test", folder.path, "--filter", "third screen"], input: "")
        #expect(outcome.status == 1)
        #expect(outcome.err.contains(#"app_test.lua:41: a city of a region is chosen on a third screen, and the profile shows it: events: expected { "Regions#", "push Cities" }"#), "\(outcome.err)")
        #expect(outcome.out == "0 passed, 1 failed\n")
    }

    @Test func changedCityDataFailsTheTestThatReadsIt() throws {
        let folder = try appFolder()
        _ = try folder.write("cities.lua", try #require(readFile(repositoryRoot + "/scripts/cities.lua")).replacingOccurrences(of: "\"Kazan\"", with: "\"Qazan\""))
        let outcome = try Programs.run(["test", folder.path], input: "")
        #expect(outcome.status == 1)
        #expect(outcome.err.contains(#"app_test.lua:45: a city of a region is chosen on a third screen, and the profile shows it: the city on the profile: expected "Kazan", got "Qazan""#), "\(outcome.err)")
    }

    @Test func drivingIsStrict() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("app.lua", """
            local flow = require "coordinator"
            flow.screen "A" { outputs = { "go", "idle", "broken" } }
            flow.screen "B" { render = function(s) return s.nothing.field end }
            local App = flow.coordinator "App"
            function App:start()
              local a = self:push("A")
              a.onGo = function() end
              a.onBroken = function() self:push("B") end
            end
            flow.app(App)
            """)
        _ = try folder.write("strict_test.lua", """
            app "app.lua"
            test("a tap nothing hears", function() tap("idle") end)
            test("an output the screen does not have", function() tap("nope") end)
            test("a screen that does not render", function() tap("broken") end)
            test("a handled tap", function() tap("go") expect.screen "A" end)
            test("a test that never ends", function() while true do end end)
            skip("not yet", function() error("never runs") end)
            """)
        let outcome = try Programs.run(["test", "--timeout", "2", folder.path], input: "") // the other tests fit in it on a loaded machine
        #expect(outcome.status == 1)
        #expect(outcome.out == "1 passed, 4 failed, 1 skipped\n")
        #expect(outcome.err.contains("strict_test.lua:6: a test that never ends: "), "\(outcome.err)")
        #expect(outcome.err.contains("timed out"))
        #expect(outcome.err.contains("strict_test.lua:2: a tap nothing hears: nothing handles idle on A#"), "\(outcome.err)")
        #expect(outcome.err.contains("strict_test.lua:3: an output the screen does not have: screen A has no output 'nope'"))
        #expect(outcome.err.contains("strict_test.lua:4: a screen that does not render: rendering B failed: "))
        // --fail-fast stops at the first failure; --list lists without running.
        let fast = try Programs.run(["test", "--fail-fast", folder.path], input: "")
        #expect(fast.out == "0 passed, 1 failed\n")
        let list = try Programs.run(["test", "--list", folder.path], input: "")
        #expect(list.out.split(separator: "\n").count == 6)
        #expect(list.out.hasSuffix("strict_test.lua:7: not yet (skipped)\n"))
    }

    @Test func theOracleCatchesAFlowKeptAliveByAGlobal() throws {
        let folder = try appFolder { $0.replacingOccurrences(of: "function CityPicker:start()\n", with: "function CityPicker:start()\n  lastPicker = self\n") }
        let outcome = try Programs.run(["test", folder.path, "--filter", "federal city"], input: "")
        #expect(outcome.status == 1)
        #expect(outcome.err.contains(#"a federal city is chosen on the regions screen: lifecycle: coordinator CityPicker#"#), "\(outcome.err)")
        #expect(outcome.err.contains(#"finished at tap("citySelected", {name = "#) && outcome.err.contains("app_test.lua:32 but is still alive"), "\(outcome.err)")
        // With --strict-lifecycle, the step that left it fails.
        let strict = try Programs.run(["test", "--strict-lifecycle", folder.path, "--filter", "federal city"], input: "")
        #expect(strict.err.contains("app_test.lua:32: a federal city is chosen on the regions screen: "), "\(strict.err)")
    }

    @Test func theOracleCatchesAScreenThatLeftAndAFlowLeftBehind() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("app.lua", """
            local flow = require "coordinator"
            flow.screen "A" { outputs = { "open", "orphan" } }
            flow.screen "B" { outputs = { "close" } }
            local Idle = flow.coordinator "Idle"
            function Idle:start() end
            local Service = flow.coordinator "Service"
            Service.ui = false
            function Service:start() end
            local App = flow.coordinator "App"
            function App:start()
              self:run(Service)
              local a = self:push("A")
              a.onOpen = function() local b = self:push("B") kept = b b.onClose = function() self:pop() end end
              a.onOrphan = function() self:run(Idle) end
            end
            flow.app(App)
            """)
        _ = try folder.write("oracle_test.lua", """
            app "app.lua"
            test("a popped screen kept by a global", function() tap("open") tap("close") end)
            test("a flow that shows nothing", function() tap("orphan") end)
            test("a service with no UI, and a screen that is shown", function() tap("open") end)
            """)
        let outcome = try Programs.run(["test", folder.path], input: "")
        #expect(outcome.out == "1 passed, 2 failed\n")
        #expect(outcome.err.contains(#"oracle_test.lua:2: a popped screen kept by a global: lifecycle: screen B#"#), "\(outcome.err)")
        #expect(outcome.err.contains(#"left at tap("close") at "#))
        #expect(outcome.err.contains("oracle_test.lua:3: a flow that shows nothing: lifecycle: coordinator Idle#"))
        #expect(outcome.err.contains("runs but shows no screen"))
    }

    @Test func junitReportsEveryTest() throws {
        let folder = try appFolder { $0.replacingOccurrences(of: "password ~= \"secret\"", with: "password ~= \"secret2\"") }
        let report = folder.path + "/report.xml"
        _ = try Programs.run(["test", folder.path, "--junit", report], input: "")
        let xml = try #require(readFile(report))
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites tests=\"8\" failures=\""))
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 8)
        #expect(xml.contains("<failure message=\""))
        #expect(xml.contains("name=\"the app starts at the login screen\""))
        #expect(!xml.contains("\u{1B}"))
    }

    @Test func coverageListsWhatTheTestsNeverReached() throws {
        let folder = try TemporaryDirectory()
        let json = folder.path + "/coverage.json"
        let outcome = try Programs.run(["test", "--coverage", "--coverage-json", json, "examples/ab-picker_test.lua"], input: "")
        #expect(outcome.status == 0)
        // The A/B test reaches the list, never the map.
        #expect(outcome.out.contains("coverage of examples/ab-picker.lua:\n  screen types: 2 of 3 reached; never: CityMap\n  outputs: 2 of 3 reached; never: CityMap.citySelected\n  coordinator classes: 1 of 1 reached\n"), "\(outcome.out)")
        let data = try #require(readFile(json))
        let parsed = try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [[String: Any]]
        let screens = parsed?.first?["screens"] as? [String: [String]]
        #expect(screens?["missed"] == ["CityMap"] && screens?["reached"] == ["CityList", "Profile"])
    }

    @Test func aRecordedSessionReplaysAsATest() throws {
        let folder = try appFolder()
        let recorded = folder.path + "/session_test.lua"
        let session = try REPLTranscript(mode: .run, script: folder.path + "/app.lua")
        session.line("login { name = \"Ann\", password = \"secret\" }") // before :record: written first
        session.line(":record " + recorded)
        #expect(session.errors.isEmpty, "\(session.errors)")
        session.line("1")                                           // selectCity
        session.line("3")                                           // a region, by number
        session.line("tap('citySelected', top().cities[2])")        // Lua
        session.line("=top().name")                                  // changes nothing: not a step
        session.line(":record stop")
        let text = try #require(readFile(recorded))
        #expect(text.contains("app \"app.lua\"\n"))
        // A step's payload is written as the data it was (here typed as an expression); its secret (the
        // password) never: the test reads it from the environment where it runs.
        #expect(text.contains(#"  tap("login", {name = "Ann", password = (os.getenv("COORDRUN_SECRET_password") or error("set COORDRUN_SECRET_password to the secret 'password' this test types"))})"#
                              + "\n  expect.stack { \"UserEdit\" }\n"), "\(text)")
        #expect(!text.contains("\"secret\""), "\(text)")
        #expect(text.contains("  tap(\"regionSelected\", {cities = "))
        #expect(text.hasSuffix("  expect.stack { \"UserEdit\" }\nend)\n"))
        let unset = try Programs.run(Programs.coordrun, ["test", recorded], input: "", environment: ["COORDRUN_SECRET_password": nil])
        #expect(unset.status == 1 && unset.err.contains("set COORDRUN_SECRET_password to the secret 'password' this test types"), "\(unset.err)")
        let replay = try Programs.run(Programs.coordrun, ["test", recorded], input: "", environment: ["COORDRUN_SECRET_password": "secret"])
        #expect(replay.out == "1 passed, 0 failed\n", "\(replay.err)")
        // After a change that alters the flow, the replay fails at the step, saying what differs.
        let app = try #require(readFile(folder.path + "/app.lua"))
        _ = try folder.write("app.lua", app.replacingOccurrences(of: "list.onCitySelected = function(city) self:finish(city) end",
                                                                    with: "list.onCitySelected = function(city) end"))
        let changed = try Programs.run(Programs.coordrun, ["test", recorded], input: "", environment: ["COORDRUN_SECRET_password": "secret"])
        #expect(changed.out == "0 passed, 1 failed\n")
        #expect(changed.err.contains("session_test.lua:") && changed.err.contains(#"stack: expected { "UserEdit" }, got { "UserEdit", "Regions", "Cities" }"#), "\(changed.err)")
    }

    /// `coordrun test` at the repository's root, as a user (or the workflow `coordrun init` writes) runs it:
    /// every test file it finds passes (fixtures that fail by design are not named `*_test.lua`).
    @Test func theRepositorysOwnTestsPassAtItsRoot() throws {
        let outcome = try Programs.run(["test"], input: "")
        #expect(outcome.status == 0 && outcome.out.hasSuffix(" passed, 0 failed\n"), "\(outcome.out)\(outcome.err)")
    }

    @Test func aFileThatDeclaresOtherTestsEachTimeFailsClearly() throws {
        let folder = try appFolder()
        _ = try folder.write("random_test.lua", """
            app "app.lua"
            runs = (runs or 0) + 1
            local n = os.time() % 1000 + math.random(1000) * 1000 + (os.clock() * 1e6 // 1)
            test("a test named " .. n, function() touched = true end)
            test("another test named " .. n, function() end)
            """)
        // The first test runs where the tests were listed and leaves a trace (a global); the second loads the
        // file again, and finds others.
        let outcome = try Programs.run(["test", folder.path + "/random_test.lua"], input: "")
        #expect(outcome.status == 1)
        #expect(outcome.err.contains("declared other tests when loaded again"), "\(outcome.err)")
    }

    @Test func aFileThatCannotLoadIsAFailure() throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("broken_test.lua", "app \"nosuch.lua\"\n")
        let outcome = try Programs.run(["test", folder.path], input: "")
        #expect(outcome.status == 1)
        #expect(outcome.out == "0 passed, 1 failed\n")
        #expect(outcome.err.contains("broken_test.lua: cannot run its tests: "))
    }

    /// `os.exit` in a test, or at a test file's top level, is that test's failure (or the file's): the run
    /// goes on and its summary and status tell CI.
    @Test func osExitInATestIsAFailureNotASilentPass() throws {
        let folder = try appFolder()
        _ = try folder.write("exit_test.lua", """
            app "app.lua"
            test("fails", function() expect.screen("Nowhere") end)
            test("exits", function() os.exit(0) end)
            test("passes", function() end)
            """)
        _ = try folder.write("top_test.lua", """
            app "app.lua"
            os.exit(0)
            """)
        let outcome = try Programs.run(["test", folder.path + "/exit_test.lua", folder.path + "/top_test.lua"], input: "")
        #expect(outcome.status == 1 && outcome.out == "1 passed, 3 failed\n", "\(outcome.out)\(outcome.err)")
        #expect(outcome.err.contains("exit_test.lua:3: exits: os.exit is refused here"), "\(outcome.err)")
        #expect(outcome.err.contains("top_test.lua: cannot run its tests:") && outcome.err.contains("os.exit is refused here"))
        // A report that cannot be written fails the run, and a limit must be a number of seconds.
        let full = try Programs.run(["test", folder.path + "/exit_test.lua", "--junit", "/dev/full"], input: "")
        #expect(full.status == 2 && full.err.contains("--junit: cannot write /dev/full"), "\(full.err)")
        #expect(try Programs.run(["test", "--timeout", "nan", folder.path], input: "").status == 2)
        // A recording is never written over what is not a file the session wrote: a device is left a device.
        let recorded = try Programs.run(["scripts/app.lua"], input: ":record /dev/full\n")
        #expect(recorded.err.contains("cannot write /dev/full: it is not a regular file"), "\(recorded.out)\(recorded.err)")
        #expect(!recorded.out.contains("recording to"))
        var device = stat()
        #expect(stat("/dev/full", &device) == 0 && (device.st_mode & S_IFMT) == S_IFCHR)
    }

    /// A test file whose top level never ends is stopped by `--timeout`: it does not load, and the run ends.
    @Test func aTestFileThatLoopsAtItsTopLevelTimesOut() throws {
        let folder = try appFolder()
        _ = try folder.write("loop_test.lua", """
            app "app.lua"
            while true do end
            """)
        let outcome = try Programs.run(["test", "--timeout", "1", folder.path + "/loop_test.lua"], input: "")
        #expect(outcome.status == 1 && outcome.out == "0 passed, 1 failed\n", "\(outcome.out)")
        #expect(outcome.err.contains("loop_test.lua: cannot run its tests:") && outcome.err.contains("timed out"), "\(outcome.err)")
    }
}
