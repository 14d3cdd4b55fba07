import CoordinatorScript

/// One numbered action of a screen, as run mode and the REPL list them: an output without payload, one
/// item of a choice output's list, or an output that takes any value (which needs a payload typed after
/// its name).
struct ScreenAction {
    /// The screen it is an action of.
    let screen: Screen
    /// How it is listed: the output's name, an item's label with the output after it, `NAME PAYLOAD` for
    /// a value; an alert's cancel or destructive action with its role after it (`Discard (destructive)`).
    let label: String
    let output: String
    let payload: FlowValue?
    /// True for an output that takes any value: it cannot be triggered by its number alone.
    let needsPayload: Bool
    /// What an alert's action does, when it is not ordinary (UIKit's action styles); nil for the others.
    var role: AlertActionRole? = nil

    /// The screens whose actions the user has, in the order they are shown: the visible screen, or the top
    /// screen of each column of a split shown side by side (``Window/visibleSplit``), primary first,
    /// with its column's name.
    static func shownScreens(in app: Application) -> [(column: String?, screen: Screen)] {
        if let split = app.window.visibleSplit {
            return zip(split.columns, split.stacks).compactMap { column, stack in stack.visibleScreen.map { (column.rawValue, $0) } }
        }
        return app.window.visibleScreen.map { [(nil, $0)] } ?? []
    }

    /// The numbered actions the user has in `app`: those of each of ``shownScreens(in:)``, in order.
    static func actions(in app: Application) throws -> [ScreenAction] {
        try shownScreens(in: app).flatMap { try actions(of: $0.screen) }
    }

    /// The numbered actions of `screen`, in the order they are listed: its outputs offered now (an output
    /// whose `when` is false is none). Throws what a `when` throws.
    static func actions(of screen: Screen) throws -> [ScreenAction] {
        try screen.offeredOutputs().flatMap { output -> [ScreenAction] in
            switch output.payload {
            case .nothing:
                screen.role(ofAlertAction: output.name).map { role in
                    [ScreenAction(
                        screen: screen, label: output.name + " (" + role.rawValue + ")", output: output.name, payload: nil, needsPayload: false,
                        role: role
                    )]
                } ?? [ScreenAction(screen: screen, label: output.name, output: output.name, payload: nil, needsPayload: false)]
            case .choice(let from):
                (screen[from]?.listValue ?? []).map {
                    ScreenAction(
                        screen: screen, label: "\(output.text(ofItem: $0, notation: \.luaLiteral))  (\(output.name))", output: output.name,
                        payload: $0, needsPayload: false
                    )
                }
            case .value:
                [ScreenAction(screen: screen, label: "\(output.name) PAYLOAD", output: output.name, payload: nil, needsPayload: true)]
            }
        }
    }

    /// A note for each output of `catalog`'s screen types named like a driver function (`open`), which
    /// hides that function at run mode's prompt while its screen is visible.
    static func notes(onDriverFunctionsHiddenIn catalog: ScreenCatalog) -> String {
        var notes: [String] = []
        for (name, type) in catalog.types.sorted(by: { $0.key < $1.key }) {
            for output in type.outputs where DriverFunctions.names.contains(output.name) {
                notes.append("""
                    note: screen \(name)'s output '\(output.name)' hides the driver function \(output.name)(...) \
                    while \(name) is visible: type _G.\(output.name)(...) for the function
                    """)
            }
        }
        return notes.map { $0 + "\n" }.joined()
    }
}
