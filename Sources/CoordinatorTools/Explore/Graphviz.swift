import CoordinatorScript
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Graphviz's `dot`, as coordrun draws its graphs (`explore --graph`, `storyboard`, `diff --svg`, the
/// preview's flow): the graph with its clusters, and, where `dot` cannot lay those out (Graphviz 2.43
/// stops with "trouble in init_rank" on large graphs whose clusters many edges cross), the same graph
/// without them. Each attempt may take ``timeLimit`` seconds.
package enum Graphviz {
    /// The most seconds one drawing may take.
    package static let timeLimit = 60

    /// Why a graph could not be drawn.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Draws the graph `dot` gives (with its clusters, then without them) into the file at `path` as
    /// `format` (`svg`, `png`): nil, or why it could not be drawn.
    package static func draw(_ dot: (_ clustered: Bool) -> String, format: String, to path: String) -> Failure? {
        var failure = Failure(description: "dot did not run")
        for clustered in [true, false] {
            guard let why = run(dot(clustered), format: format, to: path) else { return nil }
            failure = why
            if why.description.hasPrefix("dot is not installed") { break }
        }
        return failure
    }

    /// The graph `dot` gives, drawn as SVG (``draw(_:format:to:)``): its text, or why it could not be drawn.
    package static func svg(_ dot: (_ clustered: Bool) -> String) -> Result<String, Failure> {
        guard let folder = temporaryFolder() else { return .failure(Failure(description: "no temporary folder for dot")) }
        defer { remove(folder, holding: ["graph.svg"]) }
        let path = folder + "/graph.svg"
        if let failure = draw(dot, format: "svg", to: path) { return .failure(failure) }
        guard let text = readTextFile(path) else { return .failure(Failure(description: "dot wrote no picture")) }
        return .success(text)
    }

    /// One run of `dot` on `text`, writing `path`, through files (no pipe to fill), under ``timeLimit``: nil,
    /// or why it failed. Started with `posix_spawn`, as coordrun starts its children: Foundation's `Process`
    /// would link Foundation and ICU into every start of coordrun.
    private static func run(_ text: String, format: String, to path: String) -> Failure? {
        guard let folder = temporaryFolder() else { return Failure(description: "no temporary folder for dot") }
        defer { remove(folder, holding: ["graph.dot", "errors.txt"]) }
        let (input, errors) = (folder + "/graph.dot", folder + "/errors.txt")
        guard (try? writeTextFile(text, to: input)) != nil else { return Failure(description: "no temporary file for dot") }
        let arguments = ["/usr/bin/env", "timeout", String(timeLimit), "dot", "-T" + format, "-o", path, input]
        guard let status = spawnAndWait(arguments, errorsTo: errors) else { return Failure(description: "dot did not start") }
        if status == 0 { return nil }
        let said = (readTextFile(errors) ?? "")
            .split(separator: "\n").first.map { String($0).trimmed } ?? ""
        switch status {
        case 127: return Failure(description: "dot is not installed: Debian's graphviz package has it")
        case 124: return Failure(description: "dot took more than \(timeLimit) s")
        default: return Failure(description: said.isEmpty ? "dot failed with status \(status)" : "dot: " + said)
        }
    }

    /// A new folder of this process's own under `TMPDIR` (else /tmp), or nil.
    private static func temporaryFolder() -> String? {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/coordrun-dot-XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else { return nil }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Removes a folder ``temporaryFolder()`` made, with the files named `files` in it (all it holds).
    private static func remove(_ folder: String, holding files: [String]) {
        for file in files { unlink(folder + "/" + file) }
        rmdir(folder)
    }

    /// Runs `arguments` (the program's path first) with nothing on its standard input and output and its
    /// standard error into the file `errors`, and waits for it: its exit status (128 + the signal that ended
    /// it), or nil when it could not start or be waited for.
    private static func spawnAndWait(_ arguments: [String], errorsTo errors: String) -> Int32? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil] // SAFETY[c-buffer]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) != pid {
            if errno != EINTR { return nil }
        }
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}
