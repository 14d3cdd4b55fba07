import CoordinatorScript

/// The REPL's texts of the live app: the coordinator tree (`:tree`) and a screen with its inputs and
/// outputs (`:screen`).
struct Inspection {
    let app: Application
    let style: TextStyle

    /// Deeper levels than this are not indented further: their lines say their depth instead, so the text
    /// stays linear in the size of the tree however deep it is.
    static let maxTreeIndent = 32

    /// The tree as indented lines, one per coordinator, built without recursion.
    func tree(_ root: Coordinator) -> String {
        var lines: [String] = []
        var pending: [(Coordinator, Int)] = [(root, 0)]
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

    func screen(_ which: String) throws -> String {
        let screens = app.window.allScreens
        let screen: Screen?
        if which.isEmpty { screen = app.window.visibleScreen }
        else if let id = Int(which.hasPrefix("#") ? String(which.dropFirst()) : which) { screen = screens.first { $0.id == id } }
        else { screen = screens.last { $0.name == which } }
        guard let screen else {
            throw NavigationError(.noVisibleScreen, which.isEmpty ? "no screen is visible" : """
                no shown screen is '\(which)' (shown: \
                \(screens.map { "\($0.name)#\($0.id)" }.joined(separator: ", ")))
                """)
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
            var offered = ""
            if let condition = screen.type.conditions[output.name] {
                let now: String
                do { now = try screen.offers(output.name) ? "offered now" : "not offered now" } catch { now = "\(error)" }
                offered = " when " + (condition.place ?? "(a condition)") + ": " + now
            }
            text += "    \(output.name)\(payload)\(offered)\(screen.hasHandler(for: output.name) ? "" : "  -- no handler")\n"
        }
        if screen.outputs.isEmpty { text += "    (none)\n" }
        return text
    }

    /// `:windows`: the app's windows, each with its visible stack; `*` marks the one the user acts on.
    func windows() -> String {
        app.windows.all.map { window in
            let mark = window === app.window ? "* " : "  "
            let shown = window.visibleStack.map(\.name).joined(separator: " > ")
            return mark + "window \(window.number): " + (shown.isEmpty ? "(nothing shown)" : TextStyle.inert(shown)) + "\n"
        }.joined()
    }

    /// `:pending`: what waits on the outside world: the clock's timers (each with its flow and time left),
    /// the requests waiting for answers, and the link `heldLink` held until the gateway is in `state`.
    func pending(heldLink: String?, until state: AppState?) -> String {
        let clock = app.clock
        var lines = ["clock: \(AppClock.seconds(clock.now)) s"]
        for timer in clock.timers {
            let owner = timer.owner.map { "\($0.name)#\($0.id)" } ?? "(a finished flow)"
            let due = AppClock.seconds(max(0, timer.due - clock.now))
            lines.append("  timer \(timer.id) of \(owner): in \(due) s" + (timer.period.map { ", every \(AppClock.seconds($0)) s" } ?? ""))
        }
        if clock.timers.isEmpty { lines.append("  (no timers pending)") }
        for request in app.pendingRequests {
            let owner = request.owner.map { "\($0.name)#\($0.id)" } ?? "(a finished flow)"
            let outcomes = app.requestDeclarations[request.kind]?.outcomes.map(\.name).joined(separator: ", ") ?? ""
            let payload = request.payload.map { " " + $0.luaLiteral } ?? ""
            lines.append("  request \(request.kind)#\(request.id) of \(owner)" + payload + " (answers: \(outcomes))")
        }
        if app.pendingRequests.isEmpty { lines.append("  (no requests pending)") }
        if let heldLink {
            lines.append("  link \(TextStyle.inert(heldLink)) held until \(state.map { "\($0)" } ?? "its state")")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
