import CoordinatorScript

/// What an exploration found (``Explorer``): the states and transitions, and the faults, each with the
/// shortest path from the start that reproduces it.
public struct ExploreReport {
    /// A state: the shortest path to it, and the app there as the explorer saw it (its screen, title,
    /// owner, modal, tab, gateway state and identity, read through it: `state.screen`).
    @dynamicMemberLookup
    package struct State {
        /// The steps from the start, shortest first found (breadth first).
        package let path: [UserStep]
        /// The app there.
        package let seen: Explorer.StateSeen
        /// How many actions the user has there.
        package internal(set) var actionCount = 0
        /// The device the path was taken on (``Idiom``): the search's, of which `--idiom both` runs two.
        package internal(set) var idiom = Idiom.phone

        package subscript<Value>(dynamicMember field: KeyPath<Explorer.StateSeen, Value>) -> Value { seen[keyPath: field] }
    }

    /// An action taken at a state, and the state it led to (itself when nothing changed).
    package struct Transition {
        /// The state it was taken at (an index into ``ExploreReport/states``).
        package let from: Int
        /// The state it led to.
        package let to: Int
        /// What the user did.
        package let action: UserStep
    }

    /// A fault and the shortest path that reproduces it (its last step shows it).
    package struct Finding {
        /// The steps from the start; the last one shows the fault.
        package let path: [UserStep]
        /// What was found.
        package let message: String
        /// The device the path is taken on.
        package internal(set) var idiom = Idiom.phone
    }

    /// The app's main script.
    package let script: String
    /// The device the search ran on (a report of several, ``combining(_:)``, has each state's and
    /// finding's).
    package internal(set) var idiom = Idiom.phone
    /// The devices the report covers, in order.
    package internal(set) var idioms: [Idiom] = []
    /// Every state found, the start first, in the order found (breadth first).
    package internal(set) var states: [State] = []
    /// Every action taken and where it led.
    package internal(set) var transitions: [Transition] = []
    /// Steps that failed: a Lua error in a handler, a navigation error, a screen that does not render.
    package internal(set) var errors: [Finding] = []
    /// Taps that did nothing: no handler heard the output (one per screen type and output).
    package internal(set) var unhandled: [Finding] = []
    /// States with no way forward and no way back: no action leads anywhere else.
    package internal(set) var deadEnds: [Finding] = []
    /// What the lifecycle oracle found: a flow left running without a screen, or a finished flow or a
    /// screen that left still alive (each once).
    package internal(set) var violations: [Finding] = []
    /// Findings whose tests did not reproduce them in a fresh runtime (``withdraw(_:)``): the explorer's
    /// fault, never reported as the app's.
    package internal(set) var unreproduced: [Finding] = []
    /// Screen types that never showed, anywhere in the window, in any state.
    package internal(set) var unreachedTypes: [String] = []
    /// The invariants a state broke, each once with the first (shortest) path to a state that breaks it.
    package internal(set) var invariantViolations: [Finding] = []
    /// What became of each property the scripts declare (``finish(catalog:)``).
    package internal(set) var properties: [PropertyStatus] = []
    /// The properties the scripts declare (`flow.invariant`, `flow.reachable`), in order.
    var declaredProperties: [(kind: PropertyKind, name: String, location: String)] = []
    /// The states where each reachable property's predicate holds, by the property's name.
    private var goalStates: [String: [Int]] = [:]
    private var invariantsSeen: Set<String> = []

