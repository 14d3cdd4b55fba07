import CoordinatorScript

/// The app as a web preview shows it and drives it (`coordrun serve`): the visible screen as a person sees
/// it (its title, text, inputs and actions, the tab bar, a modal, an alert), what is around it (the
/// coordinator tree, the hierarchy, the navigation events, the time-travel history), and the actions a page
/// offers.
///
/// Every action is a line of the session's ``REPL`` (`:3`, `back()`, `tap("login", {...})`,
/// `open("shop://cart")`, `:undo`), so a session clicked in a browser is in `:history` and `:record` writes
/// it as a flow test; a failing action is reported as the REPL reports it, and the app is as before it.
///
/// Not thread-safe: one isolation domain owns it (the server's actor), which serializes the actions of every
/// page on the same session.
public final class PreviewSession {
    /// The session's REPL, whose lines the actions are.
    public let repl: REPL
    /// Counts the states shown: each action and reload makes the next.
    public private(set) var revision = 0
    private var lastText = ""
    private var lastError: String?
    private var lastReload: String?
    /// The app's flow graph, when one was drawn (the page asks for it): the state names the node the app
    /// shows now (`graphNode`).
    public var flowGraph: FlowGraph? { didSet { revision += 1 } }
    /// The most bytes an action's text may hold (a payload, a link, a snapshot to restore): 8 MiB.
    public static let maximumActionBytes = 8 << 20

    /// A preview over `repl` (made over the running app; its output must go to ``capture(text:)`` and
    /// ``capture(error:)``).
    public init(repl: REPL) {
        self.repl = repl
    }

    /// Takes the text a line printed (the REPL's `Output.write`).
    public func capture(text: String) { lastText += text }
    /// Takes an error a line reported (the REPL's `Output.error`).
    public func capture(error: String) { lastError = (lastError.map { $0 + "\n" } ?? "") + error }

    /// What a page asked for that is not an action: the message says what is wrong, and nothing changed.
    public struct BadAction: Error, CustomStringConvertible, Sendable {
        /// What is wrong with the request.
        public let message: String
        /// A refusal saying `message`.
        public init(message: String) { self.message = message }
        public var description: String { message }
    }

    /// Runs the action a page sent, as JSON: `{"action": "choose", "number": 3}` (action N of the visible
    /// screen), `{"action": "tap", "output": "login", "payload": "{ name = 'Ann' }"}` (a Lua expression),
    /// `{"action": "back"}`, `"dismiss"`, `{"action": "tab", "number": 2}`, `{"action": "open", "url": ...}`,
    /// `"undo"`, `"redo"`, `{"action": "goto", "line": 4}`, `{"action": "restore", "snapshot": JSON}`,
    /// `"reload"`, `{"action": "lua", "code": ...}`. Returns the state after it (``state``), which says
    /// whether the line failed; throws ``BadAction`` for a request that is not one of these (nothing runs).
    public func perform(json: String) throws -> String {
        guard json.utf8.count <= Self.maximumActionBytes else {
            throw BadAction(message: "the action is \(json.utf8.count) bytes, over the \(Self.maximumActionBytes >> 20) MiB an action may hold")
        }
        let request: FlowValue
        do { request = try FlowValue(json: json) } catch { throw BadAction(message: "the action is not JSON: \(error.message)") }
        let line = try Self.line(for: request)
        (lastText, lastError, lastReload) = ("", nil, nil)
        repl.handle(line)
        if line == ":reload" { lastReload = lastText }
        revision += 1
        return state
    }

    /// The REPL line an action is.
    static func line(for request: FlowValue) throws -> String {
        guard case .record = request, let action = request["action"]?.stringValue else {
            throw BadAction(message: "an action is a JSON object with an \"action\" field")
        }
        func string(_ field: String) throws -> String {
            guard let value = request[field]?.stringValue else { throw BadAction(message: "the \(action) action needs a string \"\(field)\"") }
            return value
        }
        func number(_ field: String, from minimum: Int) throws -> Int {
            guard let value = request[field]?.intValue, value >= minimum, value < 1 << 31 else {
                throw BadAction(message: "the \(action) action needs a number \"\(field)\" from \(minimum)")
            }
            return value
        }
        switch action {
        case "choose": return ":\(try number("number", from: 1))"
        case "tap":
            let output = try string("output")
            guard !output.isEmpty else { throw BadAction(message: "the tap action names an output") }
            let payload = request["payload"]?.stringValue ?? ""
            if payload.contains("\n") { throw BadAction(message: "a payload is one Lua expression on one line") }
            return "tap(" + LuaSyntax.quoted(output) + (payload.trimmed.isEmpty ? "" : ", (" + payload + ")") + ")"
        case "back": return "back()"
        case "dismiss": return "dismiss()"
        case "tab": return "tab(\(try number("number", from: 1)))"
        case "open": return "open(" + LuaSyntax.quoted(try string("url")) + ")"
        case "undo": return ":undo"
        case "redo": return ":redo"
        case "goto": return ":goto \(try number("line", from: 0))"
        case "restore": return "restore(" + LuaSyntax.quoted(try string("snapshot")) + ")"
        case "reload": return ":reload"
        case "lua":
            let code = try string("code")
            if code.contains("\n") { throw BadAction(message: "a Lua line is one line") }
            return code
        default:
            throw BadAction(message: "unknown action '\(action)' (choose, tap, back, dismiss, tab, open, undo, redo, goto, restore, reload, lua)")
        }
    }

