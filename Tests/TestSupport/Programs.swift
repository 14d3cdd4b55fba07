import Foundation
import CoordinatorScript

/// The repository's root, found from this file.
public let repositoryRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

/// The programs of this build (`coordrun`) and others (`lua5.4`), run as a user runs them.
public enum Programs {
    /// The `coordrun` built next to this test bundle.
    public static var coordrun: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("coordrun").path
    }

    /// The least time a guard on a child process waits before it kills it: 60 s. A guard is a net for a
    /// hang; a test that needs a program to end sooner races the clock on a loaded machine.
    public static let shortestGuard = 60.0

    /// What a program printed and its exit status.
    public struct Outcome { public var out: String; public var err: String; public var status: Int32 }

    /// SIGPIPE ignored in this process, once: a write to a program that has exited fails instead.
    static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Runs the `coordrun` of this build in the repository's root with `input` on its standard input;
    /// `within` seconds, if given, is how long it may run before it is killed (status 9, as for a hang): a
    /// safety net against a hang, never the thing tested, so never less than ``shortestGuard``.
    public static func run(_ arguments: [String], input: String, within: Double? = nil) throws -> Outcome {
        try run(coordrun, arguments, input: input, within: within)
    }

    /// Runs `program` in the repository's root with `input` on its standard input; `environment` adds to
    /// (or, with nil values, removes from) this process's; `within` seconds, if given, is how long it may
    /// run before it is killed (SIGKILL: status 9; never sooner than ``shortestGuard``).
    public static func run(_ program: String, _ arguments: [String], input: String, environment extra: [String: String?] = [:],
                           folder: String = repositoryRoot, within: Double? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        var environment = ProcessInfo.processInfo.environment
        // examples/notes.lua keeps its notes in this file: one of the run's own, removed after it.
        let notes = NSTemporaryDirectory() + "notes-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: notes) }
        environment["NOTES_FILE"] = notes
        environment["CITY_PICKER"] = nil
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let killer = within.map { max($0, shortestGuard) }.map { seconds in
            let pid = process.processIdentifier
            let item = DispatchWorkItem { kill(pid, SIGKILL) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
            return item
        }
        defer { killer?.cancel() }
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
}

/// `s` quoted for a POSIX shell.
public func shellQuote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

/// The whole file as text, or nil when it cannot be read.
public func readFile(_ path: String) -> String? { readTextFile(path) }