    /// What exploring said of a property: whether it holds (every state checked), is violated (with the
    /// shortest path to a state that breaks it, or to a trap), or could not be told (the search was cut).
    package struct PropertyStatus {
        package enum Status: String { case holds, violated, unchecked }
        package let kind: PropertyKind
        package let name: String
        package let status: Status
        /// The shortest path to a state that breaks it (an invariant) or to a trap (a reachable property).
        package let path: [UserStep]?
        /// What the report says of it.
        package let message: String
        /// Of an unchecked invariant: within how many steps of the base it holds in every state (the
        /// search found and checked every state that near: ``ExploreReport/completeWithin``).
        package var withinSteps: Int? = nil
        /// The device its path is taken on.
        package var idiom = Idiom.phone
    }
    /// For outputs that choose an item and read it by a field (`label = "subject"`): that field, by
    /// `Screen.output` (`Inbox.open`). The flow graph names a chosen item by it.
    package internal(set) var itemLabels: [String: String] = [:]
    /// The outputs whose payloads hold a secret, by `Screen.output`: the flow graph shows their payloads
    /// with each secret masked.
    package internal(set) var secretOutputs: [String: OutputSpec] = [:]
    /// Actions taken (each one after the steps that bring the app to its state).
    package internal(set) var steps = 0
    /// Whether states were left unexpanded for the depth limit.
    package var cutByDepth = false
    /// Whether exploration stopped at the state limit.
    package internal(set) var cutByStates = false
    /// Whether exploration stopped at its time limit.
    package var cutByTime = false
    /// Whether the search stopped at the state it looked for (``Explorer/Options/stopAt``).
    package var cutByGoal = false
    /// Steps not followed because they would leave more requests of a kind pending than the search
    /// follows (``Explorer/Options/maxPending``).
    package internal(set) var cutByPending = 0
    /// Those steps, each kind of step once (its request kind and text, ids aside) with the first (shortest)
    /// path to it; the message says how many requests it would leave waiting.
    package internal(set) var pendingCuts: [Finding] = []
    private var pendingCutsSeen: Set<String> = []
    /// States where some action was not followed (cut for `--max-pending`, or left out at the state limit):
    /// not fully tried, so never called a dead end.
    private var partlyTried: Set<Int> = []
    /// The most requests of a kind pending the search followed.
    package var pendingLimit = 2
    /// States found and never expanded (at the depth limit, or left when the state or time limit stopped
    /// the search).
    package var unexpanded = 0
    /// Whether the app's view (`flow.view`, a class's `__view`) stood for some of its data: states the view
    /// calls equal were explored once.
    package internal(set) var viewed = false
    /// How many fresh runtimes branches needed (the runtime kept data of an earlier branch).
    package var freshRuntimes = 0
    /// The app's screen types and coordinator classes: a finding names an object of one of them by the type
    /// alone (``Swift/String/withoutObjectIDs(of:)``).
    var objectTypes: Set<String> = []
    /// The limits the search ran with (for the report's wording).
    package var depthLimit = 0, stateLimit = 0, timeLimit: Double?
    var reachedTypes: Set<String> = []
    private var unhandledSeen: Set<String> = []
    private var violationsSeen: Set<String> = []
    private var errorsSeen: Set<String> = []

    init(script: String, limits: Explorer.Options) {
        self.script = script
        (depthLimit, stateLimit, timeLimit, pendingLimit) = (limits.depth, limits.maxStates, limits.timeLimit, limits.maxPending)
    }

    /// Whether it found an error, a lifecycle violation or a property violated (`coordrun explore` exits 1 then).
    public var failed: Bool { !errors.isEmpty || !violations.isEmpty || !invariantViolations.isEmpty || propertyViolated }
    /// Whether every state found was expanded: no limit cut the search short.
    public var reachedFixedPoint: Bool { !cutByDepth && !cutByStates && !cutByTime && !cutByGoal && cutByPending == 0 }
    /// Whether the search saw every reachable state: a fixed point, states told apart exactly (no view).
    public var complete: Bool { reachedFixedPoint && !viewed }

    /// The states found so far, by identity.
    var known: [String: Int] = [:]

    /// Adds a state reached by `path`; its index.
    @discardableResult
    mutating func addState(_ seen: Explorer.StateSeen, path: [UserStep]) -> Int {
        for type in seen.shownTypes { reachedTypes.insert(type) }
        if seen.viewed { viewed = true }
        states.append(State(path: path, seen: seen, idiom: idiom))
        known[seen.key] = states.count - 1
        // What the properties said here: the first (shortest) path to a state that breaks an invariant.
        for broken in seen.brokenInvariants where invariantsSeen.insert(broken.name).inserted {
            let message = "invariant '\(broken.name)' does not hold" + (broken.failure.map { ": " + $0.withoutObjectIDs(of: objectTypes) } ?? "")
            invariantViolations.append(Finding(path: path, message: message, idiom: idiom))
        }
        for goal in seen.goals { goalStates[goal, default: []].append(states.count - 1) }
        if let fault = seen.propertyFault { addError(fault, path: path) }
        return states.count - 1
    }

