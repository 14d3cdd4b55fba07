import CoordinatorScript

/// What the app's properties (`flow.invariant`, `flow.reachable`) say of each state an explorer reaches:
/// the invariants it breaks and the reachable properties' goals it is, evaluated once per state (a state's
/// identity is everything a property can read) — the explorer's part that checks them.
struct PropertyChecks {
    /// What the properties said of a state.
    struct Verdict {
        /// The invariants that do not hold there.
        let broken: [BrokenInvariant]
        /// The reachable properties whose predicate holds there, by name.
        let goals: [String]
        /// Why they could not be checked there (one changed the scripts' data), or nil.
        let fault: String?
    }

    /// The verdicts given so far, by the state's identity.
    private var seen: [String: Verdict] = [:]

    /// The verdict on the state `runtime` is at, whose identity is `key`; `identity` walks the state again,
    /// under the step's time limit. A property may not change anything: one that changed the scripts' data
    /// (the identity after them is another) is the state's fault, and the runtime is no longer at the state.
    mutating func verdict(at key: String, in runtime: ScriptRuntime, timeLimit: Double?, identity: () throws -> String) throws -> Verdict {
        if let known = seen[key] { return known }
        let (invariants, goals) = try runtime.lua.withTimeLimit(timeLimit) { (try runtime.checkInvariants(), try runtime.checkGoals()) }
        var fault: String?
        if try identity() != key {
            fault = "a property changed the app's data (" + runtime.declaredProperties.map { "'\($0.name)'" }.joined(separator: ", ")
                + "): a property only reads"
        }
        let verdict = Verdict(broken: invariants.filter { !$0.holds }.map { BrokenInvariant(name: $0.name, failure: $0.failure) },
                              goals: goals.filter(\.holds).map(\.name), fault: fault)
        seen[key] = verdict
        return verdict
    }
}

/// An invariant that does not hold at a state: its name, and why it could not be told (its function
/// failed) when that is why.
package struct BrokenInvariant: Equatable {
    package let name: String
    package let failure: String?
}
