import CFuzzDriver
import Foundation

/// The session fuzzer. Three ways to run it (docs/Security.md, "Fuzzing"):
///
/// - built with `-sanitize=fuzzer,address` (scripts/fuzz), it is a libFuzzer target: libFuzzer takes the
///   command line (`-runs=N`, a corpus folder, `-dict=...`) and each input is a session (``FuzzInput``);
/// - `coordfuzz PATH...` (any build) replays inputs: files, or folders of them (the corpus, crashes);
/// - `coordfuzz --sessions N [--seed S]` runs N random sessions (``RandomSessions``) over the app and every
///   example.
///
/// A crash is the fuzzer's finding, and so is a failing line that changed the app: it aborts with both
/// states under libFuzzer, and exits 1 otherwise.
@main
enum CoordFuzz {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv // SAFETY[c-buffer]
        let status = cfuzz_run_driver(&argc, &argv) { data, size in
            CoordFuzz.fuzzOne(UnsafeBufferPointer(start: data, count: size)) // SAFETY[c-buffer]
            return 0
        }
        if status >= 0 { exit(status) }
        exit(runWithoutLibFuzzer(Array(CommandLine.arguments.dropFirst())))
    }

    /// libFuzzer's target: one input, and an abort (which libFuzzer records with the input) when the
    /// session broke the promise.
    static func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) { // SAFETY[c-buffer]
        do { _ = try FuzzInput(bytes).run() } catch {
            FileHandle.standardError.write(Data("coordfuzz: \(error)\n".utf8))
            abort()
        }
    }

    static let usage = """
        usage: coordfuzz PATH...                 replay inputs (files, or folders of them)
               coordfuzz --sessions N [--seed S] run N random sessions over the app and every example
               (built by scripts/fuzz, coordfuzz takes libFuzzer's options: -runs=N CORPUS -dict=FILE ...)
        """

    static func runWithoutLibFuzzer(_ arguments: [String]) -> Int32 {
        if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return arguments.isEmpty ? 2 : 0
        }
        do {
            if let index = arguments.firstIndex(of: "--sessions") {
                guard index + 1 < arguments.count, let count = Int(arguments[index + 1]), count > 0 else {
                    FileHandle.standardError.write(Data("coordfuzz: --sessions takes a positive number\n\(usage)\n".utf8))
                    return 2
                }
                var seed: UInt64 = 0
                if let s = arguments.firstIndex(of: "--seed") {
                    guard s + 1 < arguments.count, let value = UInt64(arguments[s + 1]) else {
                        FileHandle.standardError.write(Data("coordfuzz: --seed takes a number\n".utf8))
                        return 2
                    }
                    seed = value
                }
                return try randomSessions(count, seed: seed)
            }
            return try replay(arguments)
        } catch {
            FileHandle.standardError.write(Data("coordfuzz: \(error)\n".utf8))
            return 1
        }
    }

    static func randomSessions(_ count: Int, seed: UInt64) throws -> Int32 {
        // notes.lua keeps its notes in a file when it has `io`: a fresh one, not the user's.
        let notes = NSTemporaryDirectory() + "coordfuzz-notes-\(UUID().uuidString).txt"
        setenv("NOTES_FILE", notes, 1)
        defer { try? FileManager.default.removeItem(atPath: notes) }
        var total = RandomSessions.Tally()
        let perScript = max(1, count / SessionRun.scripts.count)
        for script in SessionRun.scripts {
            let tally = try RandomSessions.run(script: script, count: perScript, seed: seed)
            total.sessions += tally.sessions
            total.lines += tally.lines
            total.failures += tally.failures
        }
        print("\(total.sessions) random sessions, \(total.lines) lines (\(total.failures) failed): no crash, no failing line changed the app")
        return 0
    }

    static func replay(_ paths: [String]) throws -> Int32 {
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("coordfuzz: \(path): no such file or folder\n".utf8))
                return 2
            }
            if isFolder.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: path).filter { !$0.hasPrefix(".") }.sorted()
                files += names.map { path + "/" + $0 }
            } else {
                files.append(path)
            }
        }
        var lines = 0, failures = 0, broken = 0
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
            do {
                let outcome = try bytes.withUnsafeBufferPointer { try FuzzInput($0).run() } // SAFETY[c-buffer]
                lines += outcome.lines
                failures += outcome.failures
            } catch let violation as SessionRun.Violation {
                broken += 1
                FileHandle.standardError.write(Data("\(file): \(violation)\n".utf8))
            }
        }
        if broken > 0 {
            print("\(files.count) inputs replayed: \(broken) changed the app on a failing line")
            return 1
        }
        print("\(files.count) inputs replayed, \(lines) lines (\(failures) failed): no crash, no failing line changed the app")
        return 0
    }
}