    /// Takes in what expanding state `index` gave: its transitions, the states it found (their indices are
    /// returned, to expand next) and its findings. Stops adding states at `maxStates` (the findings of every
    /// action are still taken in).
    @discardableResult
    package mutating func record(_ expansion: Explorer.Expansion, from index: Int, maxStates: Int) -> [Int] {
        states[index].actionCount = expansion.actionCount
        expanded.insert(index)
        let path = states[index].path
        var found: [Int] = []
        for outcome in expansion.outcomes {
            steps += 1
            let taken = path + [outcome.action]
            for violation in outcome.violations { addViolation(violation, path: taken) }
            if let (screen, output) = outcome.unhandled { addUnhandled(screen: screen, output: output, path: taken) }
            if let failure = outcome.laterFailure { addError(failure, path: taken) }
            switch outcome.result {
            case .failed(let message): addError(message, path: taken)
            case .cut(let kind, let waiting):
                cutByPending += 1
                partlyTried.insert(index)
                let step = outcome.action.luaSource.withoutObjectIDs(of: objectTypes)
                if pendingCutsSeen.insert(kind + "\n" + step.replacingDigits()).inserted {
                    pendingCuts.append(Finding(path: taken, message: "\(step) would leave \(waiting) requests of \(kind) waiting", idiom: idiom))
                }
            case .state(let seen):
                let target: Int
                if let known = known[seen.key] {
                    target = known
                } else {
                    guard states.count < maxStates else {
                        // A state past the limit is not taken in (its findings are): the state this
                        // action left is not fully tried, so never a dead end.
                        cutByStates = true
                        partlyTried.insert(index)
                        continue
                    }
                    target = addState(seen, path: taken)
                    found.append(target)
                }
                transitions.append(Transition(from: index, to: target, action: outcome.action))
            }
        }
        for violation in expansion.leftAlive { addViolation(violation, path: path) }
        return found
    }

    /// The last findings: screen types never shown (of the app's `catalog`), dead ends, what became of each
    /// property.
    package mutating func finish(catalog: [String]) {
        unreachedTypes = catalog.filter { !reachedTypes.contains($0) && $0 != "Alert" }
        findDeadEnds()
        findPropertyStatuses()
    }

    /// Where each device's search begins in ``states``, and how many of its states it left unexpanded (the
    /// last ones it found); empty for a report of one search.
    private var searches: [(first: Int, unexpanded: Int)] = []
    private var parts: [(first: Int, unexpanded: Int)] { searches.isEmpty ? [(0, unexpanded)] : searches }

    /// One report of searches of the same app on several devices (`coordrun explore --idiom both`), each
    /// finished: their states (each with its device), transitions and findings side by side, and what is
    /// found over the whole (screen types never reached, dead ends, the properties' statuses) found again.
    /// No transition joins two devices, so a trap or a dead end of one search is one of the whole.
    package static func combining(_ reports: [ExploreReport], catalog: [String]) -> ExploreReport {
        guard var combined = reports.first else { return ExploreReport(script: "", limits: Explorer.Options()) }
        combined.searches = [(0, combined.unexpanded)]
        combined.deadEnds = []
        for part in reports.dropFirst() {
            let offset = combined.states.count
            combined.idioms.append(part.idiom)
            combined.searches.append((offset, part.unexpanded))
            combined.states += part.states
            for (key, index) in part.known { combined.known[key] = index + offset }
            combined.transitions += part.transitions.map { Transition(from: $0.from + offset, to: $0.to + offset, action: $0.action) }
            combined.expanded.formUnion(part.expanded.map { $0 + offset })
            combined.partlyTried.formUnion(part.partlyTried.map { $0 + offset })
            for (goal, states) in part.goalStates { combined.goalStates[goal, default: []] += states.map { $0 + offset } }
            combined.errors += part.errors
            combined.unhandled += part.unhandled
            combined.violations += part.violations
            combined.unreproduced += part.unreproduced
            combined.invariantViolations += part.invariantViolations
            combined.pendingCuts += part.pendingCuts
            combined.reachedTypes.formUnion(part.reachedTypes)
            combined.objectTypes.formUnion(part.objectTypes)
            combined.itemLabels.merge(part.itemLabels) { first, _ in first }
            combined.secretOutputs.merge(part.secretOutputs) { first, _ in first }
            combined.steps += part.steps
            combined.cutByDepth = combined.cutByDepth || part.cutByDepth
            combined.cutByStates = combined.cutByStates || part.cutByStates
            combined.cutByTime = combined.cutByTime || part.cutByTime
            combined.cutByGoal = combined.cutByGoal || part.cutByGoal
            combined.cutByPending += part.cutByPending
            combined.unexpanded += part.unexpanded
            combined.viewed = combined.viewed || part.viewed
            combined.freshRuntimes += part.freshRuntimes
        }
        combined.finish(catalog: catalog)
        return combined
    }

