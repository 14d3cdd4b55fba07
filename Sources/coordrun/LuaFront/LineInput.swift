import CEditLine
import CoordinatorTools

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
        while true {
            switch Terminal.waitForStandardInput(milliseconds: idle == nil ? -1 : 250, interrupted: CtrlC.takePending) {
            case .readable: return true
            case .interrupted: return false
            case .timedOut: if let idle, idle() { redisplay() }
            }
        }
    }

    func redisplay() {}

    /// The line just handled is done with: `typedSecret` says whether its lines typed a secret (their
    /// number, and the text to keep instead), which the history never keeps.
    func handled(typedSecret: (lines: Int, masked: String)?) {}
}

/// Lines from a pipe or file: no prompt, no editing.
final class PlainInput: LineInput {
    private var buffer: [UInt8] = []
    /// Where the search for the next newline goes on: the bytes before it have none (a long line arriving
    /// in many reads is scanned once).
    private var scanned = 0
    private var atEnd = false

    override func read(prompt: String?) -> LineResult {
        while true {
            if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                scanned = 0
                return .line(line)
            }
            scanned = buffer.count
            if atEnd {
                guard !buffer.isEmpty else { return .end }
                defer { buffer.removeAll(); scanned = 0 }
                return .line(String(decoding: buffer, as: UTF8.self))
            }
            if !waitForInput() { return .interrupted }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let result = chunk.withUnsafeMutableBytes { Terminal.readStandardInput(into: $0) } // SAFETY[c-buffer]
            switch result {
            case .bytes(let count): buffer += chunk[..<count]
            case .interrupted: continue
            case .end: atEnd = true
            }
        }
    }
}

/// Lines typed at a terminal, through libedit: arrow keys, history kept in a file, tab completion.
final class EditLineInput: LineInput {
    let historyFile: String?

    init(historyFile: String?, repl: REPL) {
        self.historyFile = historyFile
        super.init()
        EditLineHooks.input = self
        EditLineHooks.repl = repl
        cedit_setup("coordrun", { _ in EditLineHooks.nextCharacter() }, { text, start, end in EditLineHooks.complete(text, start, end) })
        cedit_set_word_breaks(" \t\n\"\\'`@$><=;|&{(,+-*/%^#~[]")
        Terminal.keepEndOfFileAKey()
        _ = rl_initialize()
        if let historyFile {
            stifle_history(1000)
            _ = read_history(historyFile)
        }
    }

    override func read(prompt: String?) -> LineResult {
        EditLineHooks.interrupted = false
        guard let raw = readline(prompt ?? "") else { return .end }
        defer { free(raw) }
        if EditLineHooks.interrupted { return .interrupted }
        let line = String(cString: raw)
        if line.contains(where: { $0 != " " && $0 != "\t" }) {
            _ = add_history(raw)
            added += 1
        }
        return .line(line)
    }

    /// Lines added to the history since the last one handled (a chunk's lines), and not yet saved.
    private var added = 0

    override func handled(typedSecret: (lines: Int, masked: String)?) {
        // A line that typed a secret (a password) is kept as the steps it took, the secret masked: it is
        // never saved to the history file, nor offered again by the arrow keys.
        if let typedSecret { cedit_replace_last_history(Int32(min(typedSecret.lines, added)), typedSecret.masked) }
        added = 0
        if let historyFile { _ = write_history(historyFile) }
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
    nonisolated(unsafe) static var input: EditLineInput? // SAFETY[main-thread]
    nonisolated(unsafe) static var repl: REPL? // SAFETY[main-thread]
    nonisolated(unsafe) static var interrupted = false // SAFETY[main-thread]
    nonisolated(unsafe) static var candidates: [String] = [] // SAFETY[main-thread]

    /// One character for libedit; on Ctrl-C, ends the line (which `read` then drops).
    static func nextCharacter() -> Int32 {
        if let input, !input.waitForInput() {
            interrupted = true
            Terminal.writeOut("^C")
            return 10
        }
        var byte: UInt8 = 0
        while true {
            switch withUnsafeMutableBytes(of: &byte, { Terminal.readStandardInput(into: $0) }) { // SAFETY[c-buffer]
            case .bytes: return Int32(byte)
            case .interrupted: if CtrlC.takePending() { interrupted = true; return 10 }
            case .end: return -1
            }
        }
    }

    static func complete(
        _ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32 // SAFETY[c-buffer]
    ) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? { // SAFETY[c-buffer]
        cedit_completion_over()
        let word = text.map { String(cString: $0) } ?? ""
        let line = cedit_line_buffer().map { String(cString: $0) } ?? ""
        let before = String(line.utf8.prefix(Int(max(0, start)))) ?? ""
        // Complete the whole expression before the cursor (`top():ren`), then hand libedit the part it
        // replaces (the word after its last break character).
        let expression = REPL.trailingExpression(before + word)
        let lineBefore = String((before + word).dropLast(expression.count))
        candidates = (repl?.completions(for: expression, lineBefore: lineBefore) ?? [])
            .map { String($0.dropFirst(expression.count - word.count)) }
        guard let text else { return nil }
        return rl_completion_matches(text, { _, state in
            let index = Int(state)
            guard EditLineHooks.candidates.indices.contains(index) else { return nil }
            return strdup(EditLineHooks.candidates[index])
        })
    }
}
