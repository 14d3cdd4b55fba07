import CoordinatorScript

/// Walks every state an app can reach, breadth first (`coordrun explore`, docs/Explore.md): at each state
/// it takes every action the user has there — each output of the visible screen (each item of an output
/// that picks from a list, each example payload of one that takes a value), Back, the swipe-down of a
/// modal, every other tab — and notes where each leads.
///
/// A state is everything a later step can observe (docs/Explore.md): the navigation,
/// every screen's inputs, the gateway, and the Lua data — coordinators' `self`, handlers and what they
/// capture, globals, loaded modules, file-level locals. Two paths that lead to the same state explore it
/// once; an app that declares a view (`flow.view`, a class's `__view`) is compared by it instead, and the
/// report says so.
///
/// To branch, the explorer brings the app back to a state by taking the steps of the shortest path to it
/// again from the app's start: the only way that rebuilds the handlers and the Lua data of the flows on
/// the way exactly. Where the runtime kept something from an earlier branch (a file-level local the
/// restart does not reset), the state reached is not the one recorded: the explorer then takes a fresh
/// runtime from its maker and replays there, so that every branch starts from the state a fresh runtime
/// replaying its path reaches.
///
/// A runtime made `imageable` then takes each action at the state in a branch it comes back from
/// (``ScriptRuntime/branch(from:_:)``: the app's journal puts back what the step changed, an image the
/// scripts' heap) instead of replaying the path before each, and reaches a batch of states down the tree
/// of their paths (``expand(_:expanded:)``) instead of replaying each path. An action that finished a flow
/// or took a screen away is looked at in its branch, by a collection as its commit would leave the heap, and
/// taken once more for real only when that finds such an object's userdata alive, for the lifecycle
/// oracle's collection (a branch's log keeps what the step dropped, to put it back). ``Options/replay``
/// takes every action after a replay: the reference, reaching the same states with the same findings.
///
/// A path that leads elsewhere even in a fresh runtime means the app depends on more than its steps (the
/// clock, random numbers), or that a branch led elsewhere than the replay does: ``ExploreFailure``.
public final class Explorer {
    /// How far and how wide it goes, and where it starts.
    public typealias Options = ExploreOptions


    /// How far a search has come, for a progress line.
    package typealias Progress = ExploreProgress


    /// Makes a runtime with the app's scripts loaded, not started: the explorer's first, and a fresh one
    /// whenever a branch needs it (``Explorer``). Every runtime it makes must be the same: call
    /// ``prepare(_:)`` on each before loading the scripts.
    public typealias RuntimeMaker = () throws -> ScriptRuntime

    /// Makes a new runtime ready to be explored, before its scripts load: `math.random` seeded with
    /// ``randomSeed`` (Lua seeds it differently in every state, and its state is part of the app's),
    /// `print` silent (what handlers print while every state is tried would drown the report), warnings off,
    /// `os.exit` an error (it would end the exploration without its report).
    package static func prepare(_ runtime: ScriptRuntime) throws {
        runtime.lua.warningsEnabled = false
        runtime.app.draws.live = false // each value of a draw is a branch, given to it
        try runtime.lua.globals.set("print", runtime.lua.function(name: "print") { _ in })
        _ = try runtime.lua.run(randomSeeding, name: "=(explore)")
        try ExitGuard.install(in: runtime)
    }

    /// The seed of `math.random` in explored runtimes.
    package static let randomSeed = 0
    /// The Lua that seeds `math.random` as exploration does (the findings' test file starts with it).
    package static let randomSeeding = "if math then math.randomseed(\(randomSeed)) end"

    private let make: RuntimeMaker
    /// The runtime the search runs in now.
    package private(set) var runtime: ScriptRuntime
    /// How far and how wide it goes, and where it starts.
    package let options: Options
    /// Heard every ``Options/progressEvery`` expanded states (a progress line).
    package var progress: ((Progress) -> Void)?
    /// How many fresh runtimes branches needed (the runtime kept data of an earlier branch).
    public private(set) var freshRuntimes = 0
    private var app: Application { runtime.app }

