// The terminal and the standard streams as coordrun uses them: one of the three files (with Files.swift and
// Processes.swift) where coordrun calls the operating system (Glibc on Linux, Darwin on macOS); nothing else in
// coordrun imports either.
import CEditLine
import CoordinatorTools
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal and the process's standard input, output and error.
enum Terminal {
    /// Whether the file descriptor is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) != 0 }

    /// How many columns the terminal at `fd` has (80 when it does not say).
    static func columns(_ fd: Int32) -> Int {
        var size = winsize()
        return ioctl(fd, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }

    /// A line read from the terminal on standard input with echo off, after `prompt` on standard error;
    /// nil when standard input is no terminal or is at its end.
    static func readSecret(prompt: String) -> String? {
        var settings = termios()
        guard isatty(0) != 0, tcgetattr(0, &settings) == 0 else { return nil }
        var quiet = settings
        quiet.c_lflag &= ~tcflag_t(ECHO)
        _ = tcsetattr(0, TCSAFLUSH, &quiet) // echo off before the prompt shows: nothing typed after it echoes
        writeError(prompt)
        defer {
            _ = tcsetattr(0, TCSANOW, &settings) // what is typed ahead after the secret stays
            writeError("\n")
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            guard n == 1 else { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    /// Writes `text` to standard output through C's `stdout`, the stream Lua's `print` and `io.write` use,
    /// then flushes it: what scripts and coordrun write comes out in the order it was made.
    static func writeOut(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { cedit_write_stdout($0.baseAddress, $0.count) } // SAFETY[c-buffer]
        }
        cedit_flush_stdout()
    }

    /// Writes `text` to standard error, after what is waiting for standard output (`io.write` without a
    /// newline, for example).
    static func writeError(_ text: String) {
        cedit_flush_stdout()
        writeAll(2, text)
    }

    /// Flushes C's `stdout` (before a prompt, so that `io.write("a")` shows up before it).
    static func flushOut() { cedit_flush_stdout() }

    /// Everything on standard input, up to its end (a script given as `-`).
    static func readAllStandardInput() -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(0, &chunk, chunk.count)
            if count > 0 { bytes += chunk[..<count] } else if count < 0 && errno == EINTR { continue } else { return bytes }
        }
    }

    /// Writes every byte of `text` to a file descriptor.
    static func writeAll(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// What a wait for standard input ended with.
    enum Wait { case readable, interrupted, timedOut }

    /// Waits until standard input is readable, at most `milliseconds` (-1: no limit); `.interrupted` when
    /// `interrupted()` (Ctrl-C's pending flag, taken) says a Ctrl-C came. SIGINT is blocked from that check
    /// until the wait begins, and the wait lets it in (`pselect`): a Ctrl-C that arrives between the check and
    /// the wait ends the wait instead of being seen only after the next key.
    static func waitForStandardInput(milliseconds: Int32, interrupted: () -> Bool) -> Wait {
        var sigint = sigset_t(), previous = sigset_t()
        sigemptyset(&sigint)
        sigaddset(&sigint, SIGINT)
        pthread_sigmask(SIG_BLOCK, &sigint, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        if interrupted() { return .interrupted }
        let ready = cedit_wait_input(milliseconds, &previous)
        if ready > 0 { return .readable }
        if ready < 0 && errno == EINTR { return interrupted() ? .interrupted : .timedOut }
        if ready < 0 { return .readable } // let read report the problem
        return .timedOut
    }

    /// What a read from standard input gave.
    enum Read { case bytes(Int), end, interrupted }

    /// Reads up to `buffer.count` bytes from standard input into `buffer`.
    static func readStandardInput(into buffer: UnsafeMutableRawBufferPointer) -> Read { // SAFETY[c-buffer]
        let count = read(0, buffer.baseAddress, buffer.count)
        if count > 0 { return .bytes(count) }
        if count < 0 && errno == EINTR { return .interrupted }
        return .end
    }

    /// `_POSIX_VDISABLE`: a terminal control character that no key matches.
    #if canImport(Darwin)
    private static let disabledCharacter: UInt8 = 0xff
    #else
    private static let disabledCharacter: UInt8 = 0
    #endif

    /// The terminal's settings as the session found them, put back at exit. Safe without isolation:
    /// coordrun is single-threaded, and this is set once, before any line is read.
    nonisolated(unsafe) private static var terminalAtStart: termios? // SAFETY[main-thread]

    /// Ctrl-D typed while Lua code runs reaches the terminal in its own line mode, which takes it as end of
    /// input, and that is gone by the time line editing has the terminal again: the key was lost. With the
    /// terminal's end-of-file character off for the session, the key waits like any other and ends the
    /// session at the next prompt (line editing reads it as end of input on an empty line). Put back at
    /// exit, and by the signals that end the process.
    static func keepEndOfFileAKey() {
        var settings = termios()
        guard isatty(0) != 0, tcgetattr(0, &settings) == 0 else { return }
        terminalAtStart = settings
        withUnsafeMutableBytes(of: &settings.c_cc) { $0[Int(VEOF)] = disabledCharacter } // SAFETY[c-buffer]
        guard tcsetattr(0, TCSANOW, &settings) == 0 else { terminalAtStart = nil; return }
        atexit { Terminal.restoreTerminal() }
        for signo in [SIGTERM, SIGHUP, SIGQUIT] {
            _ = signal(signo) { signo in
                Terminal.restoreTerminal()
                _ = signal(signo, SIG_DFL)
                _ = raise(signo)
            }
        }
    }

    /// Puts the terminal's settings back as the session found them (tcsetattr is safe in a signal handler).
    private static func restoreTerminal() {
        if var settings = terminalAtStart { _ = tcsetattr(0, TCSANOW, &settings) }
    }
}
