import Foundation
import Testing
import TestSupport

/// Drives the real `coordrun` over standard input and compares what it prints with the recorded
/// transcripts in `Transcripts/` (`NAME.in` → `NAME.out`, `NAME.err`, `NAME.status`).
@Suite struct TranscriptTests {
    static let folder = repositoryRoot + "/Tests/EndToEndTests/Transcripts"

    /// Each transcript and the script it drives: `app` → `scripts/app.lua`, `examples/X` → `examples/X.lua`;
    /// `NAME.args`, when present, holds options that go before the script.
    @Test(arguments: ["app", "examples/tabs", "examples/notes", "examples/ab-picker", "examples/multi-select",
                      "examples/catalog", "examples/launch", "examples/shop", "examples/social", "examples/pages", "examples/split", "examples/ride", "examples/profile", "examples/bank", "examples/recipes", "examples/browser"])
    func transcript(_ name: String) throws {
        try check(name, sandbox: false)
    }

    /// The same sessions with the scripts untrusted (`--sandbox`): every flow runs unchanged.
    @Test(arguments: ["app", "examples/tabs", "examples/notes", "examples/ab-picker", "examples/multi-select",
                      "examples/catalog", "examples/launch", "examples/shop", "examples/social", "examples/pages", "examples/split", "examples/ride", "examples/profile", "examples/bank", "examples/recipes", "examples/browser"])
    func transcriptInTheSandbox(_ name: String) throws {
        try check(name, sandbox: true)
    }

    func check(_ name: String, sandbox: Bool) throws {
        let input = try String(contentsOfFile: "\(Self.folder)/\(name).in", encoding: .utf8)
        let script = name.hasPrefix("examples/") ? "\(name).lua" : "scripts/\(name).lua"
        let options = (try? String(contentsOfFile: "\(Self.folder)/\(name).args", encoding: .utf8))?
            .split(whereSeparator: \.isWhitespace).map(String.init) ?? []
        let outcome = try Programs.run((sandbox ? ["--sandbox"] : []) + options + [script], input: input)
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
        let outcome = try Programs.run([script], input: "")
        #expect(outcome.status == 1)
        #expect(outcome.out.isEmpty)
        #expect(outcome.err.contains("app.lua:3: unexpected symbol near '='"))
    }

    /// One 8 MB line on standard input is read once, not rescanned after every read (it took 10 s).
    @Test func aLongLineIsReadInLinearTime() throws {
        let line = "x = \"" + String(repeating: "a", count: 8_000_000) + "\"\n=#x\n"
        let outcome = try Programs.run(["-i"], input: line)
        #expect(outcome.out.contains("8000000"))
        #expect(outcome.status == 0)
    }

    @Test func frozenDataPrintsAsItsFields() throws {
        let outcome = try Programs.run(["scripts/app.lua"], input: "= require('coordinator').freeze { b = { 1, 2 }, a = 'x' }\n")
        #expect(outcome.out.contains(#"{ a = "x", b = { 1, 2 } }"#), "\(outcome.out)")
        #expect(outcome.status == 0)
    }

    @Test func aCleanSessionExitsWithZero() throws {
        let outcome = try Programs.run(["--state", "main", "scripts/app.lua"], input: "selectCity\n1\n")
        #expect(outcome.status == 0)
        #expect(outcome.err.isEmpty)
        #expect(outcome.out.hasSuffix("User: Guest\nCity: Moscow\n  1. selectCity\n  2. logout\nstack: UserEdit\n"))
    }
}
