// The operating system calls coordrun makes, in one place: POSIX through Glibc on Linux and through Darwin
// on macOS. Nothing else in coordrun imports either.
import CEditLine
import CoordinatorTools
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's standard input, output and error, and its environment.
enum Platform {
    /// Whether the file descriptor is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) != 0 }

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

    /// Sets the environment variable `name` for this process and the ones it starts.
    static func setEnvironment(_ name: String, _ value: String) { setenv(name, value, 1) }

    /// An environment variable's value.
    static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// coordrun as the user typed it, for hints (`coordrun test x_test.lua`): the wrapper's name when
    /// started through scripts/coordrun (it sets `COORDRUN_COMMAND`), else the program's; just its name
    /// when the shell finds that same file on the `PATH`.
    static func commandName() -> String {
        let given = environment("COORDRUN_COMMAND") ?? CommandLine.arguments.first ?? "coordrun"
        guard given.contains("/"), let name = given.split(separator: "/").last.map(String.init) else { return given }
        func resolved(_ path: String) -> String? {
            guard let real = realpath(path, nil) else { return nil }
            defer { free(real) }
            return String(cString: real)
        }
        let target = resolved(given)
        for folder in (environment("PATH") ?? "").split(separator: ":") where !folder.isEmpty {
            let candidate = folder + "/" + name
            if access(candidate, X_OK) == 0 { return resolved(candidate) == target && target != nil ? name : given }
        }
        return given
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

    /// Replaces this process with the program `name` that sits beside coordrun's own binary, given
    /// `arguments`; when it is not there (or cannot start), says how to build it and exits 1.
    static func runSibling(_ name: String, _ arguments: [String]) -> Never {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let own = length > 0 ? String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : (CommandLine.arguments.first ?? "")
        let folder = own.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let program = (folder.isEmpty ? "." : folder) + "/" + name
        var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil] // SAFETY[c-buffer]
        execv(program, &argv)
        writeError("coordrun: cannot run \(program) (\(String(cString: strerror(errno)))): build it with swift build -c release --product \(name); scripts/coordrun serve builds it\n")
        exit(1)
    }

    /// Ends the process with `status`, after what waits for standard output.
    static func exit(_ status: Int32) -> Never {
        cedit_flush_stdout()
        #if canImport(Glibc)
        Glibc.exit(status)
        #else
        Darwin.exit(status)
        #endif
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

    /// Whether a file or folder exists at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// What is at `path`, for a command that makes a folder there: nothing, an empty folder, or something
    /// else (a file, a link, a folder with any entry, hidden ones included).
    enum Target { case missing, emptyFolder, taken }

    static func target(_ path: String) -> Target {
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT ? .missing : .taken }
        guard (info.st_mode & S_IFMT) == S_IFDIR, let names = entries(of: path), names.isEmpty else { return .taken }
        return .emptyFolder
    }

