// The operating system calls coordrun makes, in one place: POSIX through Glibc on Linux and through Darwin
// on macOS. Nothing else in coordrun imports either.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's standard input, output and error, and its environment.
enum Platform {
    /// Whether the file descriptor is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) != 0 }

    /// An environment variable's value.
    static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// Writes every byte of `text` to a file descriptor (standard output and error are written directly, so
    /// that they appear in the order they were produced).
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

    /// Waits until standard input is readable, at most `milliseconds` (-1: no limit). `.interrupted` when a
    /// signal arrived meanwhile.
    static func waitForStandardInput(milliseconds: Int32) -> Wait {
        var fds = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        let ready = poll(&fds, 1, milliseconds)
        if ready > 0 { return .readable }
        if ready < 0 { return errno == EINTR ? .interrupted : .readable } // let read report the problem
        return .timedOut
    }

    /// What a read from standard input gave.
    enum Read { case bytes(Int), end, interrupted }

    /// Reads up to `buffer.count` bytes from standard input into `buffer`.
    static func readStandardInput(into buffer: UnsafeMutableRawBufferPointer) -> Read {
        let count = read(0, buffer.baseAddress, buffer.count)
        if count > 0 { return .bytes(count) }
        if count < 0 && errno == EINTR { return .interrupted }
        return .end
    }

    /// A string that changes whenever the file is written: its modification time and size; nil when the
    /// file cannot be read.
    static func modificationStamp(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        return "\(time.tv_sec).\(time.tv_nsec):\(info.st_size)"
    }

    /// `_POSIX_VDISABLE`: a terminal control character that no key matches.
    #if canImport(Darwin)
    private static let disabledCharacter: UInt8 = 0xff
    #else
    private static let disabledCharacter: UInt8 = 0
    #endif

    /// The terminal's settings as the session found them, put back at exit. Safe without isolation:
    /// coordrun is single-threaded, and this is set once, before any line is read.
    nonisolated(unsafe) private static var terminalAtStart: termios?

    /// Ctrl-D typed while Lua code runs reaches the terminal in its own line mode, which takes it as end of
    /// input, and that is gone by the time line editing has the terminal again: the key was lost. With the
    /// terminal's end-of-file character off for the session, the key waits like any other and ends the
    /// session at the next prompt (line editing reads it as end of input on an empty line). Put back at
    /// exit, and by the signals that end the process.
    static func keepEndOfFileAKey() {
        var settings = termios()
        guard isatty(0) != 0, tcgetattr(0, &settings) == 0 else { return }
        terminalAtStart = settings
        withUnsafeMutableBytes(of: &settings.c_cc) { $0[Int(VEOF)] = disabledCharacter }
        guard tcsetattr(0, TCSANOW, &settings) == 0 else { terminalAtStart = nil; return }
        atexit { Platform.restoreTerminal() }
        for signo in [SIGTERM, SIGHUP, SIGQUIT] {
            _ = signal(signo) { signo in
                Platform.restoreTerminal()
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
