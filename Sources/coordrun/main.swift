import ArgumentParser
import CoordinatorCore
import CoordinatorScript
import LuaKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
struct CoordRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordrun",
        abstract: "Walk a Lua coordinator app in the terminal.",
        discussion: """
            Shows the visible screen, then reads one line at a time:
              NUMBER            triggers that numbered action (list items of choice outputs are actions too)
              back              the system back: Back button on a stack, swipe-down on a modal
              OUTPUT [PAYLOAD]  the visible screen emits OUTPUT; PAYLOAD is a Lua expression
              anything else     a Lua chunk, with tap(), back(), top(), stack(), tree() available;
                                an expression's values are printed
            A line that fails is reported with its location and leaves the app exactly as it was.
            Without a terminal on standard input there are no prompts or colours, the screen is printed
            after every change, and the exit status is 1 if any line failed.
            """,
        version: "0.2.0"
    )

    @Argument(help: "The app's main Lua script.")
    var script: String

    @Option(help: "The gateway state to start in (authorization, main, or any state the app declares).")
    var state: String = "authorization"

    func run() throws {
        let interactive = isatty(0) != 0
        let dumb = getenv("TERM").map { String(cString: $0) == "dumb" } ?? false
        let terminal = Terminal(colour: interactive && isatty(1) != 0 && getenv("NO_COLOR") == nil && !dumb)
        let runtime: ScriptRuntime
        do {
            runtime = try ScriptRuntime(state: AppState(state))
            try runtime.load(script: script)
            try runtime.start()
        } catch {
            terminal.error(describe(error))
            throw ExitCode.failure
        }
        let driver = Driver(runtime: runtime, terminal: terminal)
        driver.show()
        var failed = false
        while true {
            if interactive { terminal.prompt("> ") }
            guard let line = readLine(strippingNewline: true) else { break }
            let before = driver.signature
            if !driver.handle(line) { failed = true }
            if driver.signature != before { driver.show() }
        }
        if interactive { terminal.write("\n") }
        if failed && !interactive { throw ExitCode.failure }
    }
}

/// Interprets one line at a time against the running app.
final class Driver {
    let runtime: ScriptRuntime
    let terminal: Terminal

    init(runtime: ScriptRuntime, terminal: Terminal) {
        self.runtime = runtime
        self.terminal = terminal
    }

    var app: Application { runtime.app }

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
            text += "  " + terminal.accent("\(i + 1).") + " " + action.label + "\n"
        }
        text += terminal.dim("stack: " + app.window.visibleStack.map(\.name).joined(separator: " > ")) + "\n"
        terminal.write(text)
    }

    /// Runs one line; false when it failed.
    func handle(_ rawLine: String) -> Bool {
        let line = rawLine.trimmingCharacters(in: " \t")
        guard !line.isEmpty else { return true }
        do {
            if let number = Int(line) {
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
            } else if line == "back" {
                try app.back()
            } else if let (output, rest) = outputCommand(line) {
                let payload = rest.isEmpty ? nil : try runtime.lua.evaluate("return " + rest, name: "payload", as: FlowValue?.self)
                try app.tap(output, payload: payload)
            } else {
                try evaluate(line)
            }
            return true
        } catch {
            terminal.error(describe(error))
            return false
        }
    }

    /// `OUTPUT` or `OUTPUT payload` when the first word names an output of the visible screen.
    func outputCommand(_ line: String) -> (String, String)? {
        guard let screen = app.window.visibleScreen else { return nil }
        let word = String(line.prefix { !$0.isWhitespace && $0 != "(" && $0 != "{" })
        guard !word.isEmpty, screen.outputs.contains(where: { $0.name == word }) else { return nil }
        return (word, String(line.dropFirst(word.count)).trimmingCharacters(in: " \t"))
    }

    /// A Lua chunk: an expression's values are printed (as `lua` does), a statement is run.
    func evaluate(_ line: String) throws {
        let code = line.hasPrefix("=") ? "return " + line.dropFirst() : line
        let results: [LuaValue]
        if (try? runtime.lua.load("return " + code, name: "input")) != nil {
            results = try runtime.run("return " + code, name: "input")
        } else {
            results = try runtime.run(code, name: "input")
        }
        if !results.isEmpty { terminal.write(results.map(format).joined(separator: "\t") + "\n") }
    }

    func format(_ value: LuaValue) -> String {
        switch value {
        case .string(let s): return s.string
        case .table:
            if let data = try? FlowValue(lua: value) { return data.description }
            return value.description
        case .userdata(let u):
            if let screen = u.object(as: Screen.self) { return "Screen \(screen.info)" }
            return value.description
        default: return value.description
        }
    }
}

func describe(_ error: any Error) -> String {
    if let lua = error as? LuaError { return lua.fullDescription }
    return "error: \(error)"
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

/// Output with optional colour, written straight to the file descriptors so that standard output and
/// standard error appear in the order they were produced.
struct Terminal {
    let colour: Bool

    func write(_ text: String) { writeAll(1, text) }

    func prompt(_ text: String) { writeAll(1, accent(text)) }

    func error(_ text: String) { writeAll(2, (colour ? "\u{1B}[31m" + text + "\u{1B}[0m" : text) + "\n") }

    func bold(_ s: String) -> String { colour ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
    func accent(_ s: String) -> String { colour ? "\u{1B}[36m\(s)\u{1B}[0m" : s }
    func dim(_ s: String) -> String { colour ? "\u{1B}[2m\(s)\u{1B}[0m" : s }
}

/// Writes every byte of `text` to a file descriptor.
func writeAll(_ fd: Int32, _ text: String) {
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
