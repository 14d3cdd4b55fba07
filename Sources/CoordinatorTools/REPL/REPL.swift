import CoordinatorScript

/// A read-eval-print loop over a running app, without the terminal: the engine `coordrun` drives, and that
/// any host can drive with lines from anywhere (a debug console, a chat bot, a test).
///
/// It follows the stand-alone `lua` interpreter: ``handle(_:)`` is one turn of lua.c's `doREPL`. The line is
/// loaded (`loadline`: first as `return LINE`, so an expression prints its values; a chunk that is not
/// complete yet waits for more lines), called (`docall`: atomically, so a failing line leaves the app as
/// it was, and interruptibly, see ``CtrlC``), its values printed (`l_print`, through ``ValuePrinter``) and
/// its error reported (`report`). On top of Lua: the `:commands` (``MetaCommands``), run mode's shortcuts
/// (``Mode/run``), the visible screen shown after every line that changed it, and ``completions(for:lineBefore:)``.
///
/// ```swift
/// let repl = try REPL(runtime: runtime, mode: .repl) { text in print(text, terminator: "") }
/// repl.handle("tap('login', { name = 'Ann' })")   // the screen that follows is shown
/// repl.handle("=stack()")                         // { "Profile" }
/// repl.handle("for i = 1, 3 do")                  // incomplete: `isContinuing` is true
/// ```
public final class REPL {
    /// How lines are read.
    public enum Mode: Sendable {
        /// Walking the app: a number triggers that action, `back` is the system back, a line starting with
        /// an output's name emits it; anything else is Lua.
        case run
        /// Every line is Lua (`:N` triggers action N).
        case repl
    }

    /// Where the engine's text goes: what a line printed, and what it reported as an error.
    public struct Output {
        /// Writes text (ends with a newline when it ends a line).
        public var write: (String) -> Void
        /// Writes an error message (one message, without a trailing newline, unstyled: the host styles it
        /// for its stream).
        public var error: (String) -> Void
        /// Writes the values of an expression the line gave (`l_print`'s text, as `lua` prints them): the
        /// script's own text, which a host leaves as it is while it makes its own inert
        /// (``TextStyle/inert(_:)``). Nil: through ``write``.
        public var values: ((String) -> Void)?

        /// An output from its writers.
        public init(write: @escaping (String) -> Void, error: @escaping (String) -> Void, values: ((String) -> Void)? = nil) {
            self.write = write
            self.error = error
            self.values = values
        }
    }

    /// The runtime whose app the lines drive (time travel puts a fresh one in its place: see
    /// ``makeFreshRuntime``).
    public internal(set) var runtime: ScriptRuntime
    /// Makes a new runtime of the same app, started as the REPL's own was, for time travel (`:undo`,
    /// `:redo`, `:goto N`): the session's lines run again in it. It is given the texts its script files must
    /// have (set them as the Lua state's `LuaState.sourceOverrides` before loading the scripts).
    /// Nil: `ScriptRuntime.fresh(quiet:sources:)`.
    public var makeFreshRuntime: ((_ sources: [String: String]) throws -> ScriptRuntime)?
    /// The lines that ran, for time travel.
    var history = LineHistory()
    /// How lines are read.
    public let mode: Mode
    /// How text is styled (colour or plain).
    public let style: TextStyle
    let output: Output
    var events: EventLog
    /// The outputs named like a driver function whose note the session has shown (once a session: at the
    /// start of run mode, or with the first tap of the output that failed).
    var notedHiddenFunctions: Set<String> = []
    /// Lines of a Lua chunk that is not complete yet.
    var pending: [String] = []
    /// The most seconds one line may run (its Lua code, handlers and the rendering after it), or nil. A
    /// line that runs longer stops with a "timed out" error and leaves the app as it was (the runtime's own
    /// clock check, `LuaState.withTimeLimit(_:_:)`: REPLs on other threads keep theirs).
    public var timeLimit: Double?
    /// The most lines time travel keeps (10,000 by default): past it, the oldest are dropped, up to a point
    /// where the app was saved, and `:history` says where travel starts. Memory stays flat however long
    /// the session.
    package var historyLimit: Int {
        get { history.limit }
        set { history.limit = max(newValue, 1) }
    }
    /// The number of the line being handled (from 1), for messages: `stdin:N:` names the line of the
    /// session, not of the chunk.
    public internal(set) var lineNumber = 0
    /// The session line an incomplete chunk started on.
    var chunkStart = 1
    /// What it shows of the visible screen.
    var display = ScreenDisplay()
    /// The session's driving steps, and the test file they are written to (`:record`).
    let recorder = Recorder()
    /// Where the session's commands may write files (`:record`): anywhere but over a file the session did
    /// not write, by default. In a sandboxed runtime they write nothing.
    public var fileWrites = FileWrites.anywhere
    /// Whether the last line handled typed a secret (a payload an output declares secret): how many lines
    /// its chunk had, and what to show in their place (the steps it took, the secrets masked). A line
    /// editor keeps that in its history instead.
    package private(set) var typedSecret: (lines: Int, masked: String)?
    /// What messages call the session's lines: `stdin:12:` is its 12th line, as `lua` names what it reads.
    public var sourceName = "stdin"
    /// How hints name the command that runs a recorded test (`coordrun test x_test.lua`): as the user
    /// typed coordrun.
    public var commandName = "coordrun"

