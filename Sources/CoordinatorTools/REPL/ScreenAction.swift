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

    /// The numbered actions of `screen`, in the order they are listed: its outputs offered now (an output
    /// whose `when` is false is none). Throws what a `when` throws.
    static func actions(of screen: Screen) throws -> [ScreenAction] {
        try screen.offeredOutputs().flatMap { output -> [ScreenAction] in
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

    /// A note for each output of `catalog`'s screen types named like a driver function (`open`), which
    /// hides that function at run mode's prompt while its screen is visible.
    static func notes(onDriverFunctionsHiddenIn catalog: ScreenCatalog) -> String {
        var notes: [String] = []
        for (name, type) in catalog.types.sorted(by: { $0.key < $1.key }) {
            for output in type.outputs where DriverFunctions.names.contains(output.name) {
                notes.append("note: screen \(name)'s output '\(output.name)' hides the driver function \(output.name)(...) while \(name) is visible: type _G.\(output.name)(...) for the function")
            }
        }
        return notes.map { $0 + "\n" }.joined()
    }
}
