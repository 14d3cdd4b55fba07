// This process and the ones it starts (the preview, exploration's workers, os commands): one of the three files
// (with Terminal.swift and Files.swift) where coordrun calls the operating system; nothing else in coordrun
// imports it.
import CEditLine
import CoordinatorTools
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This process (its environment, its exit, the time) and the child processes it starts.
enum Processes {
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
        Terminal.writeError("""
            coordrun: cannot run \(program) (\(String(cString: strerror(errno)))): build it with \
            scripts/build-release \(name); scripts/coordrun serve builds it\n
            """)
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

    /// Monotonic nanoseconds.
    static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
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

    /// Runs a shell command and reads what it writes to its standard output: its exit status (-1 when it
    /// could not start) and the text.
    static func output(of command: String) -> (status: Int32, text: String) {
        guard let pipe = popen(command, "r") else { return (-1, "") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        let status = pclose(pipe)
        return (status == -1 ? -1 : (status >> 8) & 0xFF, String(decoding: bytes, as: UTF8.self))
    }

    /// A child process this one talks to by lines: what it writes to its standard input, what it reads
    /// from its standard output.
    struct Child {
        let pid: pid_t
        fileprivate let input: UnsafeMutablePointer<FILE> // SAFETY[c-handle]
        fileprivate let output: UnsafeMutablePointer<FILE> // SAFETY[c-handle]
    }

    /// Starts `arguments` (the program first, found on PATH or by its path) with pipes to and from it;
    /// `quiet`: its standard error to /dev/null.
    static func spawn(_ arguments: [String], quiet: Bool = false) -> Child? {
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
        if quiet { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) } // its own chatter not in ours
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

    /// Runs `body` with a write to a pipe whose reader has ended an error (`EPIPE`) rather than a signal
    /// that ends coordrun without a word.
    static func ignoringBrokenPipes<T>(_ body: () throws -> T) rethrows -> T {
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        return try body()
    }

    /// Ends the process `pid` at once (a watchdog's, from any thread).
    static func end(_ pid: Int32) { _ = kill(pid, SIGKILL) }

    /// The child's next `count` bytes, or nil when its output ends before them.
    static func read(_ count: Int, from child: Child) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { buffer in // SAFETY[c-buffer]
                fread(buffer.baseAddress.map { $0 + done }, 1, count - done, child.output)
            }
            if got == 0 { return nil }
            done += got
        }
        return bytes
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

    /// This process's id.
    static func processID() -> Int32 { getpid() }

    /// `text` quoted for a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// Sleeps `milliseconds`.
    static func pause(milliseconds: Int) {
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        nanosleep(&request, nil)
    }
}