    /// Within how many steps of the base the search found every state (the index of the first state not
    /// fully tried, ``unexpanded`` of them at the end, tells which level it stopped in): the path length of
    /// the nearest state not expanded, or expanded with an action not followed (``partlyTried``). Every
    /// state at that distance or nearer was found, so every one was checked. Nil when every state was
    /// fully tried.
    package var completeWithin: Int? {
        // The states not expanded are the last ones of each device's search.
        var nearest: Int?
        for (i, part) in parts.enumerated() where part.unexpanded > 0 {
            let end = i + 1 < parts.count ? parts[i + 1].first : states.count
            nearest = min(nearest ?? .max, states[end - part.unexpanded].path.count)
        }
        for index in partlyTried { nearest = min(nearest ?? .max, states[index].path.count) }
        return nearest
    }

    /// Each property's status. An invariant is violated by the first state found that breaks it; else it
    /// holds when the search saw every state, and is unchecked otherwise. A reachable property is violated
    /// by a trap: a state from which no state where it holds can be reached, everything reachable from it
    /// having been tried (expanded, every action followed); else it holds when the search saw every state,
    /// and is unchecked otherwise (a state whose future the search did not see all of may be one).
    mutating func findPropertyStatuses() {
        let view = viewed ? " (on the graph of the app's view)" : ""
        let within = reachedFixedPoint ? nil : completeWithin
        properties = declaredProperties.map { kind, name, _ in
            switch kind {
            case .invariant:
                let message = "invariant '\(name)' does not hold"
                if let found = invariantViolations.first(where: { $0.message.hasPrefix(message) }) {
                    return PropertyStatus(kind: kind, name: name, status: .violated, path: found.path, message: found.message + view, idiom: found.idiom)
                }
                if reachedFixedPoint {
                    return PropertyStatus(kind: kind, name: name, status: .holds, path: nil, message: "holds in every reachable state" + view)
                }
                guard let within else {
                    return PropertyStatus(kind: kind, name: name, status: .unchecked, path: nil,
                                          message: "holds in the \(ExploreText.count(states.count, "state")) explored, but the search was cut" + view)
                }
                return PropertyStatus(kind: kind, name: name, status: .unchecked, path: nil,
                                      message: """
                                          every state at most \(ExploreText.count(within, "step")) away found and \
                                          checked; the search was cut beyond
                                          """ + view,
                                      withinSteps: within, idiom: idiom)
            case .reachable:
                let traps = self.traps(of: goalStates[name] ?? [])
                if let trap = traps.first {
                    return PropertyStatus(kind: kind, name: name, status: .violated, path: states[trap].path,
                                          message: """
                                              a trap: from \
                                              \(states[trap].screen.isEmpty ? "this state" : states[trap].screen) \
                                              '\(name)' can never hold again
                                              """ + view,
                                          idiom: states[trap].idiom)
                }
                return reachedFixedPoint
                    ? PropertyStatus(kind: kind, name: name, status: .holds, path: nil, message: "can be reached from every reachable state" + view)
                    : PropertyStatus(kind: kind, name: name, status: .unchecked, path: nil,
                                     message: "no trap among the states whose whole future was explored, but the search was cut" + view)
            }
        }
    }

    /// The traps of a reachable property whose predicate holds at `goals`: the states that cannot reach a
    /// goal and whose every reachable state was fully tried (so nothing unseen could lead to one), by the
    /// length of their shortest path, shortest first. Linear in the graph: two backward searches.
    func traps(of goals: [Int]) -> [Int] {
        var backward = [[Int]](repeating: [], count: states.count)
        for t in transitions where t.from != t.to { backward[t.to].append(t.from) }
        func reaching(_ from: [Int]) -> [Bool] {
            var seen = [Bool](repeating: false, count: states.count)
            var pending = from.filter { !seen[$0] }
            for i in pending { seen[i] = true }
            while let i = pending.popLast() {
                for j in backward[i] where !seen[j] { seen[j] = true; pending.append(j) }
            }
            return seen
        }
        let canReachGoal = reaching(goals)
        // What could lead somewhere unseen: a state not expanded, or one with actions not followed.
        let unseenFuture = reaching(states.indices.filter { !expanded.contains($0) || partlyTried.contains($0) })
        return states.indices.filter { !canReachGoal[$0] && !unseenFuture[$0] }.sorted { states[$0].path.count < states[$1].path.count }
    }