    /// A REPL over `runtime`. Installs the driver functions (`tap`, `back`, `top`, ...) in its Lua state if
    /// the runtime was made without them.
    public convenience init(runtime: ScriptRuntime, mode: Mode = .repl, style: TextStyle = .plain, output: Output) throws {
        try self.init(runtime: runtime, mode: mode, style: style, output: output, events: EventLog(app: runtime.app))
    }

    /// A REPL whose `:events` are `events`' (an event log made before the app started has its start too).
    package init(runtime: ScriptRuntime, mode: Mode = .repl, style: TextStyle = .plain, output: Output, events: EventLog) throws {
        self.runtime = runtime
        self.mode = mode
        self.style = style
        self.output = output
        self.events = events
        try runtime.installDriverFunctions()
        history.initialSources = runtime.sources
    }

    /// A REPL whose text and errors both go to `write`.
    public convenience init(runtime: ScriptRuntime, mode: Mode = .repl, style: TextStyle = .plain, write: @escaping (String) -> Void) throws {
        try self.init(runtime: runtime, mode: mode, style: style, output: Output(write: write, error: { write($0 + "\n") }))
    }

    var app: Application { runtime.app }

    /// True while a Lua chunk is incomplete and the next line continues it (`lua` shows `>>` then).
    public var isContinuing: Bool { !pending.isEmpty }

    /// The prompt for the next line: `> `, or `>> ` while a chunk continues; as in `lua`, the globals
    /// `_PROMPT` and `_PROMPT2` replace them (through `tostring`).
    public var prompt: String {
        let custom = try? runtime.lua.globals.get(isContinuing ? "_PROMPT2" : "_PROMPT", as: LuaValue.self)
        if let custom, custom != .nil { return custom.display }
        return isContinuing ? ">> " : "> "
    }

    /// One turn of the loop: runs `line`, prints its values or reports its error, and shows the visible screen
    /// if the line changed it. False when the line failed (the app is then exactly as before it).
    @discardableResult
    public func handle(_ line: String) -> Bool {
        lineNumber += 1
        if !isContinuing { chunkStart = lineNumber }
        let before = signature
        let changesBefore = app.changeCount, sourcesBefore = runtime.sources, reloadsBefore = runtime.reloadCount
        let lines = pending + [line], number = chunkStart
        let secrets = SecretLine.Watch(app: app)
        var masked: String?
        defer { typedSecret = masked.map { (lines.count, $0) } }
        // The random values the line drew: time travel gives them to it again, a recorded test before its step.
        let draws = app.draws
        var drawn: [Int] = []
        draws.observer = { drawn.append($0) }
        defer { draws.observer = nil }
        let outcome = runtime.lua.interruptible { runtime.lua.withTimeLimit(timeLimit) {
            let declarations = runtime.appDeclarations
            let unheard = app.unheard.count, unheardSignals = app.unheardSignals.count, taps = app.input.tapsTaken
            let failedLaters = app.failedLaters.count
            var outcome = dispatch(line)
            var ok = outcome.ok
            if ok, app.failedLaters.count != failedLaters, let last = app.failedLaters.last {
                // The step stands, the later's own changes undone: the line says why it failed.
                let more = app.failedLaters.count &- failedLaters &- 1
                output.error("error: a later of \(last.owner) failed: \(last.message)" + (more > 0 ? " (and \(more) more)" : ""))
            }
            if ok, !drawn.isEmpty, let step = outcome.step { outcome.step = drawn.map { "random(\($0)) " }.joined() + step }
            if let typed = secrets.line(succeeded: ok) { (masked, outcome.step) = (typed.shown, typed.recorded) }
            if ok, let step = outcome.step, signature != before { recorder.note(step, line: number, stack: app.window.visibleNames) }
            if ok, app.unheard.count != unheard, let last = app.unheard.last {
                // A tap is never a silent no-op: `tap('reset')` on a screen whose handler is missing says so.
                let more = app.unheard.count &- unheard &- 1
                output.write(style.dim("(nothing handles \(last.output) on \(last.screen)" + (more > 0 ? ", and \(more) more" : "") + ")") + "\n")
            } else if ok, app.input.tapsTaken != taps, signature == before {
                output.write(style.dim("(the tap changed nothing on screen)") + "\n")
            }
            if ok, app.unheardSignals.count != unheardSignals, let last = app.unheardSignals.last {
                // A signal nothing hears is said as a tap nothing handles is.
                let more = app.unheardSignals.count &- unheardSignals &- 1
                output.write(style.dim("(nothing hears the signal \(last.signal) from \(last.sender)" + (more > 0 ? ", and \(more) more" : "") + ")") + "\n")
            }
            if ok && app.root == nil && runtime.appDeclarations != declarations && runtime.declaresApplication {
                // `flow.app(App)` typed at the prompt (or in a chunk the line ran) starts that app.
                do { try runtime.start() } catch { report(error); ok = false }
            }
            if signature != before || outcome.redraw { show() } // rendering runs Lua too: Ctrl-C stops it as well
            else if runtime.reloadCount != reloadsBefore { showIfRedrawn() }
            if ok, app.changeCount != changesBefore { warnOfBrokenInvariants() }
            outcome.ok = ok
            return outcome
        } }
        let ok = outcome.ok
        if ok, outcome.replayable {
            let did = masked ?? outcome.step.flatMap { $0 == lines.joined(separator: "\n  ") ? nil : $0 }
            history.append(LineHistory.Entry(number: number, lines: lines, did: did, secret: masked != nil, draws: drawn,
                                             changedState: app.changeCount != changesBefore, sources: sourcesBefore))
            if history.wantsCheckpoint {
                history.checkpoint(try? runtime.snapshot(), sources: runtime.sources)
                if let base = history.base { recorder.keep(after: base.line, base: base.snapshot) }
            }
        }
        return ok
    }

