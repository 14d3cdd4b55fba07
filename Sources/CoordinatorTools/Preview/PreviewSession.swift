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
package final class PreviewSession {
    /// The session's REPL, whose lines the actions are.
    package let repl: REPL
    /// Counts the states shown: each action and reload makes the next.
    package private(set) var revision = 0
    private var lastText = ""
    private var lastError: String?
    private var lastReload: String?
    /// The app's flow graph, when one was drawn (the page asks for it): the state names the node the app
    /// shows now (`graphNode`).
    package var flowGraph: FlowGraph? { didSet { revision += 1 } }
    /// The most bytes an action's text may hold (a payload, a link, a snapshot to restore): 8 MiB.
    package static let maximumActionBytes = 8 << 20
    /// The most lines of the history a state holds (the newest; `historyTotal` says how many there are):
    /// a state costs the same on the thousandth action as on the first.
    package static let historyShown = 500

    /// A preview over `repl` (made over the running app; its output must go to ``capture(text:)`` and
    /// ``capture(error:)``).
    package init(repl: REPL) {
        self.repl = repl
    }

    /// Takes the text a line printed (the REPL's `Output.write`).
    package func capture(text: String) { lastText += text }
    /// Takes an error a line reported (the REPL's `Output.error`).
    package func capture(error: String) { lastError = (lastError.map { $0 + "\n" } ?? "") + error }

    /// What a page asked for that is not an action: the message says what is wrong, and nothing changed.
    package struct BadAction: Error, CustomStringConvertible, Sendable {
        /// What is wrong with the request.
        package let message: String
        /// A refusal saying `message`.
        package init(message: String) { self.message = message }
        package var description: String { message }
    }

    /// Runs the action a page sent, as JSON: `{"action": "choose", "number": 3}` (action N of the visible
    /// screen), `{"action": "tap", "output": "login", "payload": "{ name = 'Ann' }"}` (a Lua expression),
    /// `{"action": "back"}`, `"dismiss"`, `{"action": "tab", "number": 2}`, `{"action": "page", "number": 2}`,
    /// `{"action": "event", "name": ..., "payload": LUA}`, `{"action": "answer", "kind": ..., "nth": 1, "outcome":
    /// ...}`, `{"action": "advance", "seconds": 60}`, `{"action": "open", "url": ...}`,
    /// `"undo"`, `"redo"`, `{"action": "goto", "line": 4}`, `{"action": "restore", "snapshot": JSON}`,
    /// `"reload"`, `{"action": "lua", "code": ...}`. Returns the state after it (``state``), which says
    /// whether the line failed; throws ``BadAction`` for a request that is not one of these (nothing runs).
    package func perform(json: String) throws -> String {
        try run(json: json)
        return state
    }

    /// Runs the action a page sent (``perform(json:)``) without making the state after it.
    package func run(json: String) throws {
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
        case "answer":
            let kind = try string("kind"), outcome = try string("outcome")
            return "answer(pending(" + LuaSyntax.quoted(kind) + ")[\(try number("nth", from: 1))], " + LuaSyntax.quoted(outcome) + ")"
        case "advance":
            guard let seconds = request["seconds"]?.doubleValue, seconds.isFinite, seconds >= 0, seconds < 1e12 else {
                throw BadAction(message: "the advance action needs \"seconds\", a number from 0")
            }
            return "advance(" + FlowValue.double(seconds).luaLiteral + ")"
        case "event":
            let name = try string("name")
            let payload = request["payload"]?.stringValue ?? ""
            if payload.contains("\n") { throw BadAction(message: "a payload is one Lua expression on one line") }
            return "event(" + LuaSyntax.quoted(name) + (payload.trimmed.isEmpty ? "" : ", (" + payload + ")") + ")"
        case "relaunch": return "relaunch()"
        case "openWindow": return "openWindow()"
        case "window": return "window(\(try number("number", from: 1)))"
        case "closeWindow": return "closeWindow(\(try number("number", from: 1)))"
        case "tab": return "tab(\(try number("number", from: 1)))"
        case "page": return "swipeTo(\(try number("number", from: 1)))"
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
            throw BadAction(message: """
                unknown action '\(action)' (choose, tap, back, dismiss, tab, page, answer, advance, event, relaunch, \
                openWindow, window, closeWindow, open, undo, redo, goto, restore, reload, lua)
                """)
        }
    }

    /// The scripts were saved: reloads them as `:reload` does (the app's state kept); the state says the
    /// report.
    package func reload() {
        (lastText, lastError, lastReload) = ("", nil, nil)
        repl.handle(":reload")
        lastReload = lastText
        revision += 1
    }

    /// The whole app as a page shows it, as JSON: `revision`; `screen` (`name`, `title`, `text`, `inputs` as
    /// Lua, `modal`, `alert` with its own `title` and `message`) or null; `actions` (`number`, `label`, `output`, `column` beside a split's columns, `kind`:
    /// `tap`, `item` or `value`, `examples` as Lua, `secret` when its payload holds one, an alert action's `role`:
    /// `cancel` or `destructive`); `tabs` (`title`, `badge`, `selected`); `pages` (`title`, `selected`);
    /// `columns` beside a split's columns (`column`, and its top screen's `name`, `title` and `text`); a modal screen's
    /// `presentation`, `swipeable`, `detent` and `presenter` (the title of the screen it covers); `canGoBack`;
    /// `outsideEvents` (`name`, `payload`, `examples` as Lua); `pendingRequests` (`kind`, `nth`, `outcomes`);
    /// `nextTimer` (seconds until the next timer fires, or null); `storage` (each key's value as Lua, a secret
    /// one as `(secret)`); `heldLink` (a link waiting for its gateway state, or null); `windows` (`number`,
    /// `current`, `screen`) and `canOpenWindow`; `stack`; `tree` and
    /// `hierarchy` as text; `events`; `history` (`line`, `text`, `current`, `undone`: the newest
    /// ``historyShown`` lines that changed the app) and `historyTotal`; `graphNode`, the node of
    /// ``flowGraph`` shown now; and what the last
    /// action printed (`output`), reported (`error`, with its place) and reloaded (`reload`).
    package var state: String { FlowValue.record(document).json }

    /// What the page draws of `look` on `screen`: its title and text, each field with its value, the list's
    /// rows (each a title and a subtitle), the control of each output by name.
    static func document(of look: ScreenLook, on screen: Screen) -> FlowValue {
        var document: FlowRecord = [:]
        document["title"] = look.title.map(FlowValue.string)
        document["text"] = look.text.map(FlowValue.string)
        document["fields"] = .list(look.fields.map { field in
            ["label": .string(field.label), "value": .string(screen[field.input].map(Readable.text(of:)) ?? "—")]
        })
        if let list = look.list {
            let items = screen[list.from]?.listValue ?? []
            document["list"] = .list(items.map { item in
                let (title, subtitle) = Readable.row(of: item, list: list)
                var row: FlowRecord = ["title": .string(title)]
                row["subtitle"] = subtitle.map(FlowValue.string)
                return .record(row)
            })
        }
        document["controls"] = .record(FlowRecord(look.controls.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value.rawValue)) }))
        return .record(document)
    }

    /// ``state`` as a record, its fields by name (what ``patch(from:to:)`` compares).
    package var document: FlowRecord {
        let app = repl.runtime.app
        var document: FlowRecord = ["revision": .int(revision), "output": .string(lastText)]
        document["error"] = lastError.map(FlowValue.string)
        document["reload"] = lastReload.map(FlowValue.string)
        if let screen = app.window.visibleScreen {
            var shown: FlowRecord = ["name": .string(screen.name), "id": .int(screen.id), "title": .string(screen.title),
                                     // The rendering is the app's code: under the line's time limit.
                                     "text": .string(repl.runtime.lua.withTimeLimit(repl.timeLimit) { ScreenDisplay.text(of: screen) }),
                                     "modal": .bool(app.window.modals.contains { $0.screens.contains { $0 === screen } })]
            if let k = app.window.modals.lastIndex(where: { $0.screens.contains { $0 === screen } }) {
                // How the modal is presented: the page draws a sheet (by its detent), a cover or a popover, and
                // no grip on one the user cannot swipe away; behind it, the screen that presented it, dimmed.
                let modal = app.window.modals[k]
                shown["presentation"] = .string(modal.presentation.style.rawValue)
                shown["swipeable"] = .bool(modal.presentation.isSwipeable)
                shown["detent"] = modal.presentation.detents.first.map(FlowValue.string)
                let presenter = app.window.modals[..<k].reversed().lazy.compactMap(\.visibleScreen).first ?? app.window.root.visibleScreen
                shown["presenter"] = presenter.map { .string(Readable.title(of: $0)) }
            }
            // Inputs as a person reads them (a name, a number, "3 items"), never a dump of their data.
            var inputs: FlowRecord = [:]
            for input in screen.type.inputs { if let value = screen[input.name] { inputs[input.name] = .string(Readable.text(of: value)) } }
            shown["inputs"] = .record(inputs)
            if let look = screen.type.look { shown["look"] = Self.document(of: look, on: screen) }
            if screen.type === app.alertType {
                shown["alert"] = .bool(true)
                shown["title"] = .string(screen["title"]?.displayText ?? "")
                shown["message"] = screen["message"].map { .string($0.displayText) }
                shown["style"] = screen.alertStyle.map { .string($0.rawValue) } // an action sheet: from the bottom
            }
            document["screen"] = .record(shown)
            // The outputs offered now (their `when` is the app's code: under the line's time limit too); a
            // `when` that fails offers none, and says why.
            let actions: [ScreenAction]
            do {
                actions = try repl.runtime.lua.withTimeLimit(repl.timeLimit) { try ScreenAction.actions(in: app) }
            } catch {
                actions = []
                document["error"] = .string(String(describing: error))
            }
            document["actions"] = .list(actions.enumerated().map { i, action in
                var entry: FlowRecord = ["number": .int(i + 1), "label": .string(action.label), "output": .string(action.output)]
                entry["kind"] = action.needsPayload ? "value" : action.payload == nil ? "tap" : "item"
                // An item is a row: its label, and under it the field the screen's look names.
                if let row = Readable.row(of: action) {
                    entry["item"] = .string(row.title)
                    entry["subtitle"] = row.subtitle.map(FlowValue.string)
                }
                if let control = action.screen.type.look?.controls[action.output] { entry["control"] = .string(control.rawValue) }
                // An alert's action that is not ordinary: drawn bold and apart (cancel), or in red (destructive).
                entry["role"] = action.role.map { .string($0.rawValue) }
                // Beside a split's columns: the column whose top screen the action is on.
                if let split = app.window.visibleSplit, let i = split.stacks.firstIndex(where: { $0.visibleScreen === action.screen }) {
                    entry["column"] = .string(split.columns[i].rawValue)
                }
                if action.needsPayload {
                    entry["examples"] = .list((action.screen.type.examples[action.output] ?? []).map { .string($0.luaLiteral) })
                    // A payload with a secret (a password) is typed into a field that does not show it.
                    if let spec = action.screen.type.output(named: action.output), spec.secret != .nothing { entry["secret"] = true }
                }
                return .record(entry)
            })
        }
        // A split in a regular window: each column's top screen, primary first, drawn side by side (the
        // secondary's is `screen`).
        if let split = app.window.visibleSplit {
            document["columns"] = .list(zip(split.columns, split.stacks).map { column, stack in
                var shown: FlowRecord = ["column": .string(column.rawValue)]
                if let top = stack.visibleScreen {
                    shown["name"] = .string(top.name)
                    shown["title"] = .string(Readable.title(of: top))
                    shown["text"] = .string(repl.runtime.lua.withTimeLimit(repl.timeLimit) { ScreenDisplay.text(of: top) })
                }
                return .record(shown)
            })
        }
        if let tabs = app.visibleTabs {
            document["tabs"] = .list(tabs.titles.indices.map { i in
                var tab: FlowRecord = ["title": .string(tabs.titles[i]), "selected": .bool(i == tabs.selectedIndex)]
                tab["badge"] = tabs.badges[i].map { .string($0.displayText) }
                return .record(tab)
            })
        }
        // The events the outside world may send: each with its example payloads (as Lua), the page's buttons.
        document["outsideEvents"] = .list(app.eventDeclarations.values.sorted { $0.name < $1.name }.map { event in
            ["name": .string(event.name), "examples": .list(event.examples.map { .string($0.luaLiteral) }), "payload": .bool(event.takesPayload)]
        })
        // What waits on the outside: each pending request with the outcomes it may answer, and the time
        // until the next timer fires.
        var nth: [String: Int] = [:]
        document["pendingRequests"] = .list(app.pendingRequests.map { request in
            nth[request.kind, default: 0] += 1
            let outcomes = app.requestDeclarations[request.kind]?.outcomes.map { FlowValue.string($0.name) } ?? []
            return ["kind": .string(request.kind), "nth": .int(nth[request.kind] ?? 1), "outcomes": .list(outcomes)]
        })
        document["nextTimer"] = app.clock.untilNext.map(FlowValue.double)
        // The storage kept across launches (each value as Lua, a secret one masked), and a link held until
        // the app is in the gateway state its route requires.
        document["storage"] = .record(FlowRecord(app.storage.shown(\.luaLiteral).map { ($0.key, .string($0.text)) }))
        document["heldLink"] = repl.runtime.heldLink.map(FlowValue.string)
        if let pages = app.window.visiblePages {
            document["pages"] = .list(pages.titles.indices.map { i in
                ["title": .string(pages.titles[i]), "selected": .bool(i == pages.selectedIndex)]
            })
        }
        document["graphNode"] = flowGraph?.node(showing: app).map { .string($0.id) }
        // Whether the navigation bar has a Back button: the visible stack (in a regular split, the secondary
        // column's) has a screen under its top.
        document["canGoBack"] = .bool(app.window.canGoBack(in: app.window.modals.last ?? app.window.root))
        document["stack"] = .list(app.window.visibleStack.map { .string($0.name) })
        // The windows (an iPad's scenes): each one's number and visible screen, the one the user acts on.
        document["windows"] = .list(app.windows.all.map { window in
            var fields: FlowRecord = ["number": .int(window.number), "current": .bool(window === app.window)]
            fields["screen"] = window.visibleScreen.map { .string($0.name) }
            return .record(fields)
        })
        document["canOpenWindow"] = .bool(app.idiom == .pad && app.makeRootAgain != nil && app.root != nil)
        document["tree"] = .string(app.root.map { Inspection(app: app, style: .plain).tree($0) } ?? "")
        document["hierarchy"] = .string(app.window.hierarchyDescription)
        document["events"] = .list(repl.events.recent(30).map(FlowValue.string))
        // The newest lines that changed the app, at most `historyShown` of them, oldest first; the one the
        // app is at is the last such line before the cursor.
        let history = repl.history
        let current = history.entries[..<history.cursor].lastIndex(where: \.changedState)
        var shown: [FlowValue] = [], total = 0
        for (i, entry) in history.entries.enumerated().reversed() where entry.changedState {
            total += 1
            guard shown.count < Self.historyShown else { continue }
            shown.append(["line": .int(entry.number), "text": .string(entry.did ?? entry.lines.joined(separator: "\n")),
                          "current": .bool(i == current), "undone": .bool(i >= history.cursor)])
        }
        document["history"] = .list(shown.reversed())
        document["historyTotal"] = .int(total)
        return document
    }

    /// What a page that has the state `old` needs to have `new`, as JSON: `{"patch": {"base": R, "revision":
    /// R2, "set": {field: value}, "unset": [field], "history": {"lines": [N...], "entries": [entry...]}}}`:
    /// the fields whose value changed, those gone, and of the history the lines it holds now (in order) with
    /// the entries that are new or changed. A page whose state is not revision `base` asks for the whole
    /// state (`GET /state`). docs/Preview.md, "Requests".
    package static func patch(from old: FlowRecord, to new: FlowRecord) -> String {
        var set: FlowRecord = [:], unset: [FlowValue] = []
        for field in new.fields where field.key != "history" && old[field.key] != field.value { set[field.key] = field.value }
        for field in old.fields where new[field.key] == nil { unset.append(.string(field.key)) }
        var patch: FlowRecord = ["base": old["revision"] ?? .int(-1), "revision": new["revision"] ?? .int(0), "set": .record(set), "unset": .list(unset)]
        let before = Dictionary((old["history"]?.listValue ?? []).compactMap { entry in entry["line"]?.intValue.map { ($0, entry) } }) { a, _ in a }
        let after = new["history"]?.listValue ?? []
        let changed = after.filter { entry in entry["line"]?.intValue.flatMap { before[$0] } != entry }
        if !changed.isEmpty || after.count != before.count {
            patch["history"] = ["lines": .list(after.compactMap { $0["line"] }), "entries": .list(changed)]
        }
        return FlowValue.record(["patch": .record(patch)]).json
    }

    /// The app as a snapshot (`ScriptRuntime.snapshot()`), to download.
    package func snapshot() throws -> String { try repl.runtime.snapshot() }
}
