import CoordinatorScript

/// The session's lines, for time travel (`:undo`, `:redo`, `:history`, `:goto N`).
///
/// Every line that ran (a Lua chunk, a run-mode action, `:N`) is kept with the scripts' texts it ran
/// with; `cursor` says how many of them the app is the result of. Going to another point makes a fresh
/// runtime of the app from the texts the session began with, runs the kept lines up to that point again in
/// it (their output silenced), reloading the scripts where they were reloaded in the session, then reloads
/// it to the scripts' texts of now (live edit keeps its state: after a reload, undo keeps the new code and
/// takes the state back), and puts it in place of the current one. The lines, not a copy of the state, because
/// the state is also Lua's (file-level locals, coordinators' fields, closures that captured them), which
/// only running the same lines again rebuilds; the app's own log undoes one failed line, not a session.
/// Costs grow with the lines kept (each travel runs them again: microseconds to milliseconds a line).
///
/// The lines kept are bounded (``limit``, `--history N`): a session driven for days holds flat memory. Every
/// quarter of the limit the app is saved as a snapshot (a checkpoint) after the newest line; once more than
/// ``limit`` lines are kept, the oldest ones up to a checkpoint are dropped and travel starts from that
/// snapshot (the app as it was then; Lua values those lines made outside the app's coordinators are not
/// in it). If no snapshot could be taken, travel cannot go back past the lines dropped at all, and says so.
struct LineHistory {
    struct Entry {
        /// The session line it began on.
        let number: Int
        /// Its lines as typed (more than one for a chunk that continued).
        let lines: [String]
        /// What it did when that is not what was typed (`tap("compose")` for `1`), or nil.
        var did: String? = nil
        /// Whether its lines typed a secret: they run again when time travels, but are never shown (``did``
        /// shows the steps they took, the secrets masked).
        var secret = false
        /// The random values it drew, in order (given to it again when time travels).
        var draws: [Int] = []
        /// Whether it changed the app's state (navigation, inputs, tree, gateway): the lines `:history` lists
        /// and `:undo` takes back.
        let changedState: Bool
        /// The scripts' texts it ran with (path → text): a reload between two lines is made again there.
        let sources: [String: String]
        /// The app saved after it ran, with the scripts' texts then, when it is a checkpoint.
        var checkpoint: Base?
    }

    /// Where travel starts once the first lines were dropped: the app after session line `line`, saved as
    /// a snapshot (nil: it could not be saved), and the scripts' texts then.
    struct Base {
        let line: Int
        let snapshot: String?
        let sources: [String: String]
    }

    /// The scripts' texts the session began with.
    var initialSources: [String: String] = [:]
    /// The most lines kept.
    var limit = LineHistory.defaultLimit
    /// How many lines a session keeps unless told otherwise: a long interactive day's.
    static let defaultLimit = 10_000
    /// Where travel starts when lines were dropped (nil: from the session's start).
    var base: Base?

    var entries: [Entry] = []
    /// How many entries the app is the result of (the rest were undone, and `:redo` takes them again).
    var cursor = 0
    /// Entries appended since the last checkpoint.
    private var sinceCheckpoint = 0

    /// Keeps a line that ran where the app is. One that changed the state ends the redo of the lines that
    /// were undone (they are dropped); one that did not (`=stack()`, `x = 5`) goes before them and keeps it.
    mutating func append(_ entry: Entry) {
        if entry.changedState { entries.removeSubrange(cursor...) }
        entries.insert(entry, at: cursor)
        cursor += 1
        sinceCheckpoint += 1
    }

    /// Whether the app should be saved after the newest line now (``checkpoint(_:)``): every quarter of
    /// the limit, when the app is the result of every line kept.
    var wantsCheckpoint: Bool { sinceCheckpoint >= max(limit / 4, 1) && cursor == entries.count && cursor > 0 }

    /// Saves the app after the newest line (`snapshot` nil: it could not be saved), then drops the oldest
    /// lines beyond the limit, up to a checkpoint.
    mutating func checkpoint(_ snapshot: String?, sources: [String: String]) {
        sinceCheckpoint = 0
        entries[cursor - 1].checkpoint = Base(line: entries[cursor - 1].number, snapshot: snapshot, sources: sources)
        let excess = entries.count - limit
        guard excess > 0, let last = entries[..<cursor].indices.first(where: { $0 >= excess - 1 && entries[$0].checkpoint != nil }) else { return }
        base = entries[last].checkpoint
        entries.removeSubrange(...last)
        cursor -= last + 1
    }

    /// The cursor before the last line that changed the state, or nil.
    var undoTarget: Int? { entries[..<cursor].lastIndex(where: \.changedState) }

    /// The cursor after the next line that changed the state, or nil.
    var redoTarget: Int? { entries[cursor...].firstIndex(where: \.changedState).map { $0 + 1 } }

    /// The cursor after session line `argument` (one of the lines that ran; 0: before any), or an error
    /// that lists the lines that changed the app.
    func cursor(afterLine argument: String) throws -> Int {
        guard let number = Int(argument) else { throw LuaError(.misuse, ":goto N goes to the state after session line N (:history lists them)") }
        if let base, number <= base.line {
            if number == base.line { return 0 }
            throw LuaError(.misuse, """
                line \(number) is before the lines kept: time travel starts after line \(base.line) (the REPL keeps \
                the last \(limit) lines)
                """)
        }
        if number == 0 {
            if let base { throw LuaError(.misuse, """
                time travel starts after line \(base.line), not at the session's start (the REPL keeps the last \
                \(limit) lines)
                """) }
            return 0
        }
        guard let index = entries.firstIndex(where: { $0.number == number }) else {
            let lines = entries.filter(\.changedState).map { String($0.number) }
            throw LuaError(
                .misuse,
                "line \(number) is not a line that ran" + (lines.isEmpty ? "" : " (lines that changed the app: \(lines.joined(separator: ", ")))")
            )
        }
        return index + 1
    }

