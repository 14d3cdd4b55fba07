import CoordinatorScript

/// Where every branch of an exploration starts (``Explorer/Options/Base``): the app started, at a link, or
/// restored from a snapshot, with the gateway in the state, the window as wide and the storage as the
/// explorer's first runtime had them, on its device (a step that signed in or rotated does not carry over to the next
/// branch).
struct ExploreBase {
    let kind: Explorer.Options.Base
    /// The gateway's state the exploration began in.
    let state: AppState
    /// The window's width it began at.
    let width: SizeClass
    /// The device it ran on.
    let idiom: Idiom
    /// The storage it began with (what the maker's runtime loaded its scripts with).
    let storage: FlowRecord
    /// A snapshot's secrets, by name (else the environment gives them).
    let secrets: [String: FlowValue]

    /// The base `kind` of the app as `app` is now, before anything ran.
    init(_ kind: Explorer.Options.Base, secrets: [String: FlowValue], of app: Application) {
        (self.kind, self.secrets) = (kind, secrets)
        (state, width, idiom, storage) = (app.gateway.state, app.window.sizeClass, app.idiom, app.storage.values)
    }

    /// Brings `runtime`'s app to the base.
    func bring(_ runtime: ScriptRuntime) throws {
        let app = runtime.app
        switch kind {
        case .start:
            try app.atomically {
                app.rewindClock() // as a fresh runtime's, whatever a branch before advanced it to
                try runtime.reset(to: state, width: width, storage: storage, idiom: idiom, starting: true)
            }
        case .link(let url):
            try app.atomically {
                app.rewindClock()
                try runtime.reset(to: state, width: width, storage: storage, idiom: idiom, starting: false)
                try runtime.open(url)
            }
        case .snapshot(let json):
            try runtime.restore(json) { secret in try secrets[secret.name] ?? SecretText.fromEnvironment(secret) }
        }
    }
}

/// What re-running transitions in fresh runtimes found (`coordrun explore --verify`): the check that branches
/// were isolated and that states are told apart the same way in every runtime.
package struct ExploreVerification {
    /// What both re-runs found (the searches of two devices).
    package static func + (first: ExploreVerification, second: ExploreVerification) -> ExploreVerification {
        ExploreVerification(checked: first.checked + second.checked, mismatches: first.mismatches + second.mismatches)
    }

    private init(checked: Int, mismatches: [(path: [UserStep], message: String)]) {
        (self.checked, self.mismatches) = (checked, mismatches)
    }

    /// Transitions re-run.
    package let checked: Int
    /// Those that reached another state than the search recorded: each its path and what happened.
    package let mismatches: [(path: [UserStep], message: String)]

    /// Re-runs up to `sample` of `report`'s transitions (spread evenly over them, the first and last
    /// included), each in a fresh runtime `make` builds that replays the path from `base` under
    /// `timeLimit`, and compares the state reached with the one the search recorded.
    init(_ report: ExploreReport, sample: Int, base: ExploreBase, timeLimit: Double?, make: Explorer.RuntimeMaker) throws {
        let transitions = report.transitions
        guard !transitions.isEmpty, sample > 0 else {
            (checked, mismatches) = (0, [])
            return
        }
        let count = min(sample, transitions.count)
        var picked: [Int] = []
        for i in 0..<count {
            let index = count == 1 ? 0 : i * (transitions.count - 1) / (count - 1)
            if picked.last != index { picked.append(index) }
        }
        var mismatches: [(path: [UserStep], message: String)] = []
        for index in picked {
            let transition = transitions[index]
            let path = report.states[transition.from].path + [transition.action]
            let expected = report.states[transition.to].key
            let fresh = try make()
            let reached: String
            do {
                reached = try fresh.lua.withTimeLimit(timeLimit) {
                    try base.bring(fresh)
                    try fresh.app.atomically { for step in path.dropLast() { try fresh.app.perform(step) } }
                    try fresh.app.atomicallyRendering { try fresh.app.perform(transition.action) }
                    return try fresh.stateIdentity().key
                }
            } catch {
                mismatches.append((path, "fails in a fresh runtime: " + Explorer.text(of: error).firstLine))
                continue
            }
            if reached != expected { mismatches.append((path, "reaches another state in a fresh runtime than the search recorded")) }
        }
        (checked, self.mismatches) = (picked.count, mismatches)
    }
}
