import Foundation
import Testing
import CoordinatorOptions
import TestSupport
import CoordinatorScript

/// `coordrun test`'s runner: failures and errors told apart (one line for a failed expectation), reports
/// CI tools read (JUnit that validates against the schema, JSON), the exit status when no test ran, jobs
/// that give the same report as one, and a watch that runs the tests again when a file is saved.
@Suite struct FlowTestRunnerTests {
    /// A test file over examples/shop.lua: a pass, a failed expectation, a Lua error, a print, a skip; and
    /// a second file that does not load.
    func suite() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory()
        _ = try folder.write("shop_test.lua", """
            app "\(repositoryRoot)/examples/shop.lua"
            test("the tab bar and the cart's badge", function()
              expect.tabs { "Catalog", "Cart", "Profile", selected = "Catalog" }
              expect.badge("Cart", nil)
              tap("open", top().categories[1])
              tap("open", top().products[1])
              tap("add")
              expect.badge("Cart", 1)
            end)
            test("a wrong badge", function()
              expect.badge("Cart", 3)
            end)
            test("a Lua error", function()
              local missing = nil
              print("before the error")
              return missing.field
            end)
            skip("not yet", function() end)
            """)
        _ = try folder.write("broken_test.lua", "app \"\(repositoryRoot)/examples/shop.lua\"\ntest(\"x\", function( end)\n")
        return folder
    }

    @Test func aFailedExpectationIsOneLineAndALuaErrorKeepsItsTraceback() throws {
        let folder = try suite()
        let outcome = try Programs.run(["test", folder.path + "/shop_test.lua"], input: "")
        #expect(outcome.status == 1)
        #expect(outcome.out == "before the error\n1 passed, 2 failed, 1 skipped\n", "\(outcome.out)")
        let lines = outcome.err.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // The expectation: its line, the test, what was expected and what the app shows; no runner frames.
        #expect(lines.first == "\(folder.path)/shop_test.lua:11: a wrong badge: badge of tab \"Cart\": expected 3, got nil", "\(outcome.err)")
        #expect(!outcome.err.contains("expect:"), "\(outcome.err)")
        // The error: its line and its traceback.
        #expect(lines.dropFirst().first == "\(folder.path)/shop_test.lua:16: a Lua error: attempt to index a nil value (local 'missing')", "\(outcome.err)")
        #expect(lines.dropFirst(2).first == "stack traceback:", "\(outcome.err)")
    }

    @Test func tabsAndBadgesAreChecked() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("tabs_test.lua", """
            app "\(repositoryRoot)/examples/shop.lua"
            test("tabs", function()
              expect.fails(function() expect.tabs { "Catalog", "Cart" } end, 'tabs: expected { "Catalog", "Cart" }, got { "Catalog", "Cart", "Profile" }')
              expect.fails(function() expect.tabs { "Catalog", "Cart", "Profile", selected = "Cart" } end, 'selected tab: expected "Cart", got "Catalog"')
              expect.fails(function() expect.badge("Basket", 1) end, 'a tab titled "Basket": expected "Basket", got { "Catalog", "Cart", "Profile" }')
              tab("Cart")
              expect.tabs { "Catalog", "Cart", "Profile", selected = "Cart" }
            end)
            """)
        let outcome = try Programs.run(["test", file], input: "")
        #expect(outcome.status == 0 && outcome.out == "1 passed, 0 failed\n", "\(outcome.out)\(outcome.err)")
    }

    @Test func theJUnitReportValidatesAgainstTheSchemaCIToolsRead() throws {
        let folder = try suite()
        let report = folder.path + "/report.xml"
        let outcome = try Programs.run(["test", folder.path, "--junit", report], input: "")
        #expect(outcome.status == 1)
        let xml = try #require(readFile(report))
        let xmllint = try #require(["/usr/bin/xmllint", "/usr/local/bin/xmllint"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                   "xmllint is missing: scripts/ensure-deps --test installs libxml2-utils")
        let check = try Programs.run(xmllint, ["--noout", "--schema", repositoryRoot + "/Tests/EndToEndTests/Schemas/junit.xsd", report], input: "")
        #expect(check.status == 0, "\(check.err)\n\(xml)")
        // Two suites: the file that did not load is an error; the other has a failure, an error, a skip.
        #expect(xml.contains("<testsuites tests=\"5\" failures=\"1\" errors=\"2\" skipped=\"1\""), "\(xml)")
        #expect(xml.contains("<failure message=\"badge of tab &quot;Cart&quot;: expected 3, got nil\" type=\"expectation\">"), "\(xml)")
        #expect(xml.contains("<error message=\"attempt to index a nil value (local &apos;missing&apos;)\" type=\"error\">"), "\(xml)")
        #expect(xml.contains("<system-out>before the error\n</system-out>"), "\(xml)")
        #expect(xml.contains("name=\"(loading the file)\"") && xml.contains("type=\"load\""), "\(xml)")
    }

    /// Tests declared in a loop share a name as written: every report names them apart (`NAME [2]`, ...),
    /// the first unchanged, a name the file declares itself never taken twice.
    @Test func testsDeclaredInALoopHaveNamesOfTheirOwnInEveryReport() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("loop_test.lua", """
            app "\(repositoryRoot)/examples/shop.lua"
            for i = 1, 3 do
              test("a category opens", function() tap("open", top().categories[1]) end)
            end
            test("a category opens [2]", function() end)
            test("alone", function() end)
            """)
        let expected = ["a category opens", "a category opens [3]", "a category opens [4]", "a category opens [2]", "alone"]
        let list = try Programs.run(["test", "--list", file], input: "")
        #expect(list.out.split(separator: "\n").map { String($0.split(separator: ": ", maxSplits: 1).last ?? "") } == expected, "\(list.out)")
        let json = folder.path + "/report.json", junit = folder.path + "/report.xml"
        let run = try Programs.run(["test", file, "--json", json, "--junit", junit], input: "")
        #expect(run.status == 0, "\(run.err)")
        let text = try #require(readFile(json))
        let tests = try #require(try FlowValue(json: text)["tests"]?.listValue)
        #expect(tests.compactMap { $0["name"]?.stringValue } == expected)
        let xml = try #require(readFile(junit))
        for name in expected { #expect(xml.components(separatedBy: "<testcase name=\"\(name)\"").count == 2, "\(name)") }
        // A name picks out one test.
        let one = try Programs.run(["test", file, "--filter", "a category opens [3]"], input: "")
        #expect(one.out.hasSuffix("1 passed, 0 failed\n"), "\(one.out)")
    }

    @Test func theJSONReportHoldsEveryOutcome() throws {
        let folder = try suite()
        let report = folder.path + "/report.json"
        _ = try Programs.run(["test", folder.path, "--json", report], input: "")
        let data = try #require(readFile(report)).data(using: .utf8) ?? Data()
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let summary = try #require(document["summary"] as? [String: Int])
        #expect(summary == ["passed": 1, "failed": 1, "errors": 2, "skipped": 1]) // failed: expectations only
        #expect(document["format"] as? Int == 1)
        let tests = try #require(document["tests"] as? [[String: Any]])
        #expect(tests.map { $0["outcome"] as? String } == ["passed", "failed", "error", "skipped"])
        #expect(tests[2]["output"] as? String == "before the error\n")
        #expect(tests[1]["location"] as? String == folder.path + "/shop_test.lua:11")
        let loadFailures = try #require(document["loadFailures"] as? [[String: String]])
        #expect(loadFailures.map { $0["file"] } == [folder.path + "/broken_test.lua"])
    }

    @Test func whenNoTestRunsTheExitStatusIsFive() throws {
        let empty = try TemporaryDirectory()
        let none = try Programs.run(["test", empty.path], input: "")
        #expect(none.status == 5 && none.out == "0 passed, 0 failed\n", "\(none.out)")
        #expect(none.err.contains("no test ran: no *_test.lua file under \(empty.path)"), "\(none.err)")
        let filtered = try Programs.run(["test", "scripts", "--filter", "no test is named like this"], input: "")
        #expect(filtered.status == 5, "\(filtered.out)\(filtered.err)")
        #expect(filtered.err.contains("--filter no test is named like this matched no test of 1 file"), "\(filtered.err)")
        // Skipped tests were declared: that is not "no test".
        let skipped = try TemporaryDirectory()
        _ = try skipped.write("s_test.lua", "app \"\(repositoryRoot)/scripts/app.lua\"\nskip(\"later\", function() end)\n")
        #expect(try Programs.run(["test", skipped.path], input: "").status == 0)
    }

    @Test func fourJobsGiveTheSameReportAsOne() throws {
        let folder = try suite()
        let arguments = ["test", "scripts", "examples", folder.path]
        let one = try Programs.run(arguments + ["--jobs", "1", "--json", folder.path + "/one.json"], input: "")
        let four = try Programs.run(arguments + ["--jobs", "4", "--json", folder.path + "/four.json"], input: "")
        #expect(one.status == 1 && four.status == 1)
        #expect(one.out == four.out && one.err == four.err, "\(one.out)\(one.err)\n---\n\(four.out)\(four.err)")
        #expect(one.out.hasSuffix(" passed, 3 failed, 1 skipped\n"), "\(one.out)")
        // The same tests in the same order with the same outcomes (times aside).
        func outcomes(_ path: String) throws -> [String] {
            let data = try #require(readFile(path)).data(using: .utf8) ?? Data()
            let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return (document["tests"] as? [[String: Any]] ?? []).map { "\($0["file"] ?? "") \($0["name"] ?? "") \($0["outcome"] ?? "")" }
        }
        let listed = try outcomes(folder.path + "/one.json")
        let fourListed = try outcomes(folder.path + "/four.json")
        #expect(listed.count > 30 && listed == fourListed)
        #expect(try Programs.run(["test", "--jobs", "0"], input: "").status == 2)
    }

    /// `--shard K/N` (also from the environment a CI matrix or a Kubernetes Indexed Job sets): the shards of
    /// the repository's suite are disjoint and together are the suite.
    @Test func theShardsOfTheSuiteAreTheSuite() throws {
        let folder = try TemporaryDirectory()
        func tests(_ arguments: [String], environment: [String: String?] = [:], report: String = folder.path + "/\(UUID().uuidString).json") throws -> [String] {
            let outcome = try Programs.run(Programs.coordrun, ["test", "scripts", "examples", "--json", report] + arguments, input: "", environment: environment)
            #expect(outcome.status == 0, "\(arguments): \(outcome.err)")
            let data = try #require(readFile(report)).data(using: .utf8) ?? Data()
            let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return (document["tests"] as? [[String: Any]] ?? []).map { "\($0["file"] ?? "") \($0["name"] ?? "")" }
        }
        let whole = try tests([], report: folder.path + "/whole.json")
        let shards = try (1...3).map { try tests(["--shard", "\($0)/3"]) }
        #expect(shards.allSatisfy { !$0.isEmpty })
        #expect(shards.flatMap { $0 }.sorted() == whole.sorted(), "every test in exactly one shard")
        let indexed = try tests([], environment: ["JOB_COMPLETION_INDEX": "1", "COORDRUN_SHARDS": "3"])
        #expect(indexed == shards[1])
        #expect(try tests([], environment: ["COORDRUN_SHARD": "3/3"]) == shards[2])
        let timed = try (1...3).map { try tests(["--shard", "\($0)/3", "--timings", folder.path + "/whole.json"]) }
        #expect(timed.flatMap { $0 }.sorted() == whole.sorted())
    }

    @Test func watchRunsTheTestsAgainWhenAFileIsSaved() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("w_test.lua", "app \"\(repositoryRoot)/scripts/app.lua\"\ntest(\"one\", function() end)\n")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Programs.coordrun)
        process.arguments = ["test", "--watch", folder.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // SIGKILL: a process started from a test inherits the test thread's blocked signals (SIGTERM too).
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) }; process.waitUntilExit() }
        let killer = DispatchWorkItem { [pid = process.processIdentifier] in kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: killer)
        defer { killer.cancel() }
        var text = ""
        /// Reads the output until it contains `part` `times` times (or the program ends).
        func read(until part: String, times: Int) {
            while text.components(separatedBy: part).count - 1 < times {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { return }
                text += String(decoding: data, as: UTF8.self)
            }
        }
        read(until: "saving one runs the tests again", times: 1)
        #expect(text.contains("1 passed, 0 failed\n"), "\(text)")
        try "app \"\(repositoryRoot)/scripts/app.lua\"\ntest(\"one\", function() end)\ntest(\"two\", function() expect.screen(\"Nope\") end)\n"
            .write(toFile: file, atomically: false, encoding: .utf8)
        read(until: "saving one runs the tests again", times: 2)
        #expect(text.contains("1 passed, 1 failed\n"), "\(text)")
        #expect(text.contains("w_test.lua:3: two: visible screen: expected \"Nope\", got \"Login\""), "\(text)")
    }

    /// A save made while the watcher's owner was busy (running the tests, reloading) and the list of files
    /// changed meanwhile is still seen: a file keeps being compared with what it was when first watched.
    @Test func aSaveWhileTheWatchedFilesChangeIsNotLost() throws {
        let folder = try TemporaryDirectory()
        let first = try folder.write("a.lua", "return 1\n")
        let watcher = FileWatcher(paths: [first])
        try "return 22\n".write(toFile: first, atomically: false, encoding: .utf8) // saved while busy
        let second = try folder.write("b.lua", "return 2\n")
        watcher.paths = [first, second]
        #expect(!watcher.changed()) // a first look: the save may still be under way
        #expect(watcher.changed())  // the same at the second look: taken
        #expect(!watcher.changed())
        try "return 333\n".write(toFile: second, atomically: false, encoding: .utf8)
        #expect(!watcher.changed())
        try "return 4444\n".write(toFile: second, atomically: false, encoding: .utf8) // still being written
        #expect(!watcher.changed())
        #expect(watcher.changed())
    }
}