    /// An explorer over runtimes `make` builds (scripts loaded, app not started); it makes the first now.
    public init(options: Options = Options(), runtime make: @escaping RuntimeMaker) throws {
        self.make = make
        self.options = options
        runtime = try make()
        firstSources = runtime.sources
        oracle = LifecycleOracle(app: runtime.app, listening: false)
        base = ExploreBase(options.base, secrets: options.secrets, of: runtime.app)
    }

    /// What an app looks like at a state, as the report keeps it.
    package typealias StateSeen = ExploredState



    /// What one action taken at a state gave.
    package typealias Outcome = ExploreOutcome


    /// What expanding one state gave: every action the user has there and where each led.
    public typealias Expansion = ExploreExpansion


    /// The base's identity, once ``start()`` reached it: where a walk begins (``walk(_:)``).
    private var baseKey: String?
    /// The scripts the first runtime loaded, by file: a fresh runtime that loads others was given files
    /// edited since (``ExploreFailure/scriptChanged(_:)``).
    private var firstSources: [String: String] = [:]
    /// Listens for finishes only while an action runs: a path replayed to reach a state builds no events.
    private var oracle: LifecycleOracle
    /// What runtimes replaced during the expansion under way left alive.
    private var leftInReplacedRuntimes: [LifecycleOracle.LeftAlive] = []

    /// The field each chosen item is read by, by `Screen.output`, for the outputs that declare one
    /// (``ExploreReport/itemLabels``).
    package var itemLabels: [String: String] {
        var labels: [String: String] = [:]
        for (name, type) in runtime.app.catalog.types {
            for output in type.outputs { if let label = output.itemLabel { labels[name + "." + output.name] = label } }
        }
        return labels
    }

    /// The outputs whose payloads hold a secret, by `Screen.output` (``ExploreReport/secretOutputs``).
    package var secretOutputs: [String: OutputSpec] {
        var secrets: [String: OutputSpec] = [:]
        for (name, type) in runtime.app.catalog.types {
            for output in type.outputs where output.secret != .nothing { secrets[name + "." + output.name] = output }
        }
        return secrets
    }

    /// Explores breadth first until every state within the depth is expanded, or a limit is met.
    public func run() throws -> ExploreReport {
        let levels = ExploreLevels(explorer: self)
        return try levels.run(workforce: InProcess(explorer: self), workers: nil)
    }

    /// This process as the only worker: each batch expanded here, in order.
    struct InProcess: ExploreWorkforce {
        let explorer: Explorer

        func expand(_ batches: [[ExploreRequest]], take: (Int, [Expansion]) throws -> Bool) throws {
            for (i, batch) in batches.enumerated() {
                let expansions = try explorer.expand(batch).map { try $0.get() }
                guard try take(i, expansions) else { return }
            }
        }
    }

    /// The app at the exploration's base, as the report's first state.
    package func start() throws -> StateSeen {
        // Heard: what the start leaves alive is the first state's own finding, as a flow test's start is.
        oracle.beforeStep("starting the app")
        oracle.listen()
        defer { oracle.stopListening() }
        try runtime.lua.withTimeLimit(options.stepTimeLimit) { try base.bring(runtime) }
        oracle.afterStep()
        let first = try seen()
        baseKey = first.key
        return first
    }

    /// Takes every action the user has at the state `path` leads to (each from that state), and says what
    /// each gave. `key`, the state's identity when known, is checked: a runtime that reaches another state
    /// there is replaced by a fresh one (``Explorer``). Used by ``run()``, and by worker processes that each
    /// expand part of a level (`coordrun explore --workers N`).
    package func expand(_ path: [UserStep], expecting key: String? = nil) throws -> Expansion {
        let freshBefore = freshRuntimes
        let origin = try goTo(path, expecting: key)
        let actions = try actionsHere()
        let outcomes: [Outcome]
        if branching {
            // The image is kept for the branches only: while one is, what a collection frees is released only
            // once none is (``takeForReal(_:at:origin:atState:)``).
            let branched = try branches(actions, at: path, origin: origin, image: try runtime.branchPoint())
            outcomes = try takeForReal(branched, at: path, origin: origin, atState: true)
        } else {
            outcomes = try replays(actions, at: path, origin: origin)
        }
        return finish(outcomes, actionCount: outcomes.count, freshBefore: freshBefore)
    }

