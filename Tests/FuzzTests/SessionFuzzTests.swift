import Foundation
import Testing
import TestSupport
@testable import coordfuzz

/// The session fuzzer (Sources/coordfuzz) run by the suite, bounded: random sessions against the app and
/// every example (random taps of outputs the screen has and has not, payloads good and bad, Backs, and Lua
/// lines good and hostile), and the libFuzzer seed corpus replayed. After every line: no crash, and a line
/// that failed changed nothing (window, inputs, tree, gateway).
///
/// `./scripts/test` runs a bounded number (the default below); `COORD_FUZZ_SESSIONS=10000 swift test
/// --filter SessionFuzzTests` or `swift run coordfuzz --sessions 10000` runs more; scripts/fuzz runs
/// libFuzzer (docs/Security.md).
@Suite struct SessionFuzzTests {
    static var sessions: Int { Int(ProcessInfo.processInfo.environment["COORD_FUZZ_SESSIONS"] ?? "") ?? 60 }

    @Test(arguments: SessionRun.scripts)
    func randomSessionsNeverCrashAndFailingLinesChangeNothing(_ script: String) throws {
        setenv("NOTES_FILE", NSTemporaryDirectory() + "fuzz-notes-\(UUID().uuidString).txt", 1) // notes.lua's file
        let count = max(1, Self.sessions / SessionRun.scripts.count)
        let tally = try RandomSessions.run(script: script, count: count)
        #expect(tally.lines == count * RandomSessions.linesPerSession)
        #expect(tally.failures > 0) // the sessions do reach failing lines
    }

    /// Every input of the seed corpus (and every finding added to it) replays: sandboxed, under limits.
    @Test func theFuzzCorpusReplays() throws {
        let folder = SessionRun.repositoryRoot + "/Tests/Fuzz/corpus"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }
        #expect(names.count >= 20)
        var failures = 0
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            failures += try bytes.withUnsafeBufferPointer { try FuzzInput($0).run() }.failures
        }
        #expect(failures > 0)
    }
}
