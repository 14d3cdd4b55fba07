import Foundation
import Testing
import TestSupport

/// Drives the real `coordrun` over standard input and compares what it prints with the recorded
/// transcripts in `Transcripts/` (`NAME.in` → `NAME.out`, `NAME.err`, `NAME.status`).
@Suite struct TranscriptTests {
    static let folder = repositoryRoot + "/Tests/CoordinatorScriptTests/Transcripts"

    /// The `coordrun` built next to this test bundle.
    static var coordrun: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("coordrun").path
    }

    struct Outcome { var out: String; var err: String; var status: Int32 }

    /// SIGPIPE ignored in this process, once: a write to a program that has exited fails instead.
    static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    static func run(_ arguments: [String], input: String) throws -> Outcome {
        try run(coordrun, arguments, input: input)
    }

    /// Runs `program` in the repository's root with `input` on its standard input; `environment` adds to
    /// (or, with nil values, removes from) this process's.
    static func run(_ program: String, _ arguments: [String], input: String, environment extra: [String: String?] = [:],
                    folder: String = repositoryRoot) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        var environment = ProcessInfo.processInfo.environment
        environment["NOTES_FILE"] = NSTemporaryDirectory() + "notes-\(UUID().uuidString).txt"
        environment["CITY_PICKER"] = nil
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // A program may exit without reading its input (`-v -e ...`, `os.exit`): writing then fails with
        // EPIPE, which must not end the test process with SIGPIPE.
        _ = Self.ignoreBrokenPipes
        try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(out: String(decoding: out, as: UTF8.self), err: String(decoding: err, as: UTF8.self),
                       status: process.terminationStatus)
    }

    /// Each transcript and the script it drives: `app` → `scripts/app.lua`, `examples/X` → `examples/X.lua`;
    /// `NAME.args`, when present, holds options that go before the script.
    @Test(arguments: ["app", "examples/tabs", "examples/notes", "examples/ab-picker", "examples/multi-select",
                      "examples/catalog", "examples/launch", "examples/shop"])
    func transcript(_ name: String) throws {
        try check(name, sandbox: false)
    }

    /// The same sessions with the scripts untrusted (`--sandbox`): every flow runs unchanged.
    @Test(arguments: ["app", "examples/tabs", "examples/notes", "examples/ab-picker", "examples/multi-select",
                      "examples/catalog", "examples/launch", "examples/shop"])
    func transcriptInTheSandbox(_ name: String) throws {
        try check(name, sandbox: true)
    }

    func check(_ name: String, sandbox: Bool) throws {
        let input = try String(contentsOfFile: "\(Self.folder)/\(name).in", encoding: .utf8)
        let script = name.hasPrefix("examples/") ? "\(name).lua" : "scripts/\(name).lua"
        let options = (try? String(contentsOfFile: "\(Self.folder)/\(name).args", encoding: .utf8))?
            .split(whereSeparator: \.isWhitespace).map(String.init) ?? []
        let outcome = try Self.run((sandbox ? ["--sandbox"] : []) + options + [script], input: input)
        let expectedOut = try String(contentsOfFile: "\(Self.folder)/\(name).out", encoding: .utf8)
        let expectedErr = try String(contentsOfFile: "\(Self.folder)/\(name).err", encoding: .utf8)
        let expectedStatus = try String(contentsOfFile: "\(Self.folder)/\(name).status", encoding: .utf8)
        #expect(outcome.out == expectedOut)
        #expect(outcome.err == expectedErr)
        #expect("\(outcome.status)\n" == expectedStatus)
    }

    @Test func aScriptThatFailsToLoadExitsWithItsLocation() throws {
        let folder = try TemporaryDirectory()
        let script = try folder.write("app.lua", "local flow = require 'coordinator'\nflow.screen 'A' {}\nlocal x = = 1\n")
        let outcome = try Self.run([script], input: "")
        #expect(outcome.status == 1)
        #expect(outcome.out.isEmpty)
        #expect(outcome.err.contains("app.lua:3: unexpected symbol near '='"))
    }

    /// One 8 MB line on standard input is read once, not rescanned after every read (it took 10 s).
    @Test func aLongLineIsReadInLinearTime() throws {
        let line = "x = \"" + String(repeating: "a", count: 8_000_000) + "\"\n=#x\n"
        let outcome = try Self.run(["-i"], input: line)
        #expect(outcome.out.contains("8000000"))
        #expect(outcome.status == 0)
    }

    @Test func frozenDataPrintsAsItsFields() throws {
        let outcome = try Self.run(["scripts/app.lua"], input: "= require('coordinator').freeze { b = { 1, 2 }, a = 'x' }\n")
        #expect(outcome.out.contains(#"{ a = "x", b = { 1, 2 } }"#), "\(outcome.out)")
        #expect(outcome.status == 0)
    }

    @Test func helpAndVersion() throws {
        let help = try Self.run(["--help"], input: "")
        #expect(help.status == 0)
        #expect(help.out.hasPrefix("usage: coordrun [options] [script [args]]\nAvailable options are:\n  -e stat"))
        #expect(help.out.contains("--memory-limit BYTES"))
        let version = try Self.run(["--version"], input: "")
        #expect(version.out.hasPrefix("Lua 5.4"))
        #expect(version.out.hasSuffix("PUC-Rio\ncoordrun 0.4.0\n"))
    }

    @Test func aCleanSessionExitsWithZero() throws {
        let outcome = try Self.run(["--state", "main", "scripts/app.lua"], input: "selectCity\n1\n")
        #expect(outcome.status == 0)
        #expect(outcome.err.isEmpty)
        #expect(outcome.out.hasSuffix("User: Guest\nCity: Moscow\n  1. selectCity\n  2. logout\nstack: UserEdit\n"))
    }
}