    /// Expands the states `requests` name (part of a level, in the level's order), each as
    /// ``expand(_:expecting:)`` does, and says what each gave or why it could not be expanded. A runtime
    /// that branches reaches them without replaying their paths: down the tree their paths make from the
    /// base, each step taken once in a branch the walk comes back from, an image of the heap kept at each
    /// state on the way (``walk(_:)``); a state the walk could not reach is expanded after a replay.
    /// `expanded` hears of each state as its expansion is done (a queue's worker renews its lease).
    package func expand(_ requests: [ExploreRequest], expanded: () -> Void = {}) -> [Result<Expansion, any Error>] {
        guard branching, requests.count > 1 else {
            return requests.map { request in
                Result {
                    defer { expanded() }
                    return try expand(request.path, expecting: request.key)
                }
            }
        }
        let walked = walk(requests)
        return requests.indices.map { i in
            Result {
                defer { expanded() }
                let request = requests[i]
                guard let branched = walked[i] else { return try expand(request.path, expecting: request.key) }
                let freshBefore = freshRuntimes
                let outcomes = try takeForReal(branched, at: request.path, origin: request.key, atState: false)
                return finish(outcomes, actionCount: branched.outcomes.count, freshBefore: freshBefore)
            }
        }
    }

    /// Whether actions are taken in branches (a runtime made `imageable`, without ``Options/replay``).
    private var branching: Bool { !options.replay && runtime.canBranch }

    /// The actions the user has where the app is: ``UserActions``, and a relaunch where it may lead
    /// elsewhere than the start (the storage, the clock or the width is not the start's: with all three as
    /// at the start, a relaunch launches the app the start launched).
    private func actionsHere() throws -> [UserStep] {
        var actions = try runtime.lua.withTimeLimit(options.stepTimeLimit) { try UserActions.available(in: app, maxWindows: options.maxWindows) }
        if runtime.canRelaunch, app.storage.values != base.storage || app.clock.now != 0 || app.window.sizeClass != base.width {
            actions.append(.relaunch)
        }
        return actions
    }

    /// What a state's branches gave (``branches(_:at:origin:)``): each action's outcome, and which of them
    /// are still to be taken for real (``takeForReal(_:at:origin:atState:)``).
    private struct Branched {
        var outcomes: [Outcome]
        let forReal: [Int]
        /// Of those, the ones the branch found left nothing alive (taken for real only to check that,
        /// ``Options/checksBranches``).
        var leavesNothing: Set<Int> = []
    }

    /// The expansion of a state whose actions gave `outcomes`: what the lifecycle oracle finds alive at the
    /// end goes to the action that left it, or to the state. Looked for only when a step taken for real was
    /// heard since the last look (the base's start, an action after which no collection looked): a
    /// collection finds nothing new otherwise.
    private func finish(_ outcomes: [Outcome], actionCount: Int, freshBefore: Int) -> Expansion {
        var expansion = Expansion(actionCount: actionCount, outcomes: outcomes, leftAlive: [])
        defer { leftInReplacedRuntimes = [] }
        let found = oracle.heardSinceLastLook ? oracle.newlyLeftAlive(collecting: runtime.lua) : []
        for left in leftInReplacedRuntimes + found {
            if let step = left.step, let i = outcomes.firstIndex(where: { $0.action.luaSource == step }) {
                expansion.outcomes[i].violations.append(left.violation)
            } else {
                expansion.leftAlive.append(left.violation)
            }
        }
        expansion.freshRuntimes = freshRuntimes - freshBefore
        return expansion
    }

