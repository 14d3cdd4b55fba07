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
        let (out, err) = Self.readToEnd(stdout.fileHandleForReading.fileDescriptor, stderr.fileHandleForReading.fileDescriptor)
        process.waitUntilExit()
        return Outcome(out: String(decoding: out, as: UTF8.self), err: String(decoding: err, as: UTF8.self),
                       status: process.terminationStatus)
    }
}

extension Programs {
    /// Everything written to the pipes `out` and `err` until both close, read side by side (a program that
    /// fills one pipe while the other is read never waits on it), each read retried when a signal
    /// interrupts it (Foundation's `readDataToEndOfFile` traps on `EINTR`).
    public static func readToEnd(_ out: Int32, _ err: Int32) -> (Data, Data) {
        var data = [Data(), Data()]
        var open = [out >= 0, err >= 0]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while open[0] || open[1] {
            var fds = [pollfd(fd: open[0] ? out : -1, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: open[1] ? err : -1, events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for i in 0..<2 where open[i] && fds[i].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(fds[i].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    data[i].append(contentsOf: buffer[0..<count])
                } else if count == 0 || errno != EINTR && errno != EAGAIN {
                    open[i] = false
                }
            }
        }
        return (data[0], data[1])
    }

    /// Everything written to the pipe `handle` until it closes (``readToEnd(_:_:)``, one pipe).
    public static func readToEnd(_ handle: FileHandle) -> Data { readToEnd(handle.fileDescriptor, -1).0 }
}

/// `s` quoted for a POSIX shell.
public func shellQuote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

/// The whole file as text, or nil when it cannot be read.
public func readFile(_ path: String) -> String? { readTextFile(path) }
