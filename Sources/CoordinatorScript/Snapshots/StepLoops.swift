import CoordinatorCore

/// Keeps the app's steps free of loops for a runtime that drops them (``ScriptRuntime/dropsStepLoops``), so
/// that a snapshot replays a path to the app's state, not the whole conversation that led there.
///
/// It notes the state's identity (``StateIdentity``, exact: no view, without Lua's random generator, which
/// a snapshot does not hold) after the app starts and at every
/// snapshot, under the number of steps taken then. When a snapshot finds the app in a state it was in after
/// fewer of its current steps, the steps since then are dropped: the ones kept lead to the same state (the
/// same identity is everything a later step can observe), and the snapshot then replays those. What was
/// noted holds while the steps it counted stay (``StepLog/epoch``); a snapshot carries it (`stateKeys`),
/// and a restore takes it back, so the conversation stays loop-free across sessions.
///
/// Costs one identity per snapshot, and what it drops; memory, one identity per number of steps kept.
final class StepLoops {
    /// The identity after each number of steps, where one was noted (nil where none).
    private var keys: [String?] = []
    /// The fewest steps after which each identity was noted.
    private var fewest: [String: Int] = [:]
    /// The step log's epoch the notes belong to.
    private var epoch = -1

    /// Forgets what was noted when the steps it counted changed since.
    private func align(with log: StepLog) {
        guard epoch != log.epoch else { return }
        (keys, fewest, epoch) = ([], [:], log.epoch)
    }

    /// Notes the state the app is in now under its number of steps, and drops the steps taken since it was in
    /// that state after fewer of them (one operation; the app is unchanged, its steps shorter).
    func settle(in runtime: ScriptRuntime) throws {
        let app = runtime.app, log = app.stepLog
        guard !log.overflowed else { return }
        align(with: log)
        let count = log.steps.count
        // Data nested too deep to walk has no identity: its steps keep their loops (the snapshot is right still).
        // As a snapshot restores the state: Lua's random generator is not part of it.
        guard let key = try? runtime.stateIdentity(views: false, randomState: false).key else { return }
        if let earlier = fewest[key], earlier < count {
            try app.atomically { log.reset(to: Array(log.steps.prefix(earlier))) }
            forget(after: earlier)
            epoch = log.epoch
            return
        }
        note(key, at: count)
    }

    /// What was noted, for a snapshot: each number of steps with the identity after them.
    func noted(in log: StepLog) -> FlowValue {
        align(with: log)
        var list: [FlowValue] = []
        for (count, key) in keys.enumerated() where count <= log.steps.count {
            if let key { list.append(.record(["steps": .int(count), "state": .string(key)])) }
        }
        return .list(list)
    }

    /// Takes back what a snapshot noted (`value`, as ``noted(in:)`` writes it), for the steps a restore
    /// just took again; entries that are not well formed, or count more steps than there are, are left out.
    func restore(_ value: FlowValue?, in log: StepLog) {
        (keys, fewest, epoch) = ([], [:], log.epoch)
        for entry in value?.listValue ?? [] {
            guard let count = entry["steps"]?.intValue, count >= 0, count <= log.steps.count,
                  let key = entry["state"]?.stringValue else { continue }
            note(key, at: count)
        }
    }

    private func note(_ key: String, at count: Int) {
        if keys.count <= count { keys += Array(repeating: nil, count: count + 1 - keys.count) }
        if let old = keys[count], fewest[old] == count { fewest[old] = nil } // the state there changed without a step
        keys[count] = key
        if (fewest[key] ?? Int.max) > count { fewest[key] = count }
    }

    /// Forgets the notes past `count` steps (those steps were dropped).
    private func forget(after count: Int) {
        while keys.count > count + 1 {
            if let key = keys.removeLast(), fewest[key] == keys.count { fewest[key] = nil }
        }
    }
}
