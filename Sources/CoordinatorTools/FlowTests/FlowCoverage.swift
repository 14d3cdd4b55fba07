import CoordinatorScript

/// What flow tests reached of an app: its screen types, their outputs and its coordinator classes, each
/// reached or not (`coordrun test --coverage`, `--coverage-json FILE`).
package struct FlowCoverage: Sendable, Equatable {
    /// The app's main script.
    package var app: String
    /// Every screen type the app declares, and whether a test showed one.
    package var screens: [String: Bool] = [:]
    /// Every output, as `Screen.output`, and whether a test emitted it.
    package var outputs: [String: Bool] = [:]
    /// Every coordinator class, and whether a test started one.
    package var coordinators: [String: Bool] = [:]

    /// Coverage of `app` with nothing reached.
    package init(app: String) { self.app = app }

    /// Adds what `other` (another test of the same app) reached.
    package mutating func merge(_ other: FlowCoverage) {
        for (k, v) in other.screens { screens[k] = (screens[k] ?? false) || v }
        for (k, v) in other.outputs { outputs[k] = (outputs[k] ?? false) || v }
        for (k, v) in other.coordinators { coordinators[k] = (coordinators[k] ?? false) || v }
    }

    /// The report `--coverage` prints: per kind, how many were reached, and the names never reached.
    package var text: String {
        var lines = ["coverage of \(app):"]
        for (kind, items) in [("screen types", screens), ("outputs", outputs), ("coordinator classes", coordinators)] {
            let missed = items.filter { !$0.value }.keys.sorted()
            let never = missed.isEmpty ? "" : "; never: " + missed.joined(separator: ", ")
            lines.append("  \(kind): \(items.count - missed.count) of \(items.count) reached" + never)
        }
        return lines.joined(separator: "\n")
    }

    /// The same as JSON: `{"app": ..., "coordinators": {"missed": [...], "reached": [...]}, "outputs": ..., "screens": ...}`.
    package var json: String {
        func part(_ items: [String: Bool]) -> FlowValue {
            ["reached": .list(items.filter(\.value).keys.sorted().map(FlowValue.string)),
             "missed": .list(items.filter { !$0.value }.keys.sorted().map(FlowValue.string))]
        }
        let document: FlowValue = ["app": .string(app), "screens": part(screens), "outputs": part(outputs), "coordinators": part(coordinators)]
        return document.json
    }
}
