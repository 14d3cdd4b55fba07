import CoordinatorScript

/// The `:commands` of run mode and the REPL: inspection and reload.
extension REPL {
    /// Runs `:text` (without its colon): `:N` is an action of the app, time travel puts another app in
    /// place, any other command only shows or writes.
    func command(_ text: String) throws -> LineOutcome {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let name = words.first else { return try command("help") }
        let argument = words.dropFirst().joined(separator: " ")
        if let number = Int(name) { return LineOutcome(replayable: true, step: try tapAction(number)) }
        switch name {
        case "help", "h", "?":
            output.write(MetaCommands.help + "\n")
        case "reload", "r":
            output.write(style.dim(try runtime.reload(fresh: Set(words.dropFirst())).description) + "\n")
        case "record":
            if argument == "stop" {
                try recorder.stop()
                output.write(style.dim("recorded \(recorder.path ?? ""): \(commandName) test \(recorder.path ?? "") replays it") + "\n")
            } else {
                guard !argument.isEmpty else { throw Recorder.RecordingError(message: ":record FILE starts recording, :record stop ends it") }
                try recorder.start(argument, app: runtime.scriptFiles.first, command: commandName,
                                   writes: runtime.isSandboxed ? .nothing : fileWrites)
                output.write(style.dim("recording to \(recorder.path ?? argument) (\(recorder.current.count) steps so far)") + "\n")
            }
        case "tree", "t":
            guard let root = app.root else { output.write("(no app is running)\n"); break }
            output.write(Inspection(app: app, style: style).tree(root))
        case "hierarchy":
            output.write(app.window.hierarchyDescription + "\n")
        case "windows", "w":
            output.write(Inspection(app: app, style: style).windows())
        case "screen", "s":
            output.write(try Inspection(app: app, style: style).screen(argument))
        case "events", "e":
            let count = argument.isEmpty ? 20 : Int(argument) ?? 20
            let recent = events.recent(count)
            output.write(recent.isEmpty ? "(no navigation events yet)\n" : recent.joined(separator: "\n") + "\n")
        case "pending":
            output.write(Inspection(app: app, style: style).pending(heldLink: runtime.heldLink, until: runtime.heldLinkState))
        case "show":
            show()
        case "undo":
            try undo()
            return LineOutcome(redraw: true)
        case "redo":
            try redo()
            return LineOutcome(redraw: true)
        case "history": output.write(history.text(style: style))
        case "goto":
            try goTo(argument)
            return LineOutcome(redraw: true)
        default:
            throw LuaError(.misuse, "unknown command ':\(name)' (:help lists them)")
        }
        return LineOutcome()
    }
}

/// The `:commands` of run mode and the REPL (psql's meta-commands, lua.c has none): their usage and help, as
/// `:help` lists them and completion offers them.
package enum MetaCommands {
    /// The commands, with their usage and help.
    package static let all: [(name: String, usage: String, help: String)] = [
        ("help", ":help", "this list"),
        ("reload", ":reload [LOCAL...]", """
            run the app's script files again, keeping the live app; the named file-level locals take their new value \
            (also reload())
            """),
        ("record", ":record FILE | stop", "write the session's steps as a flow test (with the steps so far), until :record stop"),
        ("tree", ":tree", "the coordinator tree, each coordinator with its screens"),
        ("hierarchy", ":hierarchy", "the window: stacks, modals, tabs, alerts"),
        ("windows", ":windows", "the app's windows (an iPad's scenes), each with its visible screen; * marks the one the user acts on"),
        ("screen", ":screen [ID|NAME]", "a screen's inputs and outputs (the visible one by default)"),
        ("events", ":events [N]", "the last N navigation events (default 20)"),
        ("pending", ":pending", "what waits on the outside world: the timers (each with its flow and time left) and the requests"),
        ("show", ":show", "the visible screen and its numbered actions"),
        ("undo", ":undo", "the app as it was before the last line that changed it (the lines run again in a fresh app: new code stays)"),
        ("redo", ":redo", "the line :undo took back, again"),
        ("history", ":history", "the lines that changed the app, by session line number (* marks where the app is)"),
        ("goto", ":goto N", "the app as it was after session line N"),
        ("N", ":N", "trigger the visible screen's action N"),
    ]

    /// `:help`: the commands, then the driver functions Lua lines call.
    static var help: String {
        let width = all.map(\.usage.count).max() ?? 0
        var out = all.map { "  " + $0.usage.padding(to: width) + "  " + $0.help }.joined(separator: "\n")
        out += """
            \nLua: tap(output [, payload]), back(), dismiss(), open(url), top([column]), stack(), tree(), tab(n \
            or title), swipeTo(n or title), swipe(\"left\" or \"right\"), sizeClass([width]), openWindow(), \
            window([n]), closeWindow(n), windows(), event(name [, payload]), advance(seconds), answer(request or \
            kind, outcome [, value]), snapshot(), restore(json), reload([locals]); =EXPR prints EXPR
            """
        return out
    }
}
