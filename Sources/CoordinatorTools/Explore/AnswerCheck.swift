/// A workforce's answers checked against this process's own expansion: a worker elsewhere (a queue's,
/// docs/Explore.md) is not believed. A random share of its answers (``sample``) and every answer that
/// reports a finding are expanded again here, and an answer that differs ends the exploration naming the
/// worker that gave it (``Mismatch``), so a rewritten answer (a crashing step made harmless, a finding
/// invented) never reaches the report.
package struct AnswerCheck {
    /// The explorer that expands the states again (the coordinator's own).
    package let explorer: Explorer
    /// The share of answers expanded again, from 0 to 1.
    package let sample: Double

    /// A check of answers by `explorer`, re-running `sample` of them (0–1) and every one with a finding.
    package init(explorer: Explorer, sample: Double) {
        self.explorer = explorer
        self.sample = min(max(sample, 0), 1)
        types = Set(explorer.runtime.app.catalog.names + explorer.runtime.coordinatorClassNames)
    }

    /// The app's screen types and coordinator classes, whose objects' ids count each runtime's history.
    private let types: Set<String>

    /// An answer that differs from this process's expansion of the same state.
    package struct Mismatch: Error, CustomStringConvertible {
        /// The state's number.
        package let state: Int
        /// The worker that answered (its name on the queue: host and process).
        package let worker: String
        /// What it answered, and what this process found (as the wire writes them, shortened).
        package let answered: String, found: String
        package var description: String {
            "worker \(worker) answered state \(state) otherwise than this process expands it (it answered \(Self.short(answered)); "
                + "this process found \(Self.short(found))): its answers are not believed, and the exploration ends"
        }

        /// A worker's text as a message quotes it: at most 300 characters.
        static func short(_ text: String) -> String { text.count <= 300 ? text : String(text.prefix(299)) + "…" }
    }

    /// The expansions a worker's answers (a line a request, in order) say, each read as the worker's word:
    /// a batch answered in part, a line that is not an answer, or a state the worker says it could not
    /// expand ends the exploration naming the worker and what it answered, never as the app's fault. (A
    /// failure is not expanded again here: a state may end the process that expands it, as the workers
    /// that gave up on it found.)
    package func read(_ answers: String, to requests: [ExploreRequest], from worker: String) throws -> [Explorer.Expansion] {
        let lines = answers.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == requests.count else {
            throw Explorer.WorkerFailure(message: """
                worker \(worker) answered \(lines.count) of the \(requests.count) states of a batch: its answers are \
                not believed, and the exploration ends
                """)
        }
        return try zip(lines, requests).map { line, request in
            do {
                return try Explorer.Expansion(answer: String(line))
            } catch let failure as Explorer.WorkerFailure {
                throw Explorer.WorkerFailure(message: "worker \(worker) answered that it could not expand state \(request.index): "
                                             + Mismatch.short(failure.message))
            } catch {
                throw Explorer.WorkerFailure(message: "worker \(worker) answered state \(request.index) with what is not an answer (\(error)): "
                                             + Mismatch.short(String(line)) + ": its answers are not believed, and the exploration ends")
            }
        }
    }

    /// Checks `expansions`, the answers `worker` gave to `requests` (in order); throws ``Mismatch`` at the
    /// first that differs. How many it expanded again.
    @discardableResult
    package func check(_ requests: [ExploreRequest], _ expansions: [Explorer.Expansion], from worker: String) throws -> Int {
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        for (request, answer) in zip(requests, expansions) {
            let findings = !answer.leftAlive.isEmpty || answer.outcomes.contains { outcome in
                switch outcome.result {
                case .failed: return true
                case .state(let seen) where !seen.brokenInvariants.isEmpty || seen.propertyFault != nil: return true // a property broken
                default: return outcome.unhandled != nil || !outcome.violations.isEmpty
                }
            }
            guard findings || Double.random(in: 0..<1, using: &generator) < sample else { continue }
            checked += 1
            let own = try explorer.expand(request.path, expecting: request.key)
            let (found, answered) = (comparable(own), comparable(answer))
            guard found == answered else { throw Mismatch(state: request.index, worker: worker, answered: answered, found: found) }
        }
        return checked
    }

    /// What an expansion says of the app: not how many fresh runtimes it took, nor the ids of the app's
    /// objects (both count the runtime's own history, as the report's findings leave them out).
    private func comparable(_ expansion: Explorer.Expansion) -> String {
        var expansion = expansion
        expansion.freshRuntimes = 0
        return expansion.value.json.withoutObjectIDs(of: types)
    }
}
