import Foundation
import Testing
import TestSupport
import CoordinatorTools

/// `--storage FILE` through the real binary: the app's storage kept between processes, a snapshot taken
/// after a sign-in restored in a new process, exploration reading the file and never writing it.
@Suite struct StorageCommandTests {
    @Test func theStorageIsKeptBetweenProcessesAndASnapshotRestoresInANewOne() throws {
        let folder = try TemporaryDirectory()
        let storage = folder.path + "/bank.json", snapshot = folder.path + "/signed-in.json"
        let first = try Programs.run(["--storage", storage, "-i", "examples/bank.lua"], input: """
            tap("next")
            tap("login", { name = "Ann", password = "secret" })
            answer("signIn", "ok")
            local f = io.open(\(luaQuote(snapshot)), "w") f:write(snapshot()) f:close()
            """)
        #expect(first.status == 0, "\(first.err)")
        let kept = try FlowValue(json: String(contentsOfFile: storage, encoding: .utf8))
        #expect(kept == ["onboarded": true, "token": "t-7f3a", "user": "Ann"])
        #expect(try !String(contentsOfFile: snapshot, encoding: .utf8).contains("t-7f3a")) // the secret is not in it
        // A new process starts signed in, and the snapshot (whose steps began signed out, before the
        // onboarding) restores in it.
        let second = try Programs.run(["--storage", storage, "-i", "examples/bank.lua"], input: """
            =stack()
            restore(io.open(\(luaQuote(snapshot))):read("a"), { password = "secret" })
            =stack()
            """)
        #expect(second.status == 0, "\(second.err)")
        #expect(second.out.contains("{ \"Accounts\" }\n> restore("), "\(second.out)")
        #expect(second.err.isEmpty, "\(second.err)")
        // Run mode: signed out there, the file says so after the step.
        let third = try Programs.run(["--storage", storage, "examples/bank.lua"], input: "signOut\n")
        #expect(third.status == 0 && third.out.contains("== Sign in (Login) =="), "\(third.out)\(third.err)")
        #expect(try FlowValue(json: String(contentsOfFile: storage, encoding: .utf8)) == ["onboarded": true])
    }

    /// A live token that arrives in the sign-in's answer (examples/bank.lua declares it secret) is kept in
    /// the storage file, where the app keeps it, and nowhere else: not in the snapshot, not in `:history`,
    /// not in the test `:record` writes, which reads it from COORDRUN_SECRET_token; the snapshot restores
    /// in a new process given the token.
    @Test func aTokenThatArrivesInAnAnswerIsWrittenNowhereButTheStorage() throws {
        let folder = try TemporaryDirectory()
        let storage = folder.path + "/bank.json", snapshot = folder.path + "/signed-in.json", test = folder.path + "/signin_test.lua"
        let token = "live-7f3a9c2e-token"
        let first = try Programs.run(["--storage", storage, "-i", "examples/bank.lua"], input: """
            :record \(test)
            tap("next")
            tap("login", { name = "Ann", password = "secret" })
            answer("signIn", "ok", { name = "Ann", token = "\(token)" })
            :record stop
            :history
            local f = io.open(\(luaQuote(snapshot)), "w") f:write(snapshot()) f:close()
            """)
        #expect(first.status == 0, "\(first.err)")
        #expect(try FlowValue(json: String(contentsOfFile: storage, encoding: .utf8))["token"] == .string(token))
        // Only the echo of the line as it was typed holds it.
        #expect(first.out.components(separatedBy: token).count == 2 && !first.err.contains(token), "\(first.out)\(first.err)")
        #expect(first.out.contains(#"answer("signIn", "ok", {name = "Ann", token = "•••"})"#), "\(first.out)")
        let saved = try String(contentsOfFile: snapshot, encoding: .utf8)
        #expect(!saved.contains(token) && saved.contains(#""$secret" : "token""#) || saved.contains(#""$secret": "token""#), "\(saved)")
        let recorded = try String(contentsOfFile: test, encoding: .utf8)
        #expect(!recorded.contains(token) && recorded.contains("COORDRUN_SECRET_token"), "\(recorded)")
        // The recorded test passes given the token (and the password) where it runs, and names what it lacks.
        let tested = try Programs.run(Programs.coordrun, ["test", test], input: "",
                                      environment: ["COORDRUN_SECRET_token": token, "COORDRUN_SECRET_password": "secret"])
        #expect(tested.status == 0, "\(tested.out)\(tested.err)")
        let lacking = try Programs.run(Programs.coordrun, ["test", test], input: "", environment: ["COORDRUN_SECRET_password": "secret"])
        #expect(lacking.status == 1 && (lacking.out + lacking.err).contains("set COORDRUN_SECRET_token"), "\(lacking.out)\(lacking.err)")
        // A new process restores the snapshot given both secrets by name; without the token it says so.
        let restored = try Programs.run(["-i", "examples/bank.lua"], input: """
            restore(io.open(\(luaQuote(snapshot))):read("a"), { password = "secret", token = "\(token)" })
            =stack()
            =select(2, pcall(restore, io.open(\(luaQuote(snapshot))):read("a"), { password = "secret" }))
            """)
        #expect(restored.status == 0, "\(restored.err)")
        #expect(restored.out.contains("{ \"Accounts\" }"), "\(restored.out)")
        #expect(restored.out.contains("the secret 'token' of request signIn's answer ok"), "\(restored.out)")
    }