    /// Takes each of `actions` at the state `path` leads to (where the runtime is, its identity `origin`)
    /// after a replay of the path before each (``Options/replay``, or a runtime that cannot branch).
    private func replays(_ actions: [UserStep], at path: [UserStep], origin: String) throws -> [Outcome] {
        var outcomes: [Outcome] = []
        var atState = true
        var actions = actions, next = 0
        while next < actions.count {
            let action = actions[next]
            next += 1
            if !atState { _ = try goTo(path, expecting: origin) }
            atState = false
            oracle.beforeStep(action.luaSource)
            oracle.listen()
            defer { oracle.stopListening() }
            var outcome = try take(action)
            if let drawing = Self.drawing(action, outcome) {
                // The step drew a value none gave: each value is an action of its own, taken next.
                actions.insert(contentsOf: drawing, at: next)
                atState = (try? identity().key) == origin
                continue
            }
            switch outcome.result {
            case .failed:
                // The step was undone, but a handler may have changed Lua data before it failed.
                atState = (try? identity().key) == origin
            case .state(let state):
                if state.key == origin, state.propertyFault == nil { atState = true } // a property that wrote moved it
                fallthrough
            case .cut:
                // What the step left (a flow it finished, a screen it took away) is looked for now, while the
                // runtime is at the state the step reached: a later action's replay may drop what holds it,
                // and the leak would go unseen. A look costs a collection: only after a step that left something.
                outcome.violations += oracle.leftByLastSteps(collecting: runtime.lua)
            }
            outcomes.append(outcome)
        }
        return outcomes
    }

    /// Takes each of `actions` at the state `path` leads to (where the runtime is, its identity `origin`,
    /// `image` taken there) in a branch it comes back from, and says what each gave, and which actions are to
    /// be taken for real: those that finished a flow or took a screen away, and a relaunch, which no branch
    /// takes.
    private func branches(_ actions: [UserStep], at path: [UserStep], origin: String, image: LuaImage) throws -> Branched {
        var outcomes: [Outcome] = []
        var forReal: [Int] = [], leavesNothing: Set<Int> = []
        var actions = actions, next = 0
        while next < actions.count {
            let action = actions[next]
            next += 1
            guard action != .relaunch else {
                forReal.append(outcomes.count)
                outcomes.append(Outcome(action: action, result: .failed(""), unhandled: nil, violations: []))
                continue
            }
            oracle.beforeStep(action.luaSource)
            oracle.listen()
            defer { oracle.stopListening() }
            let ((outcome, mayHaveLeftAlive), left) = try oracle.hearingBranch {
                try runtime.branch(from: image) { () throws -> (Outcome, Bool) in
                    let outcome = try take(action)
                    if case .failed = outcome.result { return (outcome, false) }
                    return (outcome, try oracle.mayHaveLeftAlive(in: runtime.lua))
                }
            }
            if options.checksBranches, try identity().key != origin { throw ExploreFailure.branchDidNotComeBack(path + [action]) }
            if let drawing = Self.drawing(action, outcome) {
                actions.insert(contentsOf: drawing, at: next) // each value the step drew is an action, taken next
                continue
            }
            if case .failed = outcome.result {} else if mayHaveLeftAlive {
                forReal.append(outcomes.count)
            } else if left, options.checksBranches {
                // Debug builds take it for real as well, to check that the collection finds nothing new.
                forReal.append(outcomes.count)
                leavesNothing.insert(outcomes.count)
            }
            outcomes.append(outcome)
        }
        return Branched(outcomes: outcomes, forReal: forReal, leavesNothing: leavesNothing)
    }

