import CoordinatorScript

/// A search's report in words (`coordrun explore`'s text, ``ExploreReport/text``): the counts and how far
/// the search went, then each finding with its path; as ``ExploreSARIF`` writes it for code scanning.
package enum ExploreText {
    /// The report as text: the counts, then each finding with its path.
    static func text(of report: ExploreReport) -> String {
        let devices = report.idioms.count > 1 ? " on " + report.idioms.map(\.rawValue).joined(separator: " and ") : ""
        var lines = ["""
            explored \(report.script)\(devices): \(count(report.states.count, "state")), \
            \(count(report.transitions.count, "transition")) (\(count(report.steps, "step"))),
            """ + " " + reach(of: report)]
        func device(_ idiom: Idiom) -> String { report.idioms.count > 1 ? "(\(idiom.rawValue)) " : "" }
        if !report.unreachedTypes.isEmpty { lines.append("screen types never reached: " + report.unreachedTypes.joined(separator: ", ")) }
        let kinds = [("errors", report.errors), ("lifecycle violations", report.violations), ("outputs never handled", report.unhandled),
                     ("dead ends", report.deadEnds), ("invariants broken", report.invariantViolations), ("traps", report.traps)]
        for (title, findings) in kinds
            where !findings.isEmpty {
            lines.append("\(title): \(findings.count)")
            for finding in findings {
                lines.append("  " + finding.message.split(separator: "\n").prefix(1).joined())
                let steps = finding.path.isEmpty ? "(the start)" : finding.path.map(\.luaSource).joined(separator: " ")
                lines.append("    after: " + device(finding.idiom) + steps)
            }
        }
        if !report.properties.isEmpty {
            lines.append("properties:")
            for property in report.properties {
                let status = property.withinSteps.map { "holds within \(count($0, "step"))" } ?? property.status.rawValue
                lines.append("  \(property.kind.rawValue) '\(property.name)': \(status)" + (property.status == .violated ? "" : " (\(property.message))"))
            }
        }
        if !report.pendingCuts.isEmpty {
            lines.append("""
                not followed, more than \(count(report.pendingLimit, "request")) of a kind waiting (--max-pending): \
                \(count(report.cutByPending, "step"))
                """)
            for cut in report.pendingCuts {
                lines.append("  " + cut.message)
                let steps = cut.path.count == 1 ? "(the start)" : cut.path.dropLast().map(\.luaSource).joined(separator: " ")
                lines.append("    after: " + device(cut.idiom) + steps)
            }
        }
        if !report.unreproduced.isEmpty {
            lines.append("explorer faults (findings whose tests did not fail the same way in a fresh runtime: not the app's): \(report.unreproduced.count)")
            for finding in report.unreproduced { lines.append("  " + finding.message) }
        }
        if !report.failed {
            let none = report.properties.isEmpty ? "no errors, no lifecycle violations" : "no errors, no lifecycle violations, no property violated"
            lines.append(report.complete ? none : none + " in the states explored")
        }
        return lines.joined(separator: "\n")
    }


    /// How far the search went, as the report's first line says it: "every reachable state" only for a
    /// complete search; otherwise the limit that cut it and the states it left, or the view it used.
    static func reach(of report: ExploreReport) -> String {
        let left = count(report.unexpanded, "state") + " found and not expanded"
        let pending = report.cutByPending == 0 ? nil
            : """
                cut where more than \(count(report.pendingLimit, "request")) of a kind would wait (--max-pending): \
                \(count(report.cutByPending, "step")) not followed
                """
        var limit: String?
        if report.cutByGoal { limit = "stopped at the state it looked for: \(left)" }
        else if report.cutByTime { limit = "stopped at the time limit (\(report.timeLimit.map { "\($0)" } ?? "?") s): \(left)" }
        else if report.cutByStates { limit = "stopped at the state limit (\(report.stateLimit)): \(left)" }
        else if report.cutByDepth { limit = "cut at the depth limit (\(report.depthLimit) steps): \(left)" }
        if limit != nil || pending != nil { return [limit, pending].compactMap { $0 }.joined(separator: "; ") }
        if report.viewed { return "every state of the app's view (flow.view, __view: states it calls equal were explored once)" }
        return "every reachable state"
    }

    /// A digest of everything the search found: each state (its identity and shortest path) in the order
    /// found, each transition, each finding and each step not followed with its path, how far the search
    /// went. Two explorations with the same fingerprint found the same; the `--json` report carries it, to
    /// compare runs split among other workers or machines.
    static func fingerprint(of report: ExploreReport) -> String {
        var text = reach(of: report) + "\n"
        for state in report.states { text += state.key + " " + state.path.map(\.luaSource).joined(separator: " ") + "\n" }
        for t in report.transitions { text += "\(t.from) \(t.to) \(t.action.luaSource)\n" }
        let findings = report.reproducible.map { ($0.kind.rawValue, $0.finding) } + report.traps.map { ("trap", $0) }
            + report.unreproduced.map { ("explorer fault", $0) }
        for (kind, finding) in findings {
            text += kind + ": " + finding.message + " after " + finding.path.map(\.luaSource).joined(separator: " ") + "\n"
        }
        for property in report.properties { text += "property \(property.kind.rawValue) \(property.name): \(property.status.rawValue)\n" }
        for cut in report.pendingCuts { text += "not followed: " + cut.message + " after " + cut.path.map(\.luaSource).joined(separator: " ") + "\n" }
        text += report.unreachedTypes.joined(separator: " ")
        return "sha256:" + SHA256.hex(SHA256.digest(Array(text.utf8)))
    }

    /// `count` and `noun`, plural when count is not 1.
    static func count(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}