    /// The scripts were saved: reloads them as `:reload` does (the app's state kept) and gives the report.
    public func reload() -> String {
        (lastText, lastError, lastReload) = ("", nil, nil)
        repl.handle(":reload")
        lastReload = lastText
        revision += 1
        return state
    }

    /// The whole app as a page shows it, as JSON: `revision`; `screen` (`name`, `title`, `text`, `inputs` as
    /// Lua, `modal`, `alert` with its own `title` and `message`) or null; `actions` (`number`, `label`, `output`, `kind`:
    /// `tap`, `item` or `value`, `examples` as Lua, `secret` when its payload holds one); `tabs` (`title`, `badge`, `selected`); `stack`; `tree` and
    /// `hierarchy` as text; `events`; `history` (`line`, `text`, `current`, `undone`); `graphNode`, the node of
    /// ``flowGraph`` shown now; and what the last
    /// action printed (`output`), reported (`error`, with its place) and reloaded (`reload`).
    public var state: String {
        let app = repl.runtime.app
        var document: FlowRecord = ["revision": .int(revision), "output": .string(lastText)]
        document["error"] = lastError.map(FlowValue.string)
        document["reload"] = lastReload.map(FlowValue.string)
        if let screen = app.window.visibleScreen {
            var shown: FlowRecord = ["name": .string(screen.name), "id": .int(screen.id), "title": .string(screen.title),
                                     "text": .string(REPL.text(of: screen)),
                                     "modal": .bool(app.window.modals.contains { $0.screens.contains { $0 === screen } })]
            var inputs: FlowRecord = [:]
            for input in screen.type.inputs { if let value = screen[input.name] { inputs[input.name] = .string(value.luaLiteral) } }
            shown["inputs"] = .record(inputs)
            if screen.type === app.alertType {
                shown["alert"] = .bool(true)
                shown["title"] = .string(screen["title"]?.displayText ?? "")
                shown["message"] = screen["message"].map { .string($0.displayText) }
            }
            document["screen"] = .record(shown)
            document["actions"] = .list(ScreenAction.actions(of: screen).enumerated().map { i, action in
                var entry: FlowRecord = ["number": .int(i + 1), "label": .string(action.label), "output": .string(action.output)]
                entry["kind"] = action.needsPayload ? "value" : action.payload == nil ? "tap" : "item"
                if action.needsPayload {
                    entry["examples"] = .list((screen.type.examples[action.output] ?? []).map { .string($0.luaLiteral) })
                    // A payload with a secret (a password) is typed into a field that does not show it.
                    if let spec = screen.type.output(named: action.output), spec.secret != .nothing { entry["secret"] = true }
                }
                return .record(entry)
            })
        }
        if let tabs = app.visibleTabs {
            document["tabs"] = .list(tabs.titles.indices.map { i in
                var tab: FlowRecord = ["title": .string(tabs.titles[i]), "selected": .bool(i == tabs.selectedIndex)]
                tab["badge"] = tabs.badges[i].map { .string($0.displayText) }
                return .record(tab)
            })
        }
        document["graphNode"] = flowGraph?.node(showing: app).map { .string($0.id) }
        document["stack"] = .list(app.window.visibleStack.map { .string($0.name) })
        document["tree"] = .string(app.root.map { Inspection(app: app, style: .plain).tree($0) } ?? "")
        document["hierarchy"] = .string(app.window.hierarchyDescription)
        document["events"] = .list(repl.events.recent(30).map(FlowValue.string))
        let history = repl.history
        document["history"] = .list(history.entries.enumerated().compactMap { i, entry in
            guard entry.changedState else { return nil }
            let current = i + 1 == history.cursor || (i < history.cursor && !history.entries[(i + 1)..<history.cursor].contains(where: \.changedState))
            return ["line": .int(entry.number), "text": .string(entry.did ?? entry.lines.joined(separator: "\n")),
                    "current": .bool(current), "undone": .bool(i >= history.cursor)]
        })
        return FlowValue.record(document).json
    }

    /// The app as a snapshot (`ScriptRuntime.snapshot()`), to download.
    public func snapshot() throws -> String { try repl.runtime.snapshot() }
}
