import CoordinatorScript

/// The `:commands` of run mode and the REPL: inspection and reload.
extension REPL {
    /// The commands, with their usage and help, as `:help` lists them.
    public static let commands: [(name: String, usage: String, help: String)] = [
        ("help", ":help", "this list"),
        ("reload", ":reload [LOCAL...]", "run the app's script files again, keeping the live app; the named file-level locals take their new value (also reload())"),
        ("record", ":record FILE | stop", "write the session's steps as a flow test (with the steps so far), until :record stop"),
        ("tree", ":tree", "the coordinator tree, each coordinator with its screens"),
        ("hierarchy", ":hierarchy", "the window: stacks, modals, tabs, alerts"),
        ("screen", ":screen [ID|NAME]", "a screen's inputs and outputs (the visible one by default)"),
        ("events", ":events [N]", "the last N navigation events (default 20)"),
        ("show", ":show", "the visible screen and its numbered actions"),
        ("undo", ":undo", "the app as it was before the last line that changed it (the lines run again in a fresh app: new code stays)"),
        ("redo", ":redo", "the line :undo took back, again"),
        ("history", ":history", "the lines that changed the app, by session line number (* marks where the app is)"),
        ("goto", ":goto N", "the app as it was after session line N"),
        ("N", ":N", "trigger the visible screen's action N"),
    ]

    /// Runs `:text` (without its colon).
    func command(_ text: String) throws {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let name = words.first else { return try command("help") }
        let argument = words.dropFirst().joined(separator: " ")
        if let number = Int(name) { return try tapAction(number) }
        switch name {
        case "help", "h", "?":
            let width = Self.commands.map(\.usage.count).max() ?? 0
            var out = Self.commands.map { "  " + $0.usage.padding(to: width) + "  " + $0.help }.joined(separator: "\n")
            out += "\nLua: tap(output [, payload]), back(), dismiss(), open(url), top(), stack(), tree(), tab(n or title), snapshot(), restore(json), reload([locals]); =EXPR prints EXPR"
            output.write(out + "\n")
        case "reload", "r":
            output.write(style.dim(try runtime.reload(fresh: Set(words.dropFirst())).description) + "\n")
        case "record":
            if argument == "stop" {
                try recorder.stop()
                output.write(style.dim("recorded \(recorder.path ?? ""): ./scripts/coordrun test \(recorder.path ?? "") replays it") + "\n")
            } else {
                guard !argument.isEmpty else { throw Recorder.RecordingError(message: ":record FILE starts recording, :record stop ends it") }
                try recorder.start(argument, app: runtime.scriptFiles.first)
                output.write(style.dim("recording to \(argument) (\(recorder.steps.count) steps so far)") + "\n")
            }
        case "tree", "t":
            guard let root = app.root else { return output.write("(no app is running)\n") }
            output.write(treeText(root, depth: 0))
        case "hierarchy":
            output.write(app.window.hierarchyDescription + "\n")
        case "screen", "s":
            output.write(try screenText(argument))
        case "events", "e":
            let count = argument.isEmpty ? 20 : Int(argument) ?? 20
            let recent = events.recent(count)
            output.write(recent.isEmpty ? "(no navigation events yet)\n" : recent.joined(separator: "\n") + "\n")
        case "show":
            show()
        case "undo": try undo()
        case "redo": try redo()
        case "history": output.write(historyText())
        case "goto": try goTo(argument)
        default:
            throw LuaError(.misuse, "unknown command ':\(name)' (:help lists them)")
        }
    }

    /// Deeper levels than this are not indented further: their lines say their depth instead, so the text
    /// stays linear in the size of the tree however deep it is.
    static let maxTreeIndent = 32

    /// The tree as indented lines, one per coordinator, built without recursion.
    func treeText(_ root: Coordinator, depth: Int) -> String {
        var lines: [String] = []
        var pending: [(Coordinator, Int)] = [(root, depth)]
        while let (coordinator, depth) = pending.popLast() {
            let indent = String(repeating: "  ", count: min(depth, Self.maxTreeIndent))
                + (depth > Self.maxTreeIndent ? "[depth \(depth)] " : "")
            let screens = coordinator.screens.map { "\($0.name)#\($0.id)" + ($0.isShown ? "" : " (hidden)") }
            var line = indent + style.bold("\(coordinator.name)#\(coordinator.id)")
            if coordinator.status != .running { line += " (\(coordinator.status.rawValue))" }
            if !screens.isEmpty { line += "  " + style.dim("screens: ") + screens.joined(separator: ", ") }
            lines.append(line)
            for child in coordinator.children.reversed() { pending.append((child, depth + 1)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func screenText(_ which: String) throws -> String {
        let screens = app.window.allScreens
        let screen: Screen?
        if which.isEmpty { screen = app.window.visibleScreen }
        else if let id = Int(which.hasPrefix("#") ? String(which.dropFirst()) : which) { screen = screens.first { $0.id == id } }
        else { screen = screens.last { $0.name == which } }
        guard let screen else {
            throw NavigationError(.noVisibleScreen, which.isEmpty ? "no screen is visible" : "no shown screen is '\(which)' (shown: \(screens.map { "\($0.name)#\($0.id)" }.joined(separator: ", ")))")
        }
        var text = style.bold("\(screen.name)#\(screen.id)") + " \"\(screen.title)\"" + (screen.owner.map { " shown by \($0.name)#\($0.id)" } ?? "") + "\n"
        text += "  inputs:\n"
        for input in screen.type.inputs {
            let value = screen[input.name].map(\.luaLiteral) ?? "nil"
            text += "    \(input.name)\(input.required ? " (required)" : ""): \(value)\n"
        }
        if screen.type.inputs.isEmpty { text += "    (none)\n" }
        text += "  outputs:\n"
        for output in screen.outputs {
            let payload: String
            switch output.payload {
            case .nothing: payload = ""
            case .value: payload = " (value)"
            case .choice(let from): payload = " (one of \(from))"
            }
            text += "    \(output.name)\(payload)\(screen.hasHandler(for: output.name) ? "" : "  -- no handler")\n"
        }
        if screen.outputs.isEmpty { text += "    (none)\n" }
        return text
    }
}