    /// After a line that changed the app: a warning for each invariant the scripts declare (`flow.invariant`)
    /// that does not hold now (the line stands: the REPL is where the app is explored by hand).
    private func warnOfBrokenInvariants() {
        let results: [PropertyResult]
        do { results = try runtime.checkInvariants() } catch { return report(error) }
        for broken in results where !broken.holds {
            output.error("warning: invariant '\(TextStyle.inert(broken.name))' (\(broken.location)) does not hold"
                         + (broken.failure.map { ": " + TextStyle.inert($0) } ?? "") + "\n")
        }
    }

    /// At the end of input with a chunk still open: reports its syntax error (false), as `lua` does.
    public func endOfInput() -> Bool {
        if recorder.isRecording { try? recorder.stop() }
        guard isContinuing else { return true }
        let lines = pending
        pending = []
        do {
            _ = try runtime.lua.load(lines.joined(separator: "\n"), name: chunkName)
            return true
        } catch {
            report(error)
            return false
        }
    }

    /// Drops the incomplete chunk (Ctrl-C at a `>>` prompt).
    public func cancelPending() { pending = [] }

    /// ``show()`` under the limits a line runs under (``timeLimit``, Ctrl-C): the first screen's rendering
    /// is the app's code as much as any line's, and a rendering that never ends is stopped.
    package func showUnderLimits() {
        runtime.lua.interruptible { runtime.lua.withTimeLimit(timeLimit) { show() } }
    }

    /// Shows the visible screen: its title, rendering and numbered actions, and the stack below it.
    public func show() { output.write(display.text(of: app, mode: mode, style: style)) }

    /// Shows the visible screen again when a reload changed its text (its rendering function, or a
    /// function that one calls).
    func showIfRedrawn() { if display.isRedrawn(app) { show() } }

    /// Runs the app's scripts again (`ScriptRuntime.reload(fresh:)`) and prints what changed, or the error;
    /// the visible screen is drawn again when that changed its text.
    @discardableResult
    public func reload() -> Bool {
        do {
            output.write(style.dim(try runtime.reload().description) + "\n")
            showIfRedrawn()
            return true
        } catch {
            report(error)
            return false
        }
    }

    /// Runs `body` as one operation of the app that also renders the screen it leaves visible when that
    /// changed: a rendering that fails fails the line, and the app is as before it.
    func operation<R>(_ body: () throws -> R) throws -> R {
        let before = signature
        return try app.atomicallyRendering(changed: { self.signature != before }, rendered: { self.display.rendered = ($0.id, $1) }, body)
    }

    /// What the user sees: changes when the screen, its inputs or the hierarchy change. Costs the number
    /// of containers, whatever the stacks hold (the hierarchy as its persistent name lists: a push then a
    /// pop gives back the same list).
    var signature: VisibleSignature {
        let screen = app.window.visibleScreen
        // Beside a split's columns, each column's top screen is seen: its input changes count too.
        let renders = app.window.visibleSplit.map { $0.columnTops.reduce(0) { $0 &+ $1.screen.renderCount } } ?? screen?.renderCount ?? 0
        return VisibleSignature(screen: screen?.id ?? 0, renders: renders, stacks: app.window.visibleNames, width: app.window.sizeClass)
    }