    /// Takes for real, each from the state `path` leads to (its identity `origin`; the runtime there when
    /// `atState`), the actions of `branched` that are to be, for the lifecycle oracle to collect after them:
    /// while an image is kept, what a collection frees is released only once none is (its box may come
    /// back), and a collection in a branch would find alive what the branch's log keeps.
    private func takeForReal(_ branched: Branched, at path: [UserStep], origin: String, atState: Bool) throws -> [Outcome] {
        var outcomes = branched.outcomes
        var atState = atState
        for index in branched.forReal {
            if !atState { _ = try goTo(path, expecting: origin) }
            atState = false
            let action = outcomes[index].action
            oracle.beforeStep(action.luaSource)
            oracle.listen()
            defer { oracle.stopListening() }
            if action == .relaunch {
                outcomes[index] = try take(action)
            } else {
                try runtime.lua.withTimeLimit(options.stepTimeLimit) {
                    try app.atomicallyRendering { try app.perform(action) }
                }
                oracle.afterStep()
            }
            let found = oracle.leftByLastSteps(collecting: runtime.lua)
            if branched.leavesNothing.contains(index), !found.isEmpty {
                throw ExploreFailure.leftAliveUnseen(path + [action], found)
            }
            outcomes[index].violations += found
        }
        return outcomes
    }

    /// Takes the branches of every state `requests` name (a level's, in its order) down the tree their paths
    /// make from the base: the base reached once, each step on the way taken once, in a branch (an
    /// outermost operation, as when the state was found) that comes back to an image kept at its start. A
    /// state the walk did not reach (a step on the way failed, or, checked in debug builds, it reached
    /// another state) is nil: it is expanded after a replay, which replaces a runtime that strays.
    private func walk(_ requests: [ExploreRequest]) -> [Branched?] {
        var walked = [Branched?](repeating: nil, count: requests.count)
        do {
            try replay([])
            // A runtime whose earlier replays left data a restart does not reset is at another base: every
            // state is then expanded after a replay, which replaces it (``goTo(_:expecting:)``).
            guard let baseKey, try identity().key == baseKey else { return walked }
            var images = WalkImages()
            try descend(requests, 0..<requests.count, depth: 0, inBranch: false, images: &images, into: &walked)
        } catch {
            // What the walk did not reach is expanded after a replay (and fails there, if it still does).
        }
        return walked
    }

    /// The walk below the state the runtime is at, `depth` steps from the base, which the paths of
    /// `requests[range]` all go through; `inBranch` when the walk is in a branch that comes back past it.
    private func descend(_ requests: [ExploreRequest], _ range: Range<Int>, depth: Int, inBranch: Bool,
                         images: inout WalkImages, into walked: inout [Branched?]) throws {
        // The states the paths end at here (at most one), and the steps they go on by, each with its paths.
        var groups: [Range<Int>] = []
        var i = range.lowerBound
        while i < range.upperBound {
            var end = i + 1
            if requests[i].path.count > depth {
                let step = requests[i].path[depth]
                while end < range.upperBound, requests[end].path.count > depth, requests[end].path[depth] == step { end += 1 }
            }
            groups.append(i..<end)
            i = end
        }
        // A state passed through on the way to one other: its step is taken where the walk is, without an
        // image of its own (the branch the walk is in comes back past it).
        if inBranch, groups.count == 1, let only = groups.first, requests[only.lowerBound].path.count > depth {
            guard (try? app.atomically({ try app.perform(requests[only.lowerBound].path[depth]) })) != nil else { return }
            try descend(requests, only, depth: depth + 1, inBranch: true, images: &images, into: &walked)
            return
        }
        var image: LuaImage?
        for group in groups {
            let path = requests[group.lowerBound].path
            let here = try image ?? images.take(at: depth, of: runtime)
            image = here
            guard path.count > depth else {
                if !options.checksBranches || (try? identity().key) == requests[group.lowerBound].key {
                    walked[group.lowerBound] = try branches(try actionsHere(), at: path, origin: requests[group.lowerBound].key, image: here)
                }
                continue
            }
            try runtime.branch(from: here) {
                // As a replay takes its steps: no time limit (each finished under one when first taken). A step
                // that fails leaves its states to the replay.
                guard (try? app.atomically({ try app.perform(path[depth]) })) != nil else { return }
                try descend(requests, group, depth: depth + 1, inBranch: true, images: &images, into: &walked)
            }
        }
    }

