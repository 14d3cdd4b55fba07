import CoordinatorScript

/// What the REPL shows of the visible screen: its title, its rendering and numbered actions, the tabs, the
/// stack; a rendering a line made while it ran (``rendered``) is shown rather than rendered again.
struct ScreenDisplay {
    /// The visible screen's text, rendered inside the line that changed it (``REPL/operation(_:)``).
    var rendered: (screen: Int, text: String)?
    /// The screen last shown, with its text.
    private var shown: (screen: Int, text: String)?

    /// The text that shows the visible screen of `app` (each column's top screen, of a split shown side by
    /// side), its actions numbered as `mode` takes them.
    mutating func text(of app: Application, mode: REPL.Mode, style: TextStyle) -> String {
        guard let visible = app.window.visibleScreen else { return style.bold("(no screen is showing)") + "\n" }
        var text = "", bodies = "", number = 0
        for (column, screen) in ScreenAction.shownScreens(in: app) {
            // An action sheet is an alert shown from the bottom: named as the user sees it.
            let title = screen.alertStyle == .actionSheet ? "Action sheet" : screen.title
            let named = title == screen.name ? "" : " (\(screen.name))"
            text += style.bold("== \(title)" + named + (column.map { " [\($0)]" } ?? "") + " ==") + "\n"
            let body = rendered.flatMap { $0.screen == screen.id ? $0.text : nil } ?? Self.text(of: screen)
            bodies += body + "\u{0}"
            if !body.isEmpty { text += body + "\n" }
            do {
                for action in try ScreenAction.actions(of: screen) {
                    number += 1
                    text += "  " + style.accent("\(mode == .repl ? ":" : "")\(number).") + " " + action.label + "\n"
                }
            } catch {
                text += style.dim("  (its actions: \(error))") + "\n"
            }
        }
        rendered = nil
        shown = (visible.id, bodies)
        if let tabs = app.visibleTabs { text += style.dim(Self.line(of: tabs)) + "\n" }
        if let pages = app.window.visiblePages { text += style.dim(Self.line(of: pages) + "  (swipe(\"left\"), swipe(\"right\"))") + "\n" }
        return text + style.dim("stack: " + app.window.visibleStack.map(\.name).joined(separator: " > ")) + "\n"
    }

    /// The tab bar as a line: `tabs: [Catalog] | Cart (1) | Profile`, each tab's label (its badge after
    /// it), the selected one in brackets.
    static func line(of tabs: TabContainer) -> String {
        "tabs: " + tabs.titles.indices.map { i in i == tabs.selectedIndex ? "[" + tabs.label(ofTab: i) + "]" : tabs.label(ofTab: i) }.joined(separator: " | ")
    }

    /// The pages as a line: `pages: Users | [News]`, the one shown in brackets.
    static func line(of pages: PageContainer) -> String {
        "pages: " + pages.titles.indices.map { i in i == pages.selectedIndex ? "[" + pages.titles[i] + "]" : pages.titles[i] }.joined(separator: " | ")
    }

    /// Whether the visible screen (or a split's column) is another than the one last shown, or renders
    /// another text now.
    func isRedrawn(_ app: Application) -> Bool {
        guard let screen = app.window.visibleScreen else { return false }
        let bodies = ScreenAction.shownScreens(in: app).map { Self.text(of: $0.screen) + "\u{0}" }.joined()
        return shown?.screen != screen.id || shown?.text != bodies
    }

    /// A screen's text, or what failed in its rendering (shown in its place).
    static func text(of screen: Screen) -> String {
        do { return try screen.render() } catch { return "(rendering \(screen.name) failed: \(error))" }
    }
}