    /// The names in `folder` (without `.` and `..`), or nil when it cannot be read.
    static func entries(of folder: String) -> [String]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } // SAFETY[c-buffer]
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The test files (`*_test.lua`) among `paths` and under the folders among them, sorted; folders whose
    /// names start with `.` (`.build`, `.git`) are skipped, and links to folders are not followed. A path
    /// that is a file is taken as it is.
    static func testFiles(in paths: [String]) -> [String] { files(in: paths) { $0.hasSuffix("_test.lua") } }

    /// The files among `paths` and, under the folders among them, those whose names `matching` takes,
    /// sorted (hidden folders skipped, links to folders not followed).
    static func files(in paths: [String], matching: (String) -> Bool) -> [String] {
        var found: [String] = []
        var folders: [String] = []
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else { found.append(path); continue } // reported when it cannot load
            if (info.st_mode & S_IFMT) == S_IFDIR { folders.append(path) } else { found.append(path) }
        }
        while let folder = folders.popLast() {
            for name in entries(of: folder) ?? [] {
                if name.hasPrefix(".") { continue }
                let path = folder == "." ? name : folder + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else { continue } // a link to a folder is not followed (no loops)
                if (info.st_mode & S_IFMT) == S_IFDIR { folders.append(path) } else if matching(name) { found.append(path) }
            }
        }
        return found.sorted()
    }

    /// Writes `text` to the file at `path` (replacing it); false when it cannot, the write's end included
    /// (a full disk shows only when the buffer is flushed and the file closed).
    static func writeFile(_ path: String, _ text: String) -> Bool {
        guard let file = fopen(path, "wb") else { return false }
        var text = text
        let written = text.withUTF8 { fwrite($0.baseAddress, 1, $0.count, file) == $0.count }
        let flushed = fflush(file) == 0
        return fclose(file) == 0 && written && flushed
    }

    /// The whole file as text, or nil when it cannot be read or holds more than `limit` bytes (the
    /// scripts' own reader).
    static func readFile(_ path: String, limit: Int = 1 << 28) -> String? { readTextFile(path, limit: limit) }

    /// The current folder's path.
    static func currentFolder() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Monotonic nanoseconds.
    static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Makes the folder at `path` and the folders above it that are missing; false when it cannot.
    static func makeFolders(_ path: String) -> Bool {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            var info = stat()
            if stat(current, &info) == 0 { continue }
            if mkdir(current, 0o755) != 0 { return false }
        }
        return true
    }

    /// Runs a shell command with `input` on its standard input; its exit status (-1 when it could not
    /// start).
    static func run(_ command: String, input: String) -> Int32 {
        // A command that ends before reading all its input (missing, or refusing it) must give its status,
        // not a SIGPIPE that kills this process without a word.
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        guard let pipe = popen(command, "w") else { return -1 }
        var input = input
        _ = input.withUTF8 { fwrite($0.baseAddress, 1, $0.count, pipe) }
        let status = pclose(pipe)
        return status == -1 ? -1 : (status >> 8) & 0xFF
    }

    /// A child process this one talks to by lines: what it writes to its standard input, what it reads
    /// from its standard output.
    struct Child {
        let pid: pid_t
        fileprivate let input: UnsafeMutablePointer<FILE> // SAFETY[c-handle]
        fileprivate let output: UnsafeMutablePointer<FILE> // SAFETY[c-handle]
    }

    /// Starts `arguments` (the program first, found on PATH or by its path) with pipes to and from it.
    static func spawn(_ arguments: [String]) -> Child? {
        // Close-on-exec: a second child must not inherit the first one's pipes (it would hold the first's
        // input open, and the first would never see its end). The child's own ends are duplicated onto 0
        // and 1, which are not closed on exec.
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0 else { return nil }
        guard pipe(&fromChild) == 0 else { close(toChild[0]); close(toChild[1]); return nil }
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil] // SAFETY[c-buffer]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        close(toChild[0])
        close(fromChild[1])
        guard status == 0, let input = fdopen(toChild[1], "w"), let output = fdopen(fromChild[0], "r") else {
            close(toChild[1]); close(fromChild[0])
            return nil
        }
        return Child(pid: pid, input: input, output: output)
    }

    /// Sends lines to a child (flushed).
    static func send(_ text: String, to child: Child) -> Bool {
        var text = text
        let written = text.withUTF8 { fwrite($0.baseAddress, 1, $0.count, child.input) == $0.count }
        return written && fflush(child.input) == 0
    }

    /// The child's next line (without its newline), or nil at the end of its output.
    static func readLine(from child: Child) -> String? {
        var line: UnsafeMutablePointer<CChar>? // SAFETY[c-buffer]
        var capacity = 0
        defer { free(line) }
        let count = getline(&line, &capacity, child.output)
        guard count > 0, let line else { return nil }
        let bytes = UnsafeRawBufferPointer(start: line, count: count).prefix { $0 != UInt8(ascii: "\n") } // SAFETY[c-buffer]
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Waits until one of `children` has something to read (or has ended); its index in `children`, or nil
    /// when none is left to wait for.
    static func firstReadable(_ children: [Child]) -> Int? {
        var fds = children.map { pollfd(fd: fileno($0.output), events: Int16(POLLIN), revents: 0) }
        while !fds.isEmpty {
            let ready = poll(&fds, nfds_t(fds.count), -1)
            if ready < 0 { if errno == EINTR { continue }; return nil }
            return fds.firstIndex { $0.revents != 0 }
        }
        return nil
    }

    /// How a child process ended.
    enum Ending: Equatable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)
    }

    /// How a child ended, reaped and its pipes closed; nil while it runs (nothing is done to it then).
    static func ending(_ child: Child) -> Ending? {
        var status: Int32 = 0
        guard waitpid(child.pid, &status, WNOHANG) == child.pid else { return nil }
        fclose(child.input)
        fclose(child.output)
        return Self.ending(status)
    }

    private static func ending(_ status: Int32) -> Ending {
        status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
    }

    /// Closes the child's pipes and waits for it to end; how it ended (nil: it could not be waited for).
    private static func reap(_ child: Child) -> Ending? {
        fclose(child.input)
        fclose(child.output)
        var status: Int32 = 0
        guard waitpid(child.pid, &status, 0) == child.pid else { return nil }
        return ending(status)
    }

    /// This machine's name ("" when it cannot be read).
    static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Stops a child at once (SIGKILL), waits for it and closes its pipes; how it ended (`.exited` when it had
    /// exited already).
    @discardableResult
    static func stop(_ child: Child) -> Ending? {
        _ = kill(child.pid, SIGKILL)
        return reap(child)
    }

    /// Closes the child's input and waits for it; its exit status (-1 when a signal ended it or it could not
    /// be waited for).
    static func finish(_ child: Child) -> Int32 {
        if case .exited(let status)? = reap(child) { return status }
        return -1
    }

    /// Removes a file (nothing when it is not there).
    static func remove(_ path: String) { unlink(path) }

    /// This process's id.
    static func processID() -> Int32 { getpid() }

    /// `text` quoted for a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
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