    /// A line: an open chunk continues, `:` starts a command, run mode's shortcuts, else Lua. What it did.
    func dispatch(_ rawLine: String) -> LineOutcome {
        let line = rawLine.trimmed
        do {
            if isContinuing { return try doString(pending + [rawLine]) }
            guard !line.isEmpty else { return LineOutcome() }
            if line.hasPrefix(":") { return try command(String(line.dropFirst())) }
            if mode == .run, let outcome = try runModeLine(line) { return outcome }
            return try doString([rawLine])
        } catch {
            pending = []
            report(error)
            return LineOutcome(ok: false)
        }
    }

    /// lua.c's `report`: the error's message (with its traceback when it has one).
    func report(_ error: any Error) {
        output.error(located(REPL.message(for: error), error))
    }

    /// The message with its place in the session: each `input#N:L:` (a line of the chunk that began on
    /// session line N, the traceback included) becomes `stdin:(N+L-1):`; an error of the line itself (a
    /// command, a navigation mistake) gets `stdin:N:` (``sourceName``).
    func located(_ message: String, _ error: any Error) -> String {
        SessionPlace(source: sourceName, line: lineNumber).located(message, error)
    }

    /// The text a REPL shows for an error: a Lua error's message with its traceback, or `error: ` and the
    /// error's description. A navigation mistake made by the line itself (`tap("nope")` typed at the
    /// prompt: no frame of the app's code between the prompt and the driver function) is its message alone,
    /// which says everything the traceback would.
    package static func message(for error: any Error) -> String {
        if let lua = error as? LuaError {
            if lua.navigationError != nil, let traceback = lua.traceback, madeAtThePrompt(traceback) { return lua.message }
            return lua.fullDescription
        }
        return "error: \(error)"
    }

    /// Whether a traceback runs through nothing but C functions and the main chunk of a line typed at the
    /// prompt (a function defined there keeps its traceback, as the app's code does).
    private static func madeAtThePrompt(_ traceback: String) -> Bool {
        traceback.split(separator: "\n").dropFirst().allSatisfy { frame in
            let place = frame.drop { $0 == "\t" || $0 == " " }
            return place.hasPrefix("[C]:") || (place.hasPrefix("input#") && place.hasSuffix(": in main chunk"))
        }
    }
}

/// What a line did, as the turn that ran it reads it (each way a line runs returns one: ``REPL/dispatch(_:)``).
struct LineOutcome {
    /// False when the line failed: the app is as before it.
    var ok = true
    /// Whether time travel runs the line again: a Lua chunk that ran, a run-mode action, `:N` (other
    /// commands and an incomplete chunk's lines are not lines of the app).
    var replayable = false
    /// The line as a step of a recorded test, when it drove the app.
    var step: String?
    /// Whether the visible screen is shown after the line even if it looks unchanged (time travel put
    /// another app in place).
    var redraw = false
}

/// The visible screen, how often it rendered, and each visible stack's names (equal when they are the
/// same list, which a push then a pop gives back, or hold the same screens).
struct VisibleSignature: Equatable {
    let screen: Int
    let renders: Int
    let stacks: [ScreenNames?]
    let width: SizeClass

    static func == (a: VisibleSignature, b: VisibleSignature) -> Bool {
        a.screen == b.screen && a.renders == b.renders && a.width == b.width && a.stacks.count == b.stacks.count
            && zip(a.stacks, b.stacks).allSatisfy { ScreenNames.same($0, $1) }
    }
}

/// Where a REPL's messages put an error: on the session's lines (`stdin:14:`), `source` being what the
/// session's lines are called and `line` the line being handled.
struct SessionPlace {
    let source: String
    let line: Int

    func located(_ message: String, _ error: any Error) -> String {
        guard message.hasPrefix("error: ") || (error as? LuaError)?.location == nil else {
            var result = ""
            var rest = Substring(message)
            while let range = rest.firstRange(of: "input#") {
                result += rest[..<range.lowerBound]
                rest = rest[range.upperBound...]
                let start = rest.prefix { $0.isASCII && $0.isNumber }
                let afterStart = rest.dropFirst(start.count)
                let line = afterStart.dropFirst().prefix { $0.isASCII && $0.isNumber }
                if let first = Int(start), let offset = Int(line), afterStart.first == ":",
                   afterStart.dropFirst(1 + line.count).first == ":" {
                    result += "\(source):\(first + offset - 1)"
                    rest = afterStart.dropFirst(1 + line.count)
                } else {
                    result += "input#"
                }
            }
            return result + rest
        }
        let text = message.hasPrefix("error: ") ? String(message.dropFirst("error: ".count)) : message
        return "\(source):\(line): " + text
    }
}
