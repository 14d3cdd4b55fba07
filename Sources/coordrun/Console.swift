import CEditLine
import LuaKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What reading a line gave.
enum LineResult: Equatable {
    case line(String)
    /// Ctrl-C at the prompt: the line typed so far is dropped.
    case interrupted
    case end
}

/// Where lines come from: the terminal (libedit) or a pipe.
class LineInput {
    /// Called about four times a second while waiting for input; returns true when it printed something
    /// (the prompt and the line being typed are then shown again).
    var idle: (() -> Bool)?

    func read(prompt: String?) -> LineResult { .end }

    /// Waits until standard input is readable, calling `idle` meanwhile. False when Ctrl-C was pressed.
    func waitForInput() -> Bool {
        var fds = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&fds, 1, idle == nil ? -1 : 250)
            if ready > 0 { return true }
            if ready < 0 {
                if errno == EINTR && InterruptSignal.takePending() { return false }
                if errno != EINTR { return true } // let read report the problem
                continue
            }
            if let idle, idle() { redisplay() }
        }
    }

    func redisplay() {}
}

/// Lines from a pipe or file: no prompt, no editing.
final class PlainInput: LineInput {
    private var buffer: [UInt8] = []
    private var atEnd = false

    override func read(prompt: String?) -> LineResult {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return .line(line)
            }
            if atEnd {
                guard !buffer.isEmpty else { return .end }
                defer { buffer.removeAll() }
                return .line(String(decoding: buffer, as: UTF8.self))
            }
            if !waitForInput() { return .interrupted }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = Glibc.read(0, &chunk, chunk.count)
            if count > 0 { buffer += chunk[..<count] } else if count == 0 || errno != EINTR { atEnd = true }
        }
    }
}

/// Lines typed at a terminal, through libedit: arrow keys, history kept in a file, tab completion.
final class EditLineInput: LineInput {
    let historyFile: String?

    init(historyFile: String?, completer: Completer) {
        self.historyFile = historyFile
        super.init()
        EditLineHooks.input = self
        EditLineHooks.completer = completer
        cedit_setup("coordrun", { _ in EditLineHooks.nextCharacter() }, { text, start, end in EditLineHooks.complete(text, start, end) })
        cedit_set_word_breaks(" \t\n\"\\'`@$><=;|&{(,+-*/%^#~[]")
        Self.keepEndOfFileAKey()
        _ = rl_initialize()
        if let historyFile {
            stifle_history(1000)
            _ = read_history(historyFile)
        }
    }

    /// The terminal's settings as the session found them, put back at exit. Safe without isolation:
    /// coordrun is single-threaded, and this is set once, before any line is read.
    nonisolated(unsafe) private static var terminalAtStart: termios?

    /// Ctrl-D typed while Lua code runs reaches the terminal in its own line mode, which takes it as end of
    /// input, and that is gone by the time line editing has the terminal again: the key was lost. With the
    /// terminal's end-of-file character off for the session, the key waits like any other and ends the
    /// session at the next prompt (line editing reads it as end of input on an empty line). Put back at
    /// exit.
    private static func keepEndOfFileAKey() {
        var settings = termios()
        guard isatty(0) != 0, tcgetattr(0, &settings) == 0 else { return }
        terminalAtStart = settings
        withUnsafeMutableBytes(of: &settings.c_cc) { $0[Int(VEOF)] = 0 } // 0: _POSIX_VDISABLE on Linux
        guard tcsetattr(0, TCSANOW, &settings) == 0 else { terminalAtStart = nil; return }
        atexit { EditLineInput.restoreTerminal() }
        // Signals that end the process put it back too, then take their default course.
        for signo in [SIGTERM, SIGHUP, SIGQUIT] {
            _ = signal(signo) { signo in
                EditLineInput.restoreTerminal()
                _ = signal(signo, SIG_DFL)
                _ = raise(signo)
            }
        }
    }

    /// Puts the terminal's settings back as the session found them (tcsetattr is safe in a signal handler).
    private static func restoreTerminal() {
        if var settings = terminalAtStart { _ = tcsetattr(0, TCSANOW, &settings) }
    }

    override func read(prompt: String?) -> LineResult {
        EditLineHooks.interrupted = false
        guard let raw = readline(prompt ?? "") else { return .end }
        defer { free(raw) }
        if EditLineHooks.interrupted { return .interrupted }
        let line = String(cString: raw)
        if !line.trimmingCharacters(in: " \t").isEmpty {
            _ = add_history(raw)
            if let historyFile { _ = write_history(historyFile) }
        }
        return .line(line)
    }

    override func redisplay() {
        rl_forced_update_display()
    }
}

/// libedit calls back through plain C function pointers, which cannot capture context: the one line
/// editor of the process keeps its state here.
enum EditLineHooks {
    // Safe without isolation: coordrun is single-threaded, and libedit calls these hooks only from inside
    // readline() on the main thread.
    nonisolated(unsafe) static var input: EditLineInput?
    nonisolated(unsafe) static var completer: Completer?
    nonisolated(unsafe) static var interrupted = false
    nonisolated(unsafe) static var candidates: [String] = []

    /// One character for libedit; on Ctrl-C, ends the line (which `read` then drops).
    static func nextCharacter() -> Int32 {
        if let input, !input.waitForInput() {
            interrupted = true
            writeAll(1, "^C")
            return 10
        }
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(0, &byte, 1)
            if count == 1 { return Int32(byte) }
            if count < 0 && errno == EINTR {
                if InterruptSignal.takePending() { interrupted = true; return 10 }
                continue
            }
            return -1
        }
    }

    static func complete(_ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        cedit_completion_over()
        let word = text.map { String(cString: $0) } ?? ""
        let line = cedit_line_buffer().map { String(cString: $0) } ?? ""
        let before = String(line.utf8.prefix(Int(start))) ?? ""
        // Complete the whole expression before the cursor (`top():ren`), then hand libedit the part it
        // replaces (the word after its last break character).
        let expression = Completer.trailingExpression(before + word)
        let lineBefore = String((before + word).dropLast(expression.count))
        candidates = (completer?.candidates(for: expression, lineBefore: lineBefore) ?? [])
            .map { String($0.dropFirst(expression.count - word.count)) }
        guard let text else { return nil }
        return rl_completion_matches(text, { _, state in
            let index = Int(state)
            guard EditLineHooks.candidates.indices.contains(index) else { return nil }
            return strdup(EditLineHooks.candidates[index])
        })
    }
}

/// Watches files by modification time (checked when the input is idle).
final class FileWatcher {
    var paths: [String] { didSet { stamps = Self.stamps(paths) } }
    private var stamps: [String: String]

    init(paths: [String]) {
        self.paths = paths
        self.stamps = Self.stamps(paths)
    }

    /// True once for each round of saves.
    func changed() -> Bool {
        let now = Self.stamps(paths)
        guard now != stamps else { return false }
        stamps = now
        return true
    }

    static func stamps(_ paths: [String]) -> [String: String] {
        var result: [String: String] = [:]
        for path in paths {
            var info = stat()
            if stat(path, &info) == 0 {
                result[path] = "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec):\(info.st_size)"
            }
        }
        return result
    }
}