    /// The actions `action` stands for when its step failed at a random draw that no value was given for:
    /// the action with each value of the draw's range given to it (after those it gave already), or nil.
    /// A draw is a choice the user cannot make: each of its values leads on as an action would.
    private static func drawing(_ action: UserStep, _ outcome: Outcome) -> [UserStep]? {
        guard case .failed = outcome.result, let range = outcome.drawNeeded else { return nil }
        return range.map { value in
            if case let .drawn(step, values) = action { return .drawn(step, values: values + [value]) }
            return .drawn(action, values: [value])
        }
    }

    /// Takes `action` where the app is, and says what it gave (the lifecycle oracle's collection aside).
    private func take(_ action: UserStep) throws -> Outcome {
        let unheard = app.unheard.count, failedLaters = app.failedLaters.count
        do {
            try runtime.lua.withTimeLimit(options.stepTimeLimit) {
                try app.atomicallyRendering { try app.perform(action) }
            }
        } catch {
            var outcome = Outcome(action: action, result: .failed(Self.text(of: error)), unhandled: nil, violations: [])
            outcome.drawNeeded = app.draws.needed
            return outcome
        }
        oracle.afterStep()
        var pendingOfKind: [String: Int] = [:]
        for request in app.pendingRequests { pendingOfKind[request.kind, default: 0] += 1 }
        if let (kind, waiting) = pendingOfKind.filter({ $0.value > options.maxPending }).min(by: { $0.key < $1.key }) {
            return Outcome(action: action, result: .cut(kind: kind, waiting: waiting), unhandled: nil, violations: [])
        }
        var unhandled: (String, String)?
        if app.unheard.count != unheard, let last = app.unheard.last { unhandled = (last.screen.name, last.output) }
        var outcome = Outcome(action: action, result: .state(try seen()), unhandled: unhandled, violations: oracle.cheapViolations())
        if app.failedLaters.count != failedLaters, let last = app.failedLaters.last {
            outcome.laterFailure = "a later of \(last.owner) failed: \(last.message)"
        }
        return outcome
    }

    /// The state's identity, its views run under the step's time limit.
    private func identity() throws -> StateIdentity {
        try runtime.lua.withTimeLimit(options.stepTimeLimit) { try runtime.stateIdentity() }
    }

    private func seen() throws -> StateSeen {
        let identity = try identity()
        let screen = app.window.visibleScreen
        let tabs = app.visibleTabs
        var seen = StateSeen(key: identity.key, viewed: identity.viewed, screen: screen?.name ?? "", title: screen?["title"]?.stringValue,
                             owner: screen?.owner?.name ?? "", modal: FlowGraph.modal(in: app),
                             tab: tabs.map { $0.titles[$0.selectedIndex] }, gateway: app.gateway.state.rawValue,
                             shownTypes: app.window.allScreens.map(\.name))
        seen.isStop = options.stopAt?(app) ?? false
        if runtime.declaresProperties {
            let verdict = try properties.verdict(at: identity.key, in: runtime, timeLimit: options.stepTimeLimit) { try self.identity().key }
            (seen.brokenInvariants, seen.goals, seen.propertyFault) = (verdict.broken, verdict.goals, verdict.fault)
        }
        return seen
    }

    /// What the app's properties said of the states this explorer reached.
    private var properties = PropertyChecks()

    /// Where every branch starts.
    private let base: ExploreBase