    /// An app's storage has one writer: while a session holds `--storage F`, a second coordrun (run mode,
    /// the REPL, the preview) is refused at start with a message naming F and the process holding it, and
    /// the file keeps every update the first made; `explore` only reads it and is never refused; once the
    /// first ends, F is free again.
    @Test func aSecondProcessWritingTheSameStorageIsRefusedAtStart() throws {
        let folder = try TemporaryDirectory()
        let storage = folder.path + "/bank.json"
        let first = Process()
        first.executableURL = URL(fileURLWithPath: Programs.coordrun)
        first.arguments = ["--storage", storage, "-i", "examples/bank.lua"]
        first.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
        let (input, output) = (Pipe(), Pipe())
        (first.standardInput, first.standardOutput, first.standardError) = (input, output, output)
        try first.run()
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) }; first.waitUntilExit() }
        // A safety net, never the thing tested: a session that never answers is ended.
        let net = DispatchWorkItem { [pid = first.processIdentifier] in kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: net)
        defer { net.cancel() }
        // 300 updates, then a line whose answer says they are done (the session holds the file meanwhile).
        let update = "local storage = require('coordinator').storage for i = 1, 300 do storage.count = i end print('counted ' .. storage.count)\n"
        input.fileHandleForWriting.write(Data(update.utf8))
        var seen = ""
        while !seen.contains("counted 300") && !seen.contains("traceback") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
        }
        #expect(seen.contains("counted 300"), "\(seen)")
        for arguments in [["--storage", storage, "examples/bank.lua"], ["--storage", storage, "-i", "examples/bank.lua"]] {
            let second = try Programs.run(arguments, input: "require('coordinator').storage.count = 0\n")
            #expect(second.status == 1, "\(arguments): \(second.out)\(second.err)")
            #expect(second.err.contains("the storage \(storage) is in use by process \(first.processIdentifier) ("), "\(second.err)")
            #expect(second.err.contains("coordrun --storage \(storage) -i examples/bank.lua"), "\(second.err)")
        }
        let served = try Programs.run(["serve", "--port", "0", "--storage", storage, "examples/bank.lua"], input: "", within: 60)
        #expect(served.status == 1 && served.err.contains("is in use by process \(first.processIdentifier)"), "\(served.out)\(served.err)")
        let explored = try Programs.run(["explore", "examples/bank.lua", "--storage", storage, "--depth", "2"], input: "")
        #expect(explored.status == 0, "\(explored.out)\(explored.err)")
        #expect(try FlowValue(json: String(contentsOfFile: storage, encoding: .utf8))["count"] == 300)
        try input.fileHandleForWriting.close()
        first.waitUntilExit()
        let after = try Programs.run(["--storage", storage, "-i", "examples/bank.lua"],
                                     input: "local storage = require('coordinator').storage storage.count = storage.count + 1\n")
        #expect(after.status == 0, "\(after.err)")
        #expect(try FlowValue(json: String(contentsOfFile: storage, encoding: .utf8))["count"] == 301)
    }

    @Test func aStorageFileThatIsNotOneIsAClearErrorAndExploringOnlyReadsIt() throws {
        let folder = try TemporaryDirectory()
        let bad = try folder.write("bad.json", "[1, 2, 3]")
        let outcome = try Programs.run(["--storage", bad, "examples/bank.lua"], input: "")
        #expect(outcome.status == 1)
        #expect(outcome.err.contains("bad.json is not a storage file: it holds JSON, but not an object of values by key"), "\(outcome.err)")
        // Explored signed in: the main flow is where it starts; the file is the same after.
        let signedIn = try folder.write("signed-in.json", #"{ "onboarded": true, "token": "t", "user": "Ann" }"#)
        let report = folder.path + "/report.json"
        let explored = try Programs.run(["explore", "examples/bank.lua", "--storage", signedIn, "--json", report, "--workers", "2"], input: "")
        #expect(explored.status == 0, "\(explored.out)\(explored.err)")
        let states = try FlowValue(json: String(contentsOfFile: report, encoding: .utf8))
        #expect(states["unreachedScreenTypes"] == ["Welcome"], "\(explored.out)") // onboarded: it never shows
        #expect(try String(contentsOfFile: signedIn, encoding: .utf8) == #"{ "onboarded": true, "token": "t", "user": "Ann" }"#)
        let alone = try Programs.run(["explore", "examples/bank.lua", "--storage", signedIn, "--json", folder.path + "/alone.json"], input: "")
        #expect(alone.status == 0)
        // Workers that got the storage from this process explore what it does alone.
        #expect(try FlowValue(json: String(contentsOfFile: folder.path + "/alone.json", encoding: .utf8))["fingerprint"] == states["fingerprint"])
    }

    @Test func routesChecksADeferredLinkBothWays() throws {
        let outcome = try Programs.run(["routes", "examples/bank.lua"], input: "")
        #expect(outcome.status == 0, "\(outcome.out)\(outcome.err)")
        #expect(outcome.out == """
            ✔ bank://transfer?to=:to (bank://transfer?to=savings), in main → Accounts > Transfer
            ✔ bank://transfer?to=:to (bank://transfer?to=savings), held until main → Accounts > Transfer
            ✔ bank://login (bank://login) → Login
            2 routes, 0 failed

            """)
    }

    /// A Lua string literal of `text`.
    func luaQuote(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
}
