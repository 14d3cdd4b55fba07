#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import CoordinatorScript

/// The lines of a session that drove the app, written as a flow test (`:record FILE`, `:record stop`): each
/// step as Lua (`tap("login", { ... })`, `back()`, or the Lua line as typed), followed by an expectation of
/// the stack it left. The steps of the session before `:record` come first, so the file replays from a
/// fresh app: `coordrun test FILE` passes on the unchanged app and fails, at the step, after a change that
/// alters the flow.
final class Recorder {
    /// The driving steps of the session so far, as Lua, each with the session line it came from and the
    /// stack it left (as the visible stacks' persistent name lists: a step costs the same whatever the
    /// depth). Bounded as time travel's lines are (``keep(after:base:)``).
    private(set) var steps: [(code: String, line: Int, stack: [ScreenNames?])] = []
    /// Where the kept steps start when the session's first ones were dropped: the app as it was then, as
    /// a snapshot (a recorded test restores it first), or nil when it could not be saved.
    private var base: (line: Int, snapshot: String?)?
    private var file: Int32?
    private(set) var path: String?
    /// The first write that failed while recording (told at ``stop()``).
    private var failure: String?
    /// The files the session's recordings wrote (device and inode): the only existing files a recording
    /// may write over.
    private var written: Set<FileWrites.FileID> = []

    /// The session lines the app is the result of, once time travel moved it (nil: every line noted):
    /// after `:undo` or `:goto`, the steps of the lines taken back are no part of the app a recording
    /// replays (`:redo` brings them back).
    private var madeBy: Set<Int>?
    /// The start of the test file being written, for writing it again after time travel.
    private var header = ""

    var isRecording: Bool { file != nil }

    /// The steps that made the app as it is now, oldest first.
    var current: [(code: String, line: Int, stack: [ScreenNames?])] {
        guard let madeBy else { return steps }
        return steps.filter { madeBy.contains($0.line) }
    }

    /// Notes a step that drove the app (and writes it when recording).
    func note(_ code: String, line: Int, stack: [ScreenNames?]) {
        steps.removeAll { madeBy?.contains($0.line) == false } // taken back and now replaced: no redo brings them back
        steps.append((code, line, stack))
        madeBy?.insert(line)
        guard let file, failure == nil else { return }
        do { try write(step: (code, line, stack), to: file) } catch { failure = "\(error)" }
    }

    /// Time travel made the app the result of the session lines `lines` (the others were taken back): a
    /// recording under way is written again with the steps of those lines alone.
    func travelled(madeBy lines: Set<Int>) {
        madeBy = lines
        guard let file, failure == nil else { return }
        do {
            guard ftruncate(file, 0) == 0, lseek(file, 0, SEEK_SET) == 0 else { throw RecordingError(message: String(cString: strerror(errno))) }
            try Recorder.put(header, file)
            for step in current { try write(step: step, to: file) }
        } catch { failure = "\(error)" }
    }

    /// Drops the steps of session lines up to `line`: the app after them is `snapshot`, which a test
    /// recorded from now on restores first.
    func keep(after line: Int, base snapshot: String?) {
        steps.removeSubrange(..<(steps.firstIndex(where: { $0.line > line }) ?? steps.count))
        base = (line, snapshot)
    }

    /// Starts writing to `path` where `writes` lets it: the header, the app, the steps so far.
    func start(_ path: String, app script: String?, command: String, writes: FileWrites) throws {
        if let base, base.snapshot == nil {
            throw RecordingError(message: """
                cannot record from the session's start: its steps up to line \(base.line) are no longer kept, and the \
                app could not be saved there
                """)
        }
        if isRecording { try stop() }
        let (file, path) = try writes.open(path, written: &written)
        var header = "-- Recorded by coordrun's :record: \(command) test \(path) replays it.\n"
        if let script { header += "app \(Recorder.quoted(Recorder.relative(script, to: path)))\n" }
        header += "\ntest(\"recorded session\", function()\n"
        if let base, let snapshot = base.snapshot {
            header += "  -- The session's steps up to its line \(base.line) are no longer kept: the app as they left it.\n"
            header += "  restore(" + Recorder.quoted(snapshot) + ")\n"
        }
        do {
            try Recorder.put(header, file)
            for step in current { try write(step: step, to: file) }
        } catch {
            close(file)
            throw RecordingError(message: "cannot write \(path): \(error)")
        }
        self.file = file
        self.path = path
        self.header = header
        failure = nil
    }

    /// Ends the test and closes the file.
    func stop() throws {
        guard let file else { throw RecordingError(message: "nothing is being recorded") }
        self.file = nil
        var failure = self.failure
        do { try Recorder.put("end)\n", file) } catch { failure = failure ?? "\(error)" }
        if close(file) != 0 { failure = failure ?? String(cString: strerror(errno)) }
        if let failure { throw RecordingError(message: "\(path ?? "the recording") is incomplete: a write failed (\(failure))") }
    }

    private func write(step: (code: String, line: Int, stack: [ScreenNames?]), to file: Int32) throws {
        let names = step.stack.flatMap { $0?.bottomFirst ?? [] }
        try Recorder.put("  " + step.code + "\n  expect.stack { " + names.map(Recorder.quoted).joined(separator: ", ") + " }\n", file)
    }

    struct RecordingError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// Writes all of `text` to `file`, or throws what the system said.
    static func put(_ text: String, _ file: Int32) throws {
        var bytes = Array(text.utf8)
        while !bytes.isEmpty {
            let written = Glibc.write(file, bytes, bytes.count)
            if written < 0 {
                if errno == EINTR { continue }
                throw RecordingError(message: String(cString: strerror(errno)))
            }
            bytes.removeFirst(written)
        }
    }

    /// A Lua string literal.
    static func quoted(_ text: String) -> String { LuaSyntax.quoted(text) }

    /// `script` as the test file at `testFile` names it: relative to the test file's folder (`app.lua`,
    /// `../app.lua`), or the script's absolute path when the two share no folder but the root.
    static func relative(_ script: String, to testFile: String) -> String {
        func absolute(_ path: String) -> [Substring] {
            URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path.split(separator: "/")
        }
        let folder = absolute(LuaState.directory(of: testFile)), target = absolute(script)
        var shared = 0
        while shared < folder.count, shared < target.count - 1, folder[shared] == target[shared] { shared += 1 }
        guard shared > 0 else { return "/" + target.joined(separator: "/") }
        return (Array(repeating: "..", count: folder.count - shared) + target[shared...]).joined(separator: "/")
    }
}
