import CoordinatorScript

extension ExploreReport {
    /// A finding's kind, as its test's title names it.
    package enum Kind: String, Sendable {
        /// A step that failed.
        case error
        /// What the lifecycle oracle found.
        case lifecycle
        /// A tap no handler heard.
        case unhandled
        /// A state with no way forward and no way back.
        case deadEnd = "dead end"
        /// A state that breaks an invariant (`flow.invariant`).
        case invariant
        /// A state from which a reachable property (`flow.reachable`) can never hold again.
        case trap
    }

    /// The findings a test file reproduces, in the order ``testFile(app:base:preamble:)`` writes them.
    package var reproducible: [(kind: Kind, finding: Finding)] {
        errors.map { (.error, $0) } + violations.map { (.lifecycle, $0) } + unhandled.map { (.unhandled, $0) } + deadEnds.map { (.deadEnd, $0) }
            + invariantViolations.map { (.invariant, $0) }
    }

    /// The traps the search found, one per reachable property it violates (with the shortest path to it):
    /// found on the graph, so no single test reproduces one.
    package var traps: [Finding] {
        properties.filter { $0.kind == .reachable && $0.status == .violated }.map { Finding(path: $0.path ?? [], message: $0.message, idiom: $0.idiom) }
    }

    /// The findings as a test file in the `coordrun test` format (docs/Testing.md): one test each, taking
    /// the shortest path from the start to it. An error's, an unhandled output's and a lifecycle violation's
    /// test fails the way the exploration did (strict driving and the oracle); a dead end's ends with a
    /// `back()` that fails. `app` is the script as the test file names it; `base` where the exploration
    /// began (a link or a snapshot: each test opens or restores it first); `preamble` the Lua that ran
    /// before the app loaded (the variant explored: `--set`, `-e`).
    package func testFile(app: String, base: Explorer.Options.Base = .start, preamble: [String] = []) -> String {
        let start: [String] = switch base {
        case .start: []
        case .link(let url): [UserStep.open(url).luaSource]
        case .snapshot(let json): ["restore(" + LuaSyntax.quoted(json) + ", " + SecretText.readFunction + ")"]
        }
        var lines = ["-- Found by `coordrun explore` (docs/Explore.md): each test takes the shortest path to what it names."]
        lines += preamble
        lines.append("app " + LuaSyntax.quoted(app))
        let next = transitionsByAction
        for (number, (kind, finding)) in reproducible.enumerated() {
            let title = "\(kind.rawValue) \(number + 1): " + finding.message.firstLine
            lines.append("")
            // A test on another device than a phone says so (the app's line launches it on a phone).
            let device = finding.idiom == .phone ? "" : "{ idiom = " + LuaSyntax.quoted(finding.idiom.rawValue) + " }, "
            lines.append("test(" + LuaSyntax.quoted(title) + ", " + device + "function()")
            for call in start { lines.append("  " + call) }
            // A step on the way that breaks an invariant is expected to (the test goes on to its finding); an
            // invariant's own test fails at the step that breaks it.
            var state = 0
            for (i, step) in finding.path.enumerated() {
                let reached = next[state]?[step.luaSource]
                for name in reached.map({ states[$0].brokenInvariants.map(\.name) }) ?? []
                where !(kind == .invariant && i == finding.path.count - 1 && finding.message.hasPrefix("invariant '\(name)' does not hold")) {
                    lines.append("  expect.invariantFails(" + LuaSyntax.quoted(name) + ")")
                }
                lines.append("  " + step.luaSource)
                state = reached ?? state
            }
            if kind == .deadEnd { lines.append("  back() -- no way back") }
            lines.append("end)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The state each action leads to from each state, by the action's driver call.
    private var transitionsByAction: [Int: [String: Int]] {
        var next: [Int: [String: Int]] = [:]
        for transition in transitions where next[transition.from]?[transition.action.luaSource] == nil {
            next[transition.from, default: [:]][transition.action.luaSource] = transition.to
        }
        return next
    }

    /// Whether there is anything to reproduce.
    package var hasFindings: Bool { !reproducible.isEmpty }

    /// Where the property a finding breaks was declared (`shop.lua:40`), for a finding of one.
    package func location(ofProperty message: String) -> String? {
        declaredProperties.first { message.contains("'\($0.name)'") }?.location
    }

    /// A finding's test, run in a fresh runtime.
    package struct Reproduction {
        /// What the finding is.
        package let kind: Kind
        /// The finding.
        package let finding: Finding
        /// Whether its test failed the way the exploration did.
        package let reproduced: Bool
        /// How its test ended ("passed", or its failure's message).
        package let outcome: String
    }

    /// Runs `file` (what ``testFile(app:base:preamble:)`` wrote for this report) with the lifecycle oracle
    /// after every step, and says for each finding whether its test failed the same way: an error's with
    /// its message (the place aside), an unhandled output's and a lifecycle violation's with theirs, a
    /// dead end's at all. Each test runs under `limits`, as the exploration did. Throws when the file cannot
    /// be loaded.
    package func reproduce(testFile file: String, timeLimit: Double?, limits: RuntimeLimits = RuntimeLimits()) throws -> [Reproduction] {
        // Each runtime readied as the exploration's were (silent: what handlers print is not the report's).
        let results = try FlowTests.run(file, strictLifecycle: true, timeLimit: timeLimit, limits: limits, prepare: Explorer.prepare)
        return reproducible.enumerated().map { i, pair in
            let (kind, finding) = pair
            guard i < results.count, let (message, _) = results[i].outcome.failure else {
                return Reproduction(kind: kind, finding: finding, reproduced: false, outcome: "its test passed")
            }
            // Both sides alike: ids and places aside, control characters escaped (a name may hold one).
            let expected = Self.tail(of: finding.message).controlsEscaped.replacingDigits()
            let same = kind == .deadEnd
                || Self.withoutStepPlaces(message.withoutObjectIDs(of: objectTypes)).controlsEscaped.replacingDigits().contains(expected)
            return Reproduction(kind: kind, finding: finding, reproduced: same,
                                outcome: "its test failed with " + message.firstLine)
        }
    }

    /// The findings whose tests did not reproduce them move out of the app's findings into
    /// ``unreproduced``: they are the explorer's fault, not the app's.
    package mutating func withdraw(_ failures: [Reproduction]) {
        for failure in failures where !failure.reproduced {
            let message = failure.finding.message, idiom = failure.finding.idiom
            func it(_ finding: Finding) -> Bool { finding.message == message && finding.idiom == idiom }
            switch failure.kind {
            case .error: errors.removeAll(where: it)
            case .lifecycle: violations.removeAll(where: it)
            case .unhandled: unhandled.removeAll(where: it)
            case .deadEnd: deadEnds.removeAll(where: it)
            case .invariant: invariantViolations.removeAll(where: it)
            case .trap: break // found on the graph: never reproduced by a test
            }
            let named = message.hasPrefix(failure.kind.rawValue + ": ") ? message.firstLine : "\(failure.kind.rawValue): \(message.firstLine)"
            unreproduced.append(Finding(path: failure.finding.path, message: "\(named) — \(failure.outcome)", idiom: idiom))
        }
    }

    /// A test's message without the places of its steps: the oracle names a step of a test with its line
    /// (`tap("close") at app_test.lua:11`), a step of an exploration without one (`tap("close")`).
    static func withoutStepPlaces(_ message: String) -> String {
        let marker = " at "
        var out = "", rest = Substring(message)
        while let start = rest.indices.first(where: { rest[$0...].hasPrefix(marker) }) {
            out += rest[..<start]
            let after = rest[rest.index(start, offsetBy: marker.count)...]
            let word = after.prefix { $0 != " " && $0 != "\n" }
            let line = word.lastIndex(of: ":").map { word[word.index(after: $0)...] } ?? ""
            if !line.isEmpty, line.allSatisfy({ $0.isASCII && $0.isNumber }), !word.contains("(") {
                rest = after.dropFirst(word.count)
            } else {
                out += marker
                rest = after
            }
        }
        return out + rest
    }

    /// A message's first line without the `file:line: ` in front of it (a test names the file by another
    /// path than the explorer did) nor the `lifecycle: ` the report puts there.
    static func tail(of message: String) -> String {
        var line = Substring(message.firstLine)
        if line.hasPrefix("lifecycle: ") { line = line.dropFirst("lifecycle: ".count) }
        var rest = line[...]
        while let colon = rest.firstIndex(of: ":") {
            let after = rest[rest.index(after: colon)...]
            let digits = after.prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty, after.dropFirst(digits.count).hasPrefix(": ") {
                return String(after.dropFirst(digits.count + 2))
            }
            rest = after
        }
        return String(line)
    }
}
