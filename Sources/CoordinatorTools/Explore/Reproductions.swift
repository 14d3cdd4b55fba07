
import CoordinatorScript
extension ExploreReport {
    /// The findings as a test file in the `coordrun test` format (docs/Testing.md): one test each, taking
    /// the shortest path from the start to it. An error's, an unhandled output's and a lifecycle violation's
    /// test fails the way the exploration did (strict driving and the oracle); a dead end's ends with a
    /// `back()` that fails. `app` is the script as the test file names it; `base` where the exploration
    /// began (a link or a snapshot: each test opens or restores it first).
    public func testFile(app: String, base: Explorer.Options.Base = .start) -> String {
        let start: [String] = switch base {
        case .start: []
        case .link(let url): [UserStep.open(url).luaSource]
        case .snapshot(let json): ["restore(" + LuaSyntax.quoted(json) + ")"]
        }
        var lines = [
            "-- Found by `coordrun explore` (docs/Explore.md): each test takes the shortest path to what it names.",
            "app " + LuaSyntax.quoted(app),
        ]
        var number = 0
        func add(_ kind: String, _ finding: Finding, ending: [String] = []) {
            number += 1
            let title = "\(kind) \(number): " + (finding.message.split(separator: "\n").first.map(String.init) ?? "")
            lines.append("")
            lines.append("test(" + LuaSyntax.quoted(title) + ", function()")
            for call in start + finding.path.map(\.luaSource) + ending { lines.append("  " + call) }
            lines.append("end)")
        }
        for finding in errors { add("error", finding) }
        for finding in violations { add("lifecycle", finding) }
        for finding in unhandled { add("unhandled", finding) }
        for finding in deadEnds { add("dead end", finding, ending: ["back() -- no way back"]) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether there is anything to reproduce.
    public var hasFindings: Bool { !errors.isEmpty || !violations.isEmpty || !unhandled.isEmpty || !deadEnds.isEmpty }
}
