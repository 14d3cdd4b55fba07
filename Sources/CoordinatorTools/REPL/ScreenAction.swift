import CoordinatorScript

/// One numbered action of a screen, as run mode and the REPL list them: an output without payload, one
/// item of a choice output's list, or an output that takes any value (which needs a payload typed after
/// its name).
struct ScreenAction {
    let label: String
    let output: String
    let payload: FlowValue?
    /// True for an output that takes any value: it cannot be triggered by its number alone.
    let needsPayload: Bool

    /// The numbered actions of `screen`, in the order they are listed.
    static func actions(of screen: Screen) -> [ScreenAction] {
        screen.outputs.flatMap { output -> [ScreenAction] in
            switch output.payload {
            case .nothing:
                [ScreenAction(label: output.name, output: output.name, payload: nil, needsPayload: false)]
            case .choice(let from):
                (screen[from]?.listValue ?? []).map {
                    ScreenAction(label: "\(output.text(ofItem: $0, notation: \.luaLiteral))  (\(output.name))", output: output.name, payload: $0, needsPayload: false)
                }
            case .value:
                [ScreenAction(label: "\(output.name) PAYLOAD", output: output.name, payload: nil, needsPayload: true)]
            }
        }
    }
}