    /// Brings the app to the state `path` leads to and returns its identity. With `key`, the identity the
    /// search recorded there: a runtime that reaches another is replaced by a fresh one, which must reach it.
    private func goTo(_ path: [UserStep], expecting key: String?) throws -> String {
        guard let key else {
            try replay(path)
            return try identity().key
        }
        // A runtime that kept data of an earlier branch may reach another state, or fail on the way.
        if (try? replay(path)) != nil, try identity().key == key { return key }
        freshRuntimes += 1
        // What the old runtime left alive is found before it goes (its oracle alone knows which step left it).
        leftInReplacedRuntimes += oracle.newlyLeftAlive(collecting: runtime.lua)
        runtime = try make()
        oracle = LifecycleOracle(app: runtime.app, listening: false)
        guard (try? runtime.lua.withTimeLimit(options.stepTimeLimit, { try replay(path) })) != nil, try identity().key == key else {
            // A fresh runtime loads the scripts again: one edited since the search began is why.
            if let edited = runtime.sources.keys.sorted().first(where: { runtime.sources[$0] != firstSources[$0] }) {
                throw ExploreFailure.scriptChanged(edited)
            }
            throw ExploreFailure.notReproducible(path, branched: !options.replay && runtime.canBranch)
        }
        return key
    }

    /// Brings the app to the state `path` leads to, whose identity the search recorded as `key` (replaying
    /// the path from the base, as a branch does), and reads it with `read` (``Storyboard``'s cards).
    package func visit<T>(_ path: [UserStep], key: String, _ read: (ScriptRuntime) throws -> T) throws -> T {
        _ = try goTo(path, expecting: key)
        return try read(runtime)
    }

    /// Re-runs up to `sample` of `report`'s transitions in fresh runtimes (``ExploreVerification``):
    /// `coordrun explore --verify`.
    package func verify(_ report: ExploreReport, sample: Int) throws -> ExploreVerification {
        try ExploreVerification(report, sample: sample, base: base, timeLimit: options.stepTimeLimit, make: make)
    }

    /// The app after `path` from the base, as one operation. No time limit here: each of these steps (and
    /// the base, in ``start()``) already finished under one when it was first taken, and a clock check on
    /// every replay costs a tenth of the throughput.
    private func replay(_ path: [UserStep]) throws {
        try app.atomically {
            try base.bring(runtime)
            for step in path { try app.perform(step) }
        }
    }


    /// An error as a finding shows it: a Lua error with its traceback.
    static func text(of error: Error) -> String { (error as? LuaError)?.fullDescription ?? "\(error)" }
}

/// Why an exploration could not go on: the app did not behave as a function of its steps.
package enum ExploreFailure: Error, CustomStringConvertible {
    /// Replaying a path in a fresh runtime reached another state than the search recorded there.
    /// `branched`: the state was recorded in a branch (``Explorer``), not by a replay.
    case notReproducible([UserStep], branched: Bool)
    /// A branch (the path's last step) did not come back to the state it began at (``Explorer/Options/checksBranches``).
    case branchDidNotComeBack([UserStep])
    /// A fresh runtime loaded the script at this path as it is now, edited since the search began.
    case scriptChanged(String)
    /// The path's last step, taken for real, left alive what its branch found it did not (``Explorer/Options/checksBranches``).
    case leftAliveUnseen([UserStep], [String])

    package var description: String {
        switch self {
        case let .notReproducible(path, branched):
            "replaying " + (path.isEmpty ? "the start" : path.map(\.luaSource).joined(separator: " "))
                + """
                     in a fresh runtime reached another state than before: the app depends on more than its steps \
                    (the clock, random numbers, files), so exploration cannot tell its states apart
                    """
                + (branched ? """
                    ; or the branch that found the state reached another than a replay does, an explorer fault \
                    (--replay explores without branches)
                    """ : "")
        case let .leftAliveUnseen(path, found):
            "the branch " + path.map(\.luaSource).joined(separator: " ") + " found it left nothing alive, but taken for real it left: "
                + found.joined(separator: "; ") + ": an explorer fault (coordrun explore --replay explores without branches)"
        case .scriptChanged(let file):
            file + " changed while it was explored (a fresh runtime loaded the new text): explore it again"
        case .branchDidNotComeBack(let path):
            "the runtime did not come back exactly from the branch " + path.map(\.luaSource).joined(separator: " ")
                + ": an explorer fault (coordrun explore --replay explores without branches)"
        }
    }
}