    /// Whether a property the scripts declare was found violated.
    public var propertyViolated: Bool { properties.contains { $0.status == .violated } }

    /// A step that failed; the same fault met again from another state (its message, ids aside) is kept
    /// once, with the first (shortest) path.
    mutating func addError(_ message: String, path: [UserStep]) {
        let message = message.withoutObjectIDs(of: objectTypes)
        let first = message.firstLine
        guard errorsSeen.insert(first.replacingDigits()).inserted else { return }
        errors.append(Finding(path: path, message: message, idiom: idiom))
    }

    mutating func addUnhandled(screen: String, output: String, path: [UserStep]) {
        guard unhandledSeen.insert(screen + "." + output).inserted else { return }
        unhandled.append(Finding(path: path, message: "nothing handles \(output.controlsEscaped) on \(screen.controlsEscaped)", idiom: idiom))
    }

    /// A lifecycle violation found after `path` (the same fault met again, ids aside, is kept once, with the
    /// first path).
    package mutating func addViolation(_ message: String, path: [UserStep]) {
        let message = message.withoutObjectIDs(of: objectTypes)
        let key = message.replacingDigits()
        guard violationsSeen.insert(key).inserted else { return }
        violations.append(Finding(path: path, message: "lifecycle: " + message, idiom: idiom))
    }

    /// States whose actions were all tried (``Explorer`` marks them).
    var expanded: Set<Int> = []

    /// Dead ends: states whose every action was tried (expanded, none cut) and none leads to another state.
    mutating func findDeadEnds() {
        var leaving = Set<Int>()
        for transition in transitions where transition.to != transition.from { leaving.insert(transition.from) }
        var seen = Set<String>()
        for index in expanded.sorted() where !leaving.contains(index) && !partlyTried.contains(index) {
            let state = states[index]
            let what = state.actionCount == 0 ? "has no way forward and no way back" : "has no action that leads anywhere else"
            let message = "\(state.screen.isEmpty ? "the app" : state.screen) \(what)"
            guard seen.insert(state.idiom.rawValue + "/" + state.owner + "/" + message).inserted else { continue } // one per screen and flow
            deadEnds.append(Finding(path: state.path, message: message, idiom: state.idiom))
        }
    }

    /// The report as text: the counts, then each finding with its path (``ExploreText``).
    public var text: String { ExploreText.text(of: self) }

    /// A digest of everything the search found (``ExploreText/fingerprint(of:)``): two explorations with
    /// the same fingerprint found the same.
    public var fingerprint: String { ExploreText.fingerprint(of: self) }

    /// How far the search went, as the report's first line says it (``ExploreText/reach(of:)``).
    package var reach: String { ExploreText.reach(of: self) }
}

extension String {
    /// The text with the ids of coordinators and screens of the `types` left out (`Ghost#36` as `Ghost`).
    /// An id is the runtime's count of the objects it made, which depends on what the runtime did before
    /// (every branch an explorer took, in whichever worker took it): a finding names the object by its type,
    /// so that every exploration of an app reports the same words. Other text is left as it is.
    func withoutObjectIDs(of types: Set<String>) -> String {
        guard !types.isEmpty, contains("#") else { return self }
        // A type's name as messages write it: as it is, or with its control characters escaped.
        let names = Set(types.flatMap { [$0, $0.controlsEscaped] })
        func endsWithType(_ text: Substring) -> Bool {
            names.contains { name in
                guard !name.isEmpty, text.hasSuffix(name) else { return false }
                let start = text.index(text.endIndex, offsetBy: -name.count)
                guard start != text.startIndex else { return true }
                let before = text[text.index(before: start)]
                return !before.isLetter && !before.isNumber && before != "_"
            }
        }
        var out = "", rest = Substring(self)
        while let hash = rest.firstIndex(of: "#") {
            let before = rest[..<hash], after = rest[rest.index(after: hash)...]
            let digits = after.prefix { $0.isASCII && $0.isNumber }
            out += before
            if !digits.isEmpty, endsWithType(out[...]) {
                rest = after.dropFirst(digits.count)
            } else {
                out.append("#")
                rest = after
            }
        }
        return out + rest
    }

    /// The text with every run of digits as `#` (ids differ between two reports of one object).
    func replacingDigits() -> String {
        var out = "", inDigits = false
        for c in self {
            if c.isNumber { if !inDigits { out.append("#") }; inDigits = true } else { out.append(c); inDigits = false }
        }
        return out
    }
}
