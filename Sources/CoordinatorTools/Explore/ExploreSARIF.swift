import CoordinatorScript

/// An exploration's findings as SARIF 2.1.0 (`coordrun explore --sarif FILE`), the format code-scanning
/// views read: one result per finding, at the `file:line` its message or traceback names in the app's
/// scripts (else the app's main script), with the path that reproduces it in the message.
package enum ExploreSARIF {
    /// The rules: one per kind of finding, with its level.
    static let rules: [(id: String, kind: ExploreReport.Kind, level: String, text: String)] = [
        ("explore/error", .error, "error", "A step fails: a Lua error in a handler, a navigation error, a screen that does not render, a step that times out."),
        ("explore/lifecycle", .lifecycle, "error", "A running flow shows no screen, or a finished flow or a screen that left stays alive."),
        ("explore/unhandled", .unhandled, "warning", "A tap that no handler hears."),
        ("explore/dead-end", .deadEnd, "note", "A state with no way forward and no way back."),
        ("explore/invariant", .invariant, "error", "A state breaks an invariant the app declares (flow.invariant)."),
        ("explore/trap", .trap, "error", "A state from which what a reachable property names can never hold again (flow.reachable)."),
    ]

    /// The SARIF document for `report`; `script` is the app's main script as given, `folder` the folder
    /// paths are made relative to (the repository a code-scanning view shows).
    package static func document(_ report: ExploreReport, script: String, folder: String) -> FlowValue {
        let results: [FlowValue] = (report.reproducible + report.traps.map { (.trap, $0) }).map { kind, finding in
            let rule = rules.first { $0.kind == kind } ?? rules[0]
            // A property's finding is where the property is declared.
            let declared = kind == .invariant || kind == .trap ? report.location(ofProperty: finding.message).flatMap { location(in: $0) } : nil
            let place = declared ?? location(in: finding.message) ?? (file: script, line: 1)
            var file = place.file
            if file.hasPrefix(folder + "/") { file = String(file.dropFirst(folder.count + 1)) }
            let path = finding.path.isEmpty ? "(the start)" : finding.path.map(\.luaSource).joined(separator: " ")
            return [
                "ruleId": .string(rule.id), "level": .string(rule.level),
                "message": ["text": .string(finding.message.firstLine + "\nafter: " + path)],
                "locations": [["physicalLocation": ["artifactLocation": ["uri": .string(file)], "region": ["startLine": .int(place.line)]]]],
            ]
        }
        let driver: FlowValue = [
            "name": "coordrun explore",
            "informationUri": "https://github.com/coordinator-runtime/coordinator/blob/main/docs/Explore.md",
            "rules": .list(rules.map {
                    ["id": .string($0.id), "shortDescription": ["text": .string($0.text)], "defaultConfiguration": ["level": .string($0.level)]]
                }),
        ]
        return [
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [["tool": ["driver": driver], "results": .list(results)]],
        ]
    }

    /// The first `path.lua:LINE` in `text` (a Lua error's place, or its traceback's first frame in a script).
    static func location(in text: String) -> (file: String, line: Int)? {
        for line in text.split(separator: "\n") {
            for word in line.split(separator: " ") {
                let parts = word.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count >= 2, parts[0].hasSuffix(".lua"), let number = Int(parts[1]), number > 0 else { continue }
                return (String(parts[0]).trimmingPrefix("..."), number)
            }
        }
        return nil
    }
}

private extension String {
    func trimmingPrefix(_ prefix: String) -> String { hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self }
}
