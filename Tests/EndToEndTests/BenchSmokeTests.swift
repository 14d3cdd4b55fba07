import Foundation
import Testing
import TestSupport

/// The benchmark keeps working: every case runs with tiny counts (its figures are not looked at here;
/// performance is measured by `swift run -c release --static-swift-stdlib coordbench`, never by the tests).
@Suite struct BenchSmokeTests {
    @Test func everyCaseRunsAndTheJSONIsWellFormed() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Programs.coordrun).deletingLastPathComponent().appendingPathComponent("coordbench")
        process.arguments = ["--quick", "--json"]
        process.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = Programs.readToEnd(out.fileHandleForReading)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let cases = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        let names = cases.compactMap { $0["case"] as? String }
        for expected in ["Lua -> Swift closure", "Lua -> Swift method", "Swift -> Lua screen output", "journey: Lua flow",
                         "journey: native Swift", "journey: plain Lua", "signal over", "memory per coordinator", "leaks:", "reload a"] {
            #expect(names.contains { $0.hasPrefix(expected) }, "\(expected)")
        }
        #expect(cases.allSatisfy { ($0["value"] as? Double).map { $0.isFinite } == true })
        // The leak check is a real pass/fail even with tiny counts.
        #expect(cases.first { ($0["case"] as? String)?.hasPrefix("leaks:") == true }?["note"].map { "\($0)".hasSuffix("PASS") } == true)
    }

    @Test func badArgumentsAreMessagesNotCrashes() throws {
        for arguments in [["--scale", "nan"], ["--scale", "inf"], ["--scale", "0"], ["--only", "nope"]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Programs.coordrun).deletingLastPathComponent().appendingPathComponent("coordbench")
            process.arguments = arguments
            let err = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = err
            try process.run()
            let message = String(decoding: Programs.readToEnd(err.fileHandleForReading), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 64, "\(arguments)")   // a usage error, not a trap
            #expect(message.hasPrefix("Error: "), "\(arguments): \(message)")
        }
    }
}
