import CoordinatorCore
import CoordinatorScript
import LuaKit

/// Interprets one line at a time against the running app: run-mode shortcuts, `:commands`, and Lua chunks
/// (with continuation lines for incomplete input).
final class Driver {
    enum Mode { case run, repl }

    let runtime: ScriptRuntime
    let terminal: Terminal
    let mode: Mode
    let events: EventLog
    /// Lines of a Lua chunk that is not complete yet.
    private var pending: [String] = []

    init(runtime: ScriptRuntime, terminal: Terminal, mode: Mode) {
        self.runtime = runtime
        self.terminal = terminal
        self.mode = mode
        self.events = EventLog(app: runtime.app)
    }

    var app: Application { runtime.app }
    var isContinuing: Bool { !pending.isEmpty }

    /// What the user sees: changes when the screen, its inputs or the hierarchy change.
    var signature: String {
        let screen = app.window.visibleScreen
        return "\(screen?.id ?? 0):\(screen?.renderCount ?? 0):\(app.window.visibleStack.map(\.id))"
    }

    struct Action {
        let label: String
        let output: String
        let payload: FlowValue?
    }

    /// The numbered actions of the visible screen: outputs without payload, each item of a choice output's
    /// list, and outputs that take any value (which need a payload typed after their name).
    func actions(of screen: Screen) -> [Action] {
        screen.outputs.flatMap { output -> [Action] in
            switch output.payload {
            case .none: [Action(label: output.name, output: output.name, payload: nil)]
            case .choice(let from):
                (screen[from]?.list ?? []).map { Action(label: "\($0.displayText)  (\(output.name))", output: output.name, payload: $0) }
            case .value: [Action(label: "\(output.name) PAYLOAD", output: output.name, payload: nil)]
            }
        }
    }

    func show() {
        guard let screen = app.window.visibleScreen else {
            terminal.write(terminal.bold("(no screen is showing)") + "\n")
            return
        }
        var text = terminal.bold("== \(screen.title)" + (screen.title == screen.name ? "" : " (\(screen.name))") + " ==") + "\n"
        let body = screen.render()
        if !body.isEmpty { text += body + "\n" }
        for (i, action) in actions(of: screen).enumerated() {
            text += "  " + terminal.accent("\(mode == .repl ? ":" : "")\(i + 1).") + " " + action.label + "\n"
        }
        text += terminal.dim("stack: " + app.window.visibleStack.map(\.name).joined(separator: " > ")) + "\n"
        terminal.write(text)
    }

    /// Runs one line; false when it failed.
    func handle(_ rawLine: String) -> Bool {
        let line = rawLine.trimmingCharacters(in: " \t")
        do {
            if !pending.isEmpty { return try evaluate(pending + [rawLine]) }
            guard !line.isEmpty else { return true }
            if line.hasPrefix(":") {
                try command(String(line.dropFirst()))
            } else if mode == .run, let number = Int(line) {
                try tapAction(number)
            } else if mode == .run, line == "back" {
                try app.back()
            } else if mode == .run, let (output, rest) = outputCommand(line) {
                let payload = rest.isEmpty ? nil : try runtime.lua.evaluate("return " + rest, name: "payload", as: FlowValue?.self)
                try app.tap(output, payload: payload)
            } else {
                return try evaluate([rawLine])
            }
            return true
        } catch {
            pending = []
            terminal.error(describe(error))
            return false
        }
    }

    /// At the end of input with a chunk still open: its syntax error.
    func finishPending() -> Bool {
        let lines = pending
        pending = []
        do {
            _ = try runtime.lua.load(lines.joined(separator: "\n"), name: "input")
            return true
        } catch {
            terminal.error(describe(error))
            return false
        }
    }

    func cancelPending() { pending = [] }

    func tapAction(_ number: Int) throws {
        guard let screen = app.window.visibleScreen else { throw NavigationError(.noVisibleScreen, "no screen is visible") }
        let actions = actions(of: screen)
        guard actions.indices.contains(number - 1) else {
            throw NavigationError(.unknownOutput, "there is no action \(number)" + (actions.isEmpty ? " (this screen has none)" : " (1-\(actions.count))"))
        }
        let action = actions[number - 1]
        if case .value = screen.outputs.first(where: { $0.name == action.output })?.payload {
            throw NavigationError(.badPayload, "\(action.output) needs a payload: type `\(action.output) { ... }`")
        }
        try app.tap(action.output, payload: action.payload)
    }

    /// `OUTPUT` or `OUTPUT payload` when the first word names an output of the visible screen.
    func outputCommand(_ line: String) -> (String, String)? {
        guard let screen = app.window.visibleScreen else { return nil }
        let word = String(line.prefix { !$0.isWhitespace && $0 != "(" && $0 != "{" })
        guard !word.isEmpty, screen.outputs.contains(where: { $0.name == word }) else { return nil }
        return (word, String(line.dropFirst(word.count)).trimmingCharacters(in: " \t"))
    }

    /// A Lua chunk: an expression's values are printed (as `lua` does), a statement is run; a chunk that
    /// is incomplete waits for more lines. True when it ran or waits.
    func evaluate(_ lines: [String]) throws -> Bool {
        var code = lines.joined(separator: "\n")
        if code.hasPrefix("=") { code = "return " + code.dropFirst() }
        let chunk: LuaFunction
        if let expression = try? runtime.lua.load("return " + code, name: "input") {
            chunk = expression
        } else {
            do {
                chunk = try runtime.lua.load(code, name: "input")
            } catch let error as LuaError where error.isIncompleteInput {
                pending = lines
                return true
            }
        }
        pending = []
        let results = try app.atomically { try chunk.callValues() }
        if !results.isEmpty { terminal.write(results.map { Printer.format($0) }.joined(separator: "\t") + "\n") }
        return true
    }

    func reload() {
        do {
            terminal.write(terminal.dim(try runtime.reload().description) + "\n")
        } catch {
            terminal.error(describe(error))
        }
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        var s = Substring(self)
        while let f = s.first, chars.contains(f) { s.removeFirst() }
        while let l = s.last, chars.contains(l) { s.removeLast() }
        return String(s)
    }
}
