import CoordinatorScript

/// What the REPL shows of the visible screen: its title, its rendering and numbered actions, the tabs, the
/// stack; a rendering a line made while it ran (``rendered``) is shown rather than rendered again.
struct ScreenDisplay {
    /// The visible screen's text, rendered inside the line that changed it (``REPL/operation(_:)``).
    var rendered: (screen: Int, text: String)?
    /// The screen last shown, with its text.
    private var shown: (screen: Int, text: String)?

    /// The text that shows the visible screen of `app`, its actions numbered as `mode` takes them.
    mutating func text(of app: Application, mode: REPL.Mode, style: TextStyle) -> String {
        guard let screen = app.window.visibleScreen else { return style.bold("(no screen is showing)") + "\n" }
        // An action sheet is an alert shown from the bottom: named as the user sees it.
        let title = screen.type === app.alertType && screen["style"]?.stringValue == AlertStyle.actionSheet.rawValue ? "Action sheet" : screen.title
        var text = style.bold("== \(title)" + (title == screen.name ? "" : " (\(screen.name))") + " ==") + "\n"
        let body = rendered.flatMap { $0.screen == screen.id ? $0.text : nil } ?? Self.text(of: screen)
        rendered = nil
        shown = (screen.id, body)
        if !body.isEmpty { text += body + "\n" }
        do {
            for (i, action) in try ScreenAction.actions(of: screen).enumerated() {
                text += "  " + style.accent("\(mode == .repl ? ":" : "")\(i + 1).") + " " + action.label + "\n"
            }
        } catch {
            text += style.dim("  (its actions: \(error))") + "\n"
        }
        if let tabs = app.visibleTabs {
            let labels = tabs.titles.indices.map { i in i == tabs.selectedIndex ? "[" + tabs.label(ofTab: i) + "]" : tabs.label(ofTab: i) }
            text += style.dim("tabs: " + labels.joined(separator: " | ")) + "\n"
        }
        if let pages = app.visiblePages {
            let labels = pages.titles.indices.map { i in i == pages.selectedIndex ? "[" + pages.titles[i] + "]" : pages.titles[i] }
            text += style.dim("pages: " + labels.joined(separator: " | ") + "  (swipe(\"left\"), swipe(\"right\"))") + "\n"
        }
        return text + style.dim("stack: " + app.window.visibleStack.map(\.name).joined(separator: " > ")) + "\n"
    }

    /// Whether the visible screen is another than the one last shown, or renders another text now.
    func isRedrawn(_ app: Application) -> Bool {
        guard let screen = app.window.visibleScreen else { return false }
        return shown?.screen != screen.id || shown?.text != Self.text(of: screen)
    }

    /// A screen's text, or what failed in its rendering (shown in its place).
    static func text(of screen: Screen) -> String {
        do { return try screen.render() } catch { return "(rendering \(screen.name) failed: \(error))" }
    }
}
