import CoordinatorTools

/// A libFuzzer input as a session: byte 0 picks the script, byte 1 the mode (REPL or run mode), and the
/// rest is text, one line per line (at most ``maxLines``). The corpus (Tests/Fuzz/corpus) holds sessions
/// written this way: a script's index and a mode byte, then lines a user would type.
struct FuzzInput {
    static let maxLines = 64

    let script: String
    let mode: REPL.Mode
    let lines: [String]

    init(_ bytes: UnsafeBufferPointer<UInt8>) { // SAFETY[c-buffer]
        let scripts = SessionRun.scripts
        script = scripts[Int(bytes.first ?? 0) % scripts.count]
        mode = bytes.count > 1 && bytes[1] & 1 == 1 ? .run : .repl
        let text = bytes.count > 2 ? String(decoding: UnsafeBufferPointer(rebasing: bytes[2...]), as: UTF8.self) : "" // SAFETY[c-buffer]
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(Self.maxLines).map(String.init)
    }

    /// Runs the session sandboxed and under limits (mutated text can say anything); returns the lines
    /// handled and how many failed, or throws a ``SessionRun/Violation``.
    func run() throws -> (lines: Int, failures: Int) {
        var run = try SessionRun(script: script, mode: mode, sandbox: true)
        for line in lines { try run.handle(line) }
        run.finish()
        return (run.lines, run.failures)
    }
}
