import CoordinatorScript

/// Run mode's line rules (`coordrun SCRIPT`): a number triggers that action, `back` is the system back,
/// and a line whose first word is an output of the visible screen emits it, with the rest of the line as
/// its payload (a Lua expression).
extension REPL {
    /// Runs `line` when it is one of run mode's shortcuts; nil when it is not (it is Lua then).
    func runModeLine(_ line: String) throws -> LineOutcome? {
        let step: String
        if let number = Int(line) {
            step = try operation { try tapAction(number) }
        } else if line == "back" {
            step = try operation { try perform(.back) }
        } else if let (output, rest) = outputCommand(line) {
            // One operation: a payload expression that navigates (`toggle back()`) is undone with the tap when
            // the tap then fails.
            do {
                step = try operation {
                    let payload = rest.isEmpty ? nil : try runtime.lua.evaluate("return " + rest, name: chunkName, as: FlowValue?.self)
                    return try perform(.tap(output, payload: payload))
                }
            } catch var error as NavigationError where DriverFunctions.names.contains(output) && notedHiddenFunctions.insert(output).inserted {
                error.message += " (here '\(output)' is this screen's output, which hides the driver function: type _G.\(output)(...) for it)"
                throw error
            }
        } else if LuaSyntax.isName(line), try runtime.lua.globals.get(line, as: LuaValue.self) == .nil {
            // A bare name that is no output and no variable: a mistyped output, not `nil`.
            let screen = app.window.visibleScreen
            let outputs = ((try? ScreenAction.actions(in: app)) ?? []).map(\.output)
            var unique: [String] = []
            for output in outputs where !unique.contains(output) { unique.append(output) }
            throw NavigationError(.unknownOutput, "'\(line)' is neither an output of \(screen?.name ?? "the visible screen")"
                + (screen == nil ? " (no screen is showing)" : " (outputs: \(unique.isEmpty ? "none" : unique.joined(separator: ", ")))")
                + " nor a Lua variable")
        } else {
            return nil
        }
        return LineOutcome(replayable: true, step: step)
    }

    /// Triggers the visible screen's action `number` (counted from 1): the step it took.
    @discardableResult
    func tapAction(_ number: Int) throws -> String {
        guard app.window.visibleScreen != nil else { throw NavigationError(.noVisibleScreen, "no screen is visible") }
        let actions = try ScreenAction.actions(in: app)
        guard number >= 1, number <= actions.count else {
            throw NavigationError(.unknownOutput, "there is no action \(number)" + (actions.isEmpty ? " (this screen has none)" : " (1-\(actions.count))"))
        }
        let action = actions[number - 1]
        if action.needsPayload {
            throw NavigationError(.badPayload, "\(action.output) needs a payload: type `\(action.output) { ... }`")
        }
        return try perform(.tap(action.output, payload: action.payload))
    }

    /// Takes a step of the user: the step as a recorded test replays it, its Lua source (the payload as the
    /// data it was, whatever expression gave it).
    @discardableResult
    func perform(_ userStep: UserStep) throws -> String {
        try app.perform(userStep)
        return userStep.luaSource
    }

    /// What run mode says before the first screen: each output named like a driver function (`open`),
    /// which hides it at the prompt while its screen is visible.
    package var hiddenDriverFunctions: String { ScreenAction.notes(onDriverFunctionsHiddenIn: app.catalog) }

    /// The notes of ``hiddenDriverFunctions``, as the session shows them once: after them, a tap of such an
    /// output that fails no longer repeats the note.
    package func noteHiddenDriverFunctions() -> String {
        for type in app.catalog.types.values {
            for output in type.outputs where DriverFunctions.names.contains(output.name) { notedHiddenFunctions.insert(output.name) }
        }
        return hiddenDriverFunctions
    }

    /// `OUTPUT` or `OUTPUT payload` when the first word names an output of the visible screen (or of a
    /// split's column's top screen, side by side).
    func outputCommand(_ line: String) -> (String, String)? {
        let word = String(line.prefix { !$0.isWhitespace && $0 != "(" && $0 != "{" })
        guard !word.isEmpty, app.window.tappableScreens.contains(where: { $0.outputs.contains { $0.name == word } }) else { return nil }
        return (word, String(line.dropFirst(word.count)).trimmed)
    }
}
