import CoordinatorTools

/// One session against an app, line by line, checking the promise every fuzzer holds the runtime to: no
/// crash, and a line that fails changes nothing (the window, every screen's inputs, the coordinator tree,
/// the gateway's state).
struct SessionRun {
    /// The scripts sessions run against: the app and every example.
    static let scripts = ["scripts/app.lua"] + [
        "tabs",
        "notes",
        "ab-picker",
        "multi-select",
        "catalog",
        "launch",
        "shop",
        "social",
        "pages",
        "split",
        "ride",
        "profile"
    ].map { "examples/\($0).lua" }

    /// The repository's root, where the scripts are (this file is Sources/coordfuzz/SessionRun.swift).
    static let repositoryRoot: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    /// A failing line that changed the app: what the fuzzers look for.
    struct Violation: Error, CustomStringConvertible {
        let script: String
        let line: Int
        let text: String
        let before: String
        let after: String

        var description: String {
            "\(script), line \(line) `\(text)` failed and changed the app:\n  before: \(before)\n  after:  \(after)"
        }
    }

    let script: String
    let runtime: ScriptRuntime
    let repl: REPL
    /// Lines handled, and how many of them failed.
    private(set) var lines = 0, failures = 0

    /// Starts the app of `script` (relative to the repository's root). `sandbox` runs it as untrusted code
    /// under limits (what libFuzzer's inputs get: mutated text can say `os.execute`).
    init(script: String, mode: REPL.Mode, sandbox: Bool) throws {
        self.script = script
        runtime = try ScriptRuntime(sandbox: sandbox)
        try runtime.load(script: Self.repositoryRoot + "/" + script)
        try runtime.start()
        runtime.lua.onWarning { _ in } // hostile lines raise errors in finalizers: Lua warns, quietly here
        if sandbox { try runtime.limit(memory: runtime.lua.memoryUsed + 256 << 20, instructions: 2_000_000) }
        repl = try REPL(runtime: runtime, mode: mode) { _ in }
        repl.makeFreshRuntime = { [runtime] sources in // time travel: as quiet as the first
            let fresh = try runtime.fresh(quiet: true, sources: sources)
            fresh.lua.onWarning { _ in }
            return fresh
        }
    }

    /// Whether a line that is part of a longer chunk is being read (the next line continues it).
    var isContinuing: Bool { repl.isContinuing }

    /// Handles one line as a user typing it would; throws when it failed and changed the app.
    mutating func handle(_ text: String) throws(Violation) {
        // repl.runtime, not runtime: time travel (:undo) puts a fresh runtime in its place.
        let before = repl.runtime.app.stateDescription
        lines += 1
        guard !repl.handle(text) else { return }
        failures += 1
        let after = repl.runtime.app.stateDescription
        if after != before { throw Violation(script: script, line: lines, text: text, before: before, after: after) }
    }

    /// Ends the session as the end of input would.
    func finish() { _ = repl.endOfInput() }
}
