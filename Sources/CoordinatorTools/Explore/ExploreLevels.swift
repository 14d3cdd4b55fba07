import CoordinatorScript

/// A state to expand, as a worker is asked for it: its index in the report, the shortest path to it and
/// its identity (the worker checks that it reaches it).
public struct ExploreRequest: Sendable {
    /// Its index in ``ExploreReport/states``.
    public let index: Int
    /// The steps from the exploration's base.
    public let path: [UserStep]
    /// Its identity (``Explorer/StateSeen/key``).
    public let key: String

    /// A request for the state at `index` reached by `path`, whose identity is `key`.
    package init(index: Int, path: [UserStep], key: String) {
        (self.index, self.path, self.key) = (index, path, key)
    }
}

/// Where the states of a level are expanded: in this process, by worker processes on pipes, or by workers
/// anywhere through a PostgreSQL queue (`coordrun explore --workers`, `--queue`).
public protocol ExploreWorkforce {
    /// Expands every state of every batch, and hands each batch's expansions (in the batch's order) to
    /// `take`, the batches in any order; stops as soon as `take` returns false.
    func expand(_ batches: [[ExploreRequest]], take: (_ batch: Int, _ expansions: [Explorer.Expansion]) throws -> Bool) throws
}

/// The breadth-first search a level at a time (``Explorer``): each level's states handed to a workforce in
/// batches, and what each gave taken into the report in the level's order, whichever batch came back
/// first. The order of the merge is the whole rule that makes the report of any workforce the report of one
/// process: the same states numbered the same, the same transitions, the same first (shortest) path to each
/// state and finding, the same cut at the state limit.
public struct ExploreLevels {
    /// The explorer whose base and limits the search has (its runtime expands nothing when the
    /// workforce is elsewhere).
    package let explorer: Explorer

    /// A search with `explorer`'s base and limits.
    public init(explorer: Explorer) { self.explorer = explorer }

    /// How many states a batch of a level of `count` states holds when `workers` share it: about four
    /// batches a worker (so that one slow batch does not hold the level up, and a worker that stops loses
    /// little), and at most 64 states (for a queue, whose workers come and go).
    package static func batchSize(level count: Int, workers: Int) -> Int {
        let parts = 4 * max(workers, 1)
        return max(1, min(64, (count + parts - 1) / parts))
    }

    /// How many states a batch holds when the level is expanded in this process: each batch is reached
    /// from the base once, down the tree of its states' paths (``Explorer/expand(_:expanded:)``), and the
    /// state and time limits are looked at between batches.
    package static let inProcessBatch = 256

    /// Searches until every state within the depth is expanded or a limit is met, each level cut into
    /// batches for `workers` workers (``batchSize(level:workers:)``; nil: expanded in this process, in
    /// batches of ``inProcessBatch``).
    public func run(workforce: some ExploreWorkforce, workers: Int?) throws -> ExploreReport {
        let options = explorer.options
        let began = Clock.now()
        var report = ExploreReport(script: explorer.runtime.scriptFiles.first ?? "", base: try explorer.start(), limits: options,
                                   itemLabels: explorer.itemLabels, properties: explorer.runtime.declaredProperties,
                                   idiom: explorer.runtime.app.idiom)
        report.objectTypes = Set(explorer.runtime.app.catalog.names + explorer.runtime.coordinatorClassNames)
        report.secretOutputs = explorer.secretOutputs
        var level = 0..<1
        var expandedCount = 0
        func outOfTime() -> Bool { options.timeLimit.map { Clock.now() - began > $0 } ?? false }
        if options.stopAt != nil, report.states[0].seen.isStop { report.cutByGoal = true; level = 0..<0 }
        search: while !level.isEmpty {
            if outOfTime() { report.cutByTime = true; break }
            // Every state of a level is as many steps from the base as the others.
            guard report.states[level.lowerBound].path.count < options.depth else {
                report.cutByDepth = true
                break
            }
            let found = report.states.count
            let requests = level.map { ExploreRequest(index: $0, path: report.states[$0].path, key: report.states[$0].key) }
            let size = workers.map { Self.batchSize(level: requests.count, workers: $0) } ?? Self.inProcessBatch
            let batches = stride(from: 0, to: requests.count, by: size).map { Array(requests[$0..<min($0 + size, requests.count)]) }
            // Batches that came back before the ones in front of them wait here for their turn.
            var waiting: [Int: [Explorer.Expansion]] = [:]
            var merged = 0, taken = level.lowerBound
            try workforce.expand(batches) { batch, expansions in
                waiting[batch] = expansions
                while let ready = waiting.removeValue(forKey: merged) {
                    for (request, expansion) in zip(batches[merged], ready) {
                        report.freshRuntimes += expansion.freshRuntimes
                        let added = report.record(expansion, from: request.index, maxStates: options.maxStates)
                        if options.stopAt != nil, added.contains(where: { report.states[$0].seen.isStop }) { report.cutByGoal = true }
                        expandedCount += 1
                        taken = request.index + 1
                        if expandedCount % max(options.progressEvery, 1) == 0, let progress = explorer.progress {
                            progress(Explorer.Progress(states: report.states.count, transitions: report.steps,
                                                       frontier: report.states.count - request.index - 1, seconds: Clock.now() - began))
                        }
                        if report.cutByStates || report.cutByGoal { return false }
                    }
                    merged += 1
                }
                if outOfTime() { report.cutByTime = true; return false }
                return true
            }
            if report.cutByStates || report.cutByTime || report.cutByGoal {
                // What was not taken in stays unexpanded, as in a search that stopped there.
                level = taken..<report.states.count
                break search
            }
            level = found..<report.states.count
        }
        report.unexpanded = level.count
        report.finish(catalog: explorer.runtime.app.catalog.names)
        return report
    }
}