    /// `:history`: the lines that changed the app, numbered by session line, the current point marked.
    func text(style: TextStyle) -> String {
        var text = ""
        if let base {
            text += style.dim("(time travel starts after line \(base.line): the REPL keeps the last \(limit) lines)") + "\n"
        }
        for (i, entry) in entries.enumerated() where entry.changedState {
            let current = i + 1 == cursor || (i < cursor && !entries[(i + 1)..<cursor].contains(where: \.changedState))
            let first = entry.did ?? entry.lines.first ?? ""
            let shown = first.count > 60 ? String(first.prefix(57)) + "..." : first
            let typed = entry.did == nil || entry.secret ? "" : style.dim("  (typed: " + (entry.lines.first ?? "") + ")")
            text += (current ? "* " : "  ") + String(entry.number).padding(to: 5) + shown + (entry.lines.count > 1 && entry.did == nil ? " ..." : "")
                + typed + (i >= cursor ? style.dim("  (undone)") : "") + "\n"
        }
        return text.isEmpty ? "(no line has changed the app yet)\n" : text
    }

    /// A fresh runtime (`make`, given the script texts to stand for the files) with the first `cursor` kept
    /// lines run again in it, from the saved base when there is one, the code changing under them as it
    /// did; then the code as it is `now`. The replay is one line of the session: `timeLimit` holds for it
    /// as a whole (making the runtime and every line), not for each line.
    func replay(to cursor: Int, making make: (_ sources: [String: String]) throws -> ScriptRuntime, now: [String: String],
                mode: REPL.Mode, sourceName: String, timeLimit: Double?) throws -> ScriptRuntime {
        let began = Clock.now()
        if let base, base.snapshot == nil {
            throw LuaError(.misuse, "time travel cannot go back: the lines up to \(base.line) are no longer kept, and the app could not be saved there")
        }
        let fresh = try make(base?.sources ?? initialSources)
        var code = base?.sources ?? initialSources
        var failure: String?
        let silent = REPL.Output(write: { _ in }, error: { failure = $0 })
        let replay = try REPL(runtime: fresh, mode: mode, style: .plain, output: silent)
        replay.sourceName = sourceName
        let remaining = timeLimit.map { max($0 - (Clock.now() - began), 0.001) }
        func outOfTime() -> Bool { timeLimit.map { Clock.now() - began >= $0 } ?? false }
        try fresh.silencingPrint { try fresh.lua.withTimeLimit(remaining) {
            if let snapshot = base?.snapshot {
                do { try fresh.restore(snapshot) } catch {
                    throw LuaError(.runtime, "time travel starts from the app as it was after line \(base?.line ?? 0), which does not restore now: \(error)")
                }
            }
            for entry in entries[..<cursor] {
                if entry.sources != code {
                    code = entry.sources
                    fresh.lua.sourceOverrides = code
                    _ = try fresh.reload()
                }
                replay.lineNumber = entry.number - 1
                fresh.app.draws.give(entry.draws)
                defer { fresh.app.draws.forgetGiven() }
                for line in entry.lines where !replay.handle(line) {
                    if outOfTime() {
                        throw LuaError(.interrupted, """
                            timed out replaying line \(entry.number): the time limit holds for the whole travel, so \
                            the app stays as it is
                            """)
                    }
                    throw LuaError(.runtime, "line \(entry.number) fails now, so the app stays as it is: \(failure ?? "?")")
                }
            }
            if now != code {
                fresh.lua.sourceOverrides = now
                _ = try fresh.reload()
            }
            fresh.lua.sourceOverrides = [:] // from now on, files are read from disk again
        } }
        return fresh
    }
}

extension REPL {
    /// Why time travel cannot make a fresh runtime of the REPL's app.
    package struct TimeTravelUnavailable: Error, CustomStringConvertible {
        /// What is missing.
        package let message: String
        /// A time-travel error with its message.
        package init(message: String) { self.message = message }
        package var description: String { message }
    }

    /// `:undo`: the app as it was before the last line that changed it.
    func undo() throws {
        guard let target = history.undoTarget else { throw LuaError(.misuse, "nothing to undo") }
        try travel(to: target)
    }

    /// `:redo`: the app after the next line that `:undo` took back.
    func redo() throws {
        guard let target = history.redoTarget else { throw LuaError(.misuse, "nothing to redo") }
        try travel(to: target)
    }

    /// `:goto N`: the app after session line N (one of the lines that ran; 0: before any).
    func goTo(_ argument: String) throws { try travel(to: history.cursor(afterLine: argument)) }

    /// Puts in place of the runtime a fresh one with the first `cursor` kept lines run again in it
    /// (``LineHistory/replay(to:making:now:mode:sourceName:timeLimit:)``). If a line fails there (the code
    /// changed under it), nothing changes and the error says which line.
    func travel(to cursor: Int) throws {
        let make = makeFreshRuntime ?? { [runtime] sources in try runtime.fresh(quiet: true, sources: sources) }
        let fresh = try history.replay(to: cursor, making: make, now: runtime.sources, mode: mode, sourceName: sourceName, timeLimit: timeLimit)
        try fresh.takeStorage(from: runtime) // the storage's store keeps the app the user now drives
        runtime = fresh
        events = EventLog(app: runtime.app)
        history.cursor = cursor
        recorder.travelled(madeBy: Set(history.entries[..<cursor].map(\.number)))
    }
}
