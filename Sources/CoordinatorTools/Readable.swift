import CoordinatorScript

/// Values, steps and presentations as a person reads them in a prototype (the web preview's device, the
/// storyboard's cards): a name rather than a record, "3 items" rather than a list, `open “Shoes”` rather than
/// a line of Lua. The REPL, the history and the logs keep Lua, which can be run again.
package enum Readable {
    /// A value: a string or a number as it is, a record by its `label`, `name` or `title` (else its count of
    /// fields), a list by its count; at most 60 characters.
    package static func text(of value: FlowValue) -> String {
        let text: String
        switch value {
        case .list(let items): text = items.count == 1 ? "1 item" : "\(items.count) items"
        case .record(let fields):
            text = (fields["label"] ?? fields["name"] ?? fields["title"]).map(Readable.text(of:)) ?? (fields.count == 1 ? "1 field" : "\(fields.count) fields")
        case .string(let string): text = string
        default: text = value.luaLiteral
        }
        return text.count <= 60 ? text : String(text.prefix(59)) + "…"
    }

    /// A screen's title as its navigation bar shows it: its look's title, else its own.
    package static func title(of screen: Screen) -> String { screen.type.look?.title ?? screen.title }

    /// An item of a list as a row: titled by the field `list` names (else the field `label` names, else the
    /// item read as a value), with the field `list` names for its subtitle under it.
    package static func row(of item: FlowValue, list: ScreenLook.List?, label: String? = nil) -> (title: String, subtitle: String?) {
        let title = list?.title.flatMap { item[$0] } ?? label.flatMap { item[$0] }
        return (title.map(text(of:)) ?? text(of: item), list?.subtitle.flatMap { item[$0] }.map(text(of:)))
    }

    /// An action that chooses an item, as a row (the screen's look's list when it lists that input, else the
    /// output's label field); nil for any other action.
    static func row(of action: ScreenAction) -> (title: String, subtitle: String?)? {
        guard let item = action.payload, let spec = action.screen.type.output(named: action.output), case .choice(let from) = spec.payload else { return nil }
        return row(of: item, list: action.screen.type.look?.list.flatMap { $0.from == from ? $0 : nil }, label: spec.itemLabel)
    }

    /// A step of the user or of the world outside: `open “Shoes”`, `add`, `Back`, `tab 2`, `wait 5 s`.
    package static func step(_ step: UserStep) -> String {
        switch step {
        case let .tap(output, payload): output + (payload.map { " “" + text(of: $0) + "”" } ?? "")
        case .back: "Back"
        case .dismiss: "swipe down"
        case .selectTab(let index): "tab \(index + 1)"
        case .swipeTo(let index): "page \(index + 1)"
        case .sizeClass(let sizeClass): sizeClass.rawValue + " window"
        case .open(let url): "link " + url
        case let .event(name, payload): "event " + name + (payload.map { " “" + text(of: $0) + "”" } ?? "")
        case .advance(let seconds): "wait " + AppClock.seconds(seconds) + " s"
        case let .answer(kind, nth, outcome, _): "answer " + kind + (nth > 0 ? " #\(nth + 1)" : "") + " " + outcome
        case .relaunch: "relaunch"
        case .openWindow: "open a window"
        case .selectWindow(let number): "window \(number)"
        case .closeWindow(let number): "close window \(number)"
        case let .drawn(inner, values): Self.step(inner) + " (random " + values.map(String.init).joined(separator: ", ") + ")"
        }
    }

    /// How the modal that holds `screen` shows it, or nil when it is in none: `sheet at its medium detent`,
    /// `full-screen cover`, `form sheet, cannot be swiped away`; an alert as `alert` or `action sheet`.
    package static func presentation(of screen: Screen, in app: Application) -> String? {
        guard let modal = app.window.modals.last(where: { $0.screens.contains { $0 === screen } }) else { return nil }
        if let style = screen.alertStyle { return style == .actionSheet ? "action sheet" : "alert" }
        let presentation = modal.presentation
        var text: String
        switch presentation.style {
        case .pageSheet: text = "sheet" + (presentation.detents.first.map { " at its " + $0 + " detent" } ?? "")
        case .formSheet: text = "form sheet"
        case .fullScreen: text = "full-screen cover"
        case .popover: text = "popover"
        }
        if !presentation.isSwipeable && presentation.style != .fullScreen { text += ", cannot be swiped away" }
        return text
    }
}
