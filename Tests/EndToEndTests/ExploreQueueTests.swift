import Foundation
import Testing
import TestSupport
import CoordinatorTools

/// `coordrun explore --queue postgres://…`: the search coordinated through a real PostgreSQL server (a
/// throwaway one on 127.0.0.1), its workers claiming batches with leases.
@Suite(.serialized) struct ExploreQueueTests {
    /// The fingerprint of a `--json` report.
    static func fingerprint(_ path: String) throws -> FlowValue? {
        try FlowValue(json: String(contentsOfFile: path, encoding: .utf8))["fingerprint"]
    }

    /// Three workers, one killed while it holds a batch: the batch is claimed again when its lease runs
    /// out, and the report is the one process's, word for word and by fingerprint.
    @Test func aKilledWorkersBatchIsClaimedAgainAndTheReportIsOneProcesss() throws {
        let server = try PostgresServer()
        let folder = try TemporaryDirectory()
        let script = try folder.write("faults.lua", explorationFaultsApp)
        let alone = try Programs.run(Programs.coordrun, ["explore", script, "--depth", "5", "--json", folder.path + "/alone.json",
                                                         "--tests", folder.path + "/alone_test.lua"], input: "")
        let marker = folder.path + "/killed"
        let queued = try Programs.run(Programs.coordrun, ["explore", script, "--depth", "5", "--queue", server.url, "--workers", "3", "--lease", "2",
                                                          "--json", folder.path + "/queued.json", "--tests", folder.path + "/queued_test.lua"],
                                      input: "", environment: ["EXPLORE_KILL": "once:" + marker])
        #expect(FileManager.default.fileExists(atPath: marker)) // a worker was killed holding a batch
        #expect(queued.err.contains("explore: a worker stopped; what it held is claimed again when its lease ends"), "\(queued.err)")
        #expect(!queued.err.contains("NOTICE"), "\(queued.err)")
        #expect(alone.status == 1 && queued.status == 1, "\(alone.err)\(queued.err)")
        #expect(ExploreCommandTests.findings(alone.out) == ExploreCommandTests.findings(queued.out), "\(alone.out)\n---\n\(queued.out)")
        let expected = try Self.fingerprint(folder.path + "/alone.json")
        let found = try Self.fingerprint(folder.path + "/queued.json")
        #expect(expected != nil && expected == found)

        // A state that ends every process that expands it ends the exploration after three claims. (Leases
        // of 2 s: the coordinator says it is alive for three of them, which a loaded machine keeps up with;
        // with 0.3 s, a coordinator starved of the processor for a second looked gone to its workers.)
        let doomed = try Programs.run(Programs.coordrun, ["explore", script, "--depth", "5", "--queue", server.url, "--workers", "2", "--lease", "2"],
                                      input: "", environment: ["EXPLORE_KILL": "always"])
        #expect(doomed.status == 2 && doomed.err.contains("3 workers stopped while expanding state 0 (a state there ends the process that expands it)"),
                "\(doomed.err)")
        // A worker that fails on its own is not started again and again: the exploration ends with its reason.
        let loadsOnce = try folder.write("once.lua", firstLoadOnlyApp)
        let failing = try Programs.run(Programs.coordrun, ["explore", loadsOnce, "--queue", server.url, "--workers", "2", "--lease", "2"],
                                       input: "", environment: ["EXPLORE_LOADED": folder.path + "/loaded"], within: 60)
        #expect(failing.status == 2 && failing.err.contains("only the first process loads this app")
                && failing.err.contains("a worker could not go on (exit status 2; it says why above)"), "\(failing.err)")
    }

    /// The workers started here get the database's password through the environment, never on their
    /// command lines (which anyone on the machine reads with `ps`): each worker's app writes down its own
    /// command line and what PGPASSWORD it has.
    @Test func localWorkersGetThePasswordOutsideTheirCommandLines() throws {
        let server = try PostgresServer()
        let folder = try TemporaryDirectory()
        let seen = folder.path + "/seen"
        let script = try folder.write("spy.lua", """
            local flow = require "coordinator"
            local out = io.open(os.getenv("SPY_FILE"), "a")
            local cmdline = io.open("/proc/self/cmdline", "rb"):read("a"):gsub("%z", " ")
            out:write(cmdline, "| PGPASSWORD=", tostring(os.getenv("PGPASSWORD")), "\\n")
            out:close()
            flow.screen "Home" { outputs = { "stay" } }
            local Main = flow.coordinator "Main"
            function Main:start() self:push("Home").onStay = function() end end
            flow.app { authorization = Main }
            """)
        let url = server.url.replacingOccurrences(of: "postgres://coordrun@", with: "postgres://coordrun:hunter%232@")
        let queued = try Programs.run(Programs.coordrun, ["explore", script, "--depth", "2", "--queue", url, "--workers", "2"],
                                      input: "", environment: ["SPY_FILE": seen])
        #expect(queued.status == 0, "\(queued.err)")
        let lines = try String(contentsOfFile: seen, encoding: .utf8).split(separator: "\n")
        let workers = lines.filter { $0.contains("explore --worker ") }
        #expect(!workers.isEmpty, "\(lines)") // each worker that loaded the app before the run ended
        #expect(workers.allSatisfy { line in
            let commandLine = line.split(separator: "|").first ?? ""
            return !commandLine.contains("hunter") && line.hasSuffix("| PGPASSWORD=hunter#2")
        }, "\(workers)")
    }

    /// An exploration of the faults app through the queue with no worker of its own, while a rogue writer of
    /// the database answers every batch it finds unanswered with `answer` (a line a state), as long as the
    /// exploration runs (bounded: each round is a statement): its status, report and messages.
    static func rogueAnswers(_ answer: String, verifySample: String) throws -> (status: Int32, report: String, messages: String) {
        let server = try PostgresServer()
        let folder = try TemporaryDirectory()
        let script = try folder.write("faults.lua", explorationFaultsApp)
        let coordinator = Process()
        coordinator.executableURL = URL(fileURLWithPath: Programs.coordrun)
        coordinator.arguments = ["explore", script, "--depth", "3", "--queue", server.url, "--workers", "0", "--lease", "2", "--verify-sample", verifySample]
        let (out, err) = (Pipe(), Pipe())
        (coordinator.standardOutput, coordinator.standardError) = (out, err)
        try coordinator.run()
        var rounds = 0
        while coordinator.isRunning && rounds < 3_000 {
            rounds += 1
            _ = try? server.sql("""
                UPDATE coordrun_explore_batches SET worker = 'rogue.example:666',
                  answers = (SELECT string_agg('\(answer.replacingOccurrences(of: "'", with: "''"))', E'\\n') FROM generate_series(1, count))
                WHERE answers IS NULL
                """)
        }
        if coordinator.isRunning { kill(coordinator.processIdentifier, SIGKILL) } // the refusal never came: a failure in the test
        let (outData, errData) = Programs.readToEnd(out.fileHandleForReading.fileDescriptor, err.fileHandleForReading.fileDescriptor)
        let report = String(decoding: outData, as: UTF8.self), messages = String(decoding: errData, as: UTF8.self)
        coordinator.waitUntilExit()
        return (coordinator.terminationStatus, report, messages)
    }

    /// A rogue writer of the database answers every batch with what is not an answer, or claims its states
    /// could not be expanded (as if the app failed there): even without checking a share of the answers
    /// (`--verify-sample 0`), the exploration ends with status 2 naming the worker and what it answered, as
    /// its word, never as the app's fault.
    @Test(arguments: [
        ("{\"failed\":\"faults.lua:3: attempt to call a nil value\"}", "worker rogue.example:666 answered that it could not expand state 0: faults.lua:3: attempt to call a nil value\n"),
        ("not json", "worker rogue.example:666 answered state 0 with what is not an answer ("),
    ])
    func aTamperedAnswerIsTheWorkersNotTheApps(answer: String, message: String) throws {
        let (status, report, messages) = try Self.rogueAnswers(answer, verifySample: "0")
        #expect(status == 2, "\(report)\(messages)")
        #expect(messages.contains(message), "\(messages)")
        #expect(report.isEmpty, "\(report)")
    }

    /// A rogue writer of the database answers every batch as if its states had no action (a crashing step
    /// made harmless, a whole app explored away): with every answer checked (`--verify-sample 1`) the
    /// exploration ends with status 2 naming the worker, and reports nothing of what it was told.
    @Test func aRewrittenAnswerEndsTheExplorationNamingItsWorker() throws {
        let (status, report, messages) = try Self.rogueAnswers(#"{"actions":0,"outcomes":[]}"#, verifySample: "1")
        #expect(status == 2, "\(report)\(messages)")
        #expect(messages.contains("worker rogue.example:666 answered state 0 otherwise than this process expands it"), "\(messages)")
        #expect(!report.contains("every reachable state"), "\(report)")
    }

    /// A worker's own `--sandbox` holds on top of the run's options: the run's `-e` chunk, which writes down
    /// the command line of the process that runs it, runs in the coordinator and fails in the sandboxed
    /// worker (it once ran there unsandboxed).
    @Test func aWorkersSandboxHoldsOnTopOfTheRunsOptions() throws {
        let server = try PostgresServer()
        let folder = try TemporaryDirectory()
        let script = try folder.write("app.lua", try #require(readFile(repositoryRoot + "/scripts/app.lua")))
        _ = try folder.write("cities.lua", try #require(readFile(repositoryRoot + "/scripts/cities.lua")))
        let seen = folder.path + "/seen"
        let chunk = "local f = io.open('\(seen)', 'a') f:write(io.open('/proc/self/cmdline', 'rb'):read('a'):gsub('%z', ' '), '\\n') f:close()"
        let coordinator = Process()
        coordinator.executableURL = URL(fileURLWithPath: Programs.coordrun)
        coordinator.arguments = ["explore", script, "--depth", "2", "--queue", server.url, "--workers", "0", "-e", chunk]
        (coordinator.standardOutput, coordinator.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice)
        try coordinator.run()
        defer { kill(coordinator.processIdentifier, SIGKILL); coordinator.waitUntilExit() }
        let worker = try Programs.run(Programs.coordrun, ["explore", "--worker", server.url, "--sandbox", "--memory-limit", "100000000"], input: "", within: 60)
        #expect(worker.status == 2 && worker.err.contains("(command line):1:"), "\(worker.status) \(worker.err)")
        let lines = (try? String(contentsOfFile: seen, encoding: .utf8))?.split(separator: "\n") ?? []
        #expect(!lines.isEmpty && lines.allSatisfy { !$0.contains("explore --worker ") }, "\(lines)")
    }

    /// Workers started on their own (as on other machines) join the newest exploration; one whose scripts
    /// differ is refused, and the run goes on with the others to the one process's report.
    @Test func workersJoinAndOnesWithOtherScriptsAreRefused() throws {
        let server = try PostgresServer()
        let folder = try TemporaryDirectory()
        let script = try folder.write("faults.lua", explorationFaultsApp)
        let other = try folder.write("other.lua", explorationFaultsApp.replacingOccurrences(of: "\"Down\"", with: "\"Down\", \"Left\""))
        _ = try Programs.run(Programs.coordrun, ["explore", script, "--depth", "4", "--json", folder.path + "/alone.json",
                                                "--tests", folder.path + "/alone_test.lua"], input: "")
        // The exploration, with no worker of its own.
        let coordinator = Process()
        coordinator.executableURL = URL(fileURLWithPath: Programs.coordrun)
        coordinator.arguments = ["explore", script, "--depth", "4", "--queue", server.url, "--workers", "0",
                                 "--json", folder.path + "/queued.json", "--tests", folder.path + "/queued_test.lua"]
        let (out, err) = (Pipe(), Pipe())
        (coordinator.standardOutput, coordinator.standardError) = (out, err)
        try coordinator.run()
        // Workers wait for an exploration to join: this one's scripts are not the exploration's.
        let refused = try Programs.run(Programs.coordrun, ["explore", "--worker", server.url, other], input: "", within: 60)
        #expect(refused.status == 2 && refused.err.contains("this worker's scripts are not the ones exploration"), "\(refused.err)")
        #expect(refused.err.contains("run the worker where the same scripts are checked out"))
        let worker = try Programs.run(Programs.coordrun, ["explore", "--worker", server.url], input: "", within: 60)
        #expect(worker.status == 0, "\(worker.err)")
        #expect(worker.err.contains("explore: working for exploration") && worker.err.contains("ended; this worker expanded"), "\(worker.err)")
        let report = String(decoding: Programs.readToEnd(out.fileHandleForReading.fileDescriptor, err.fileHandleForReading.fileDescriptor).0, as: UTF8.self)
        coordinator.waitUntilExit()
        #expect(coordinator.terminationStatus == 1 && report.contains("lifecycle violations: 2"), "\(report)")
        let expected = try Self.fingerprint(folder.path + "/alone.json")
        let found = try Self.fingerprint(folder.path + "/queued.json")
        #expect(expected != nil && expected == found)
        // The run's rows went with it: a worker for it finds none.
        let late = try Programs.run(Programs.coordrun, ["explore", "--worker", server.url, "--run", "1"], input: "")
        #expect(late.status == 2 && late.err.contains("there is no exploration 1 on the queue (finished, or never started)"), "\(late.err)")
    }

    /// A worker elsewhere needs the scripts only: the snapshot explored from travels in the run (here the
    /// worker runs in another folder, where the snapshot's file is not, and names the script itself).
    @Test func theSnapshotExploredFromTravelsInTheRun() throws {
        let server = try PostgresServer()
        let folder = try TemporaryDirectory()
        let shop = repositoryRoot + "/examples/shop.lua"
        _ = try Programs.run(Programs.coordrun, ["-i", shop], input: """
            tap("addToCart", 1)
            io.open("snapshot.json", "w"):write(snapshot()):close()
            """, folder: folder.path)
        let options = ["explore", shop, "--restore", "snapshot.json", "--depth", "3"]
        let alone = try Programs.run(Programs.coordrun, options + ["--json", "alone.json"], input: "", folder: folder.path)
        #expect(alone.status == 0 && alone.out.contains("41 states"), "\(alone.out)\(alone.err)")
        let coordinator = Process()
        coordinator.executableURL = URL(fileURLWithPath: Programs.coordrun)
        coordinator.arguments = options + ["--queue", server.url, "--workers", "0", "--json", "queued.json"]
        coordinator.currentDirectoryURL = URL(fileURLWithPath: folder.path)
        let (out, err) = (Pipe(), Pipe())
        (coordinator.standardOutput, coordinator.standardError) = (out, err)
        try coordinator.run()
        let elsewhere = try TemporaryDirectory()
        let worker = try Programs.run(Programs.coordrun, ["explore", "--worker", server.url, shop], input: "", folder: elsewhere.path, within: 60)
        #expect(worker.status == 0, "\(worker.err)")
        _ = Programs.readToEnd(out.fileHandleForReading.fileDescriptor, err.fileHandleForReading.fileDescriptor)
        coordinator.waitUntilExit()
        let expected = try Self.fingerprint(folder.path + "/alone.json")
        let found = try Self.fingerprint(folder.path + "/queued.json")
        #expect(coordinator.terminationStatus == 0 && expected != nil && expected == found)
    }

    /// A queue that is not there is a clear error, not a hang.
    @Test func aQueueThatIsNotThereIsAClearError() throws {
        let outcome = try Programs.run(["explore", "scripts/app.lua", "--queue", "postgres://coordrun@127.0.0.1:1/none"], input: "", within: 60)
        #expect(outcome.status == 2 && outcome.err.contains("cannot connect to PostgreSQL"), "\(outcome.err)")
    }
}
