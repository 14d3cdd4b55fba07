import CoordinatorScript

/// Walks every state an app can reach, breadth first (`coordrun explore`, docs/Explore.md): at each state
/// it takes every action the user has there — each output of the visible screen (each item of an output
/// that picks from a list, each example payload of one that takes a value), Back, the swipe-down of a
/// modal, every other tab — and notes where each leads.
///
/// A state is the navigation hierarchy, every screen's inputs, the tree's classes and the gateway's state
/// (what a snapshot holds, without the coordinators' own data): two paths that lead to the same state
/// explore it once. To branch, the explorer brings the app back to a state by taking the steps of the
/// shortest path to it again from the app's start, in the same runtime: the only way that rebuilds the
/// handlers and the Lua data of the flows on the way exactly, as for a snapshot's restore.
public final class Explorer {
    /// How far and how wide it goes, and where it starts.
    public struct Options {
        /// The most steps from the start (states further away are not expanded).
        public var depth = 12
        /// The most states; exploration stops there (the report says it was cut short).
        public var maxStates = 10_000
        /// Where exploration starts: the app's start, a link, or a snapshot (its JSON).
        public var base: Base = .start
        /// Lists in screens' inputs count for a state's identity by their first `listLimit` items and
        /// whether there are more: a list that grows with every visit (notes saved again and again) gives a
        /// bounded number of states, so exploration reaches a fixed point.
        public var listLimit = 3
        /// The most seconds one action may run (its handlers and the rendering after it); a step that runs
        /// longer stops with "timed out", is undone, and is reported as an error. nil: no limit.
        public var stepTimeLimit: Double? = 5
        /// A state's identity as a 128-bit digest of its document (two FNV-1a lanes) instead of the
        /// document: what worker processes send each other. Two states with one digest would be explored
        /// as one; with 128 bits that is not expected at the sizes exploration reaches.
        public var digestKeys = false
        /// Every how many steps the lifecycle oracle collects garbage and looks for flows and screens left
        /// alive (its cheap rule, running flows that show nothing, is checked after every step).
        public var collectEvery = 256

        /// Where exploration starts.
        public enum Base {
            /// The app's start.
            case start
            /// A link the app declares (`ScriptRuntime.open(_:)`).
            case link(String)
            /// A snapshot's JSON (`ScriptRuntime.restore(_:)`).
            case snapshot(String)
        }

        /// Defaults: 12 steps deep, 10,000 states, from the app's start.
        public init() {}
    }

    let runtime: ScriptRuntime
    /// How far and how wide it goes, and where it starts.
    public let options: Options
    private var app: Application { runtime.app }

    /// An explorer over a runtime whose scripts are loaded (it starts the app itself, and starts it again to
    /// branch: give it a runtime of its own).
    public init(runtime: ScriptRuntime, options: Options = Options()) {
        self.runtime = runtime
        self.options = options
    }

    /// What an app looks like at a state, as the report keeps it.
    public struct StateSeen {
        /// The state's identity (``Explorer``).
        public let key: FlowValue
        /// The visible screen's type ("" when none).
        public let screen: String
        /// The class of the coordinator that shows it ("" when none).
        public let owner: String
        /// Whether a modal is up.
        public let inModal: Bool
        /// The selected tab's title, when a tab bar shows.
        public let tab: String?
        /// Every screen type shown anywhere in the window.
        public let shownTypes: [String]
    }

    /// What one action taken at a state gave.
    public struct Outcome {
        /// Where it led, or why it failed (the step was undone).
        public enum Result {
            /// The state it led to.
            case state(StateSeen)
            /// Why it failed (the error's message, with its place).
            case failed(String)
        }
        /// What the user did.
        public let action: UserStep
        /// Where it led, or why it failed.
        public let result: Result
        /// The output no handler heard, when the action was a tap nobody handles.
        public let unhandled: (screen: String, output: String)?
        /// What the lifecycle oracle found after the step.
        public let violations: [String]
    }

    /// Listens for finishes only while an action runs: a path replayed to reach a state builds no events.
    private lazy var oracle = LifecycleOracle(app: app, listening: false)
    private var stepsTaken = 0

    /// Explores breadth first until every state within the depth is expanded, or the state limit is met.
    public func run() throws -> ExploreReport {
        var report = ExploreReport(script: runtime.scriptFiles.first ?? "")
        var frontier = [report.addState(try start(), path: [])]
        var next = 0
        while next < frontier.count, !report.cutByStates {
            let index = frontier[next]
            next += 1
            let path = report.states[index].path
            guard path.count < options.depth else { report.cutByDepth = true; continue }
            let (count, outcomes) = try expand(path)
            frontier += report.record(outcomes, actionCount: count, from: index, maxStates: options.maxStates)
        }
        for violation in finalViolations() { report.addViolation(violation, path: []) }
        report.finish(catalog: app.catalog.names)
        return report
    }

    /// The app at the exploration's base, as the report's first state.
    public func start() throws -> StateSeen {
        try runtime.lua.withTimeLimit(options.stepTimeLimit) { try goToBase() }
        return try seen()
    }

    /// Takes every action the user has at the state `path` leads to (each from that state), and says what
    /// each gave. Used by ``run()``, and by worker processes that each expand part of a level
    /// (`coordrun explore --workers N`).
    public func expand(_ path: [UserStep]) throws -> (actionCount: Int, outcomes: [Outcome]) {
        try goTo(path)
        let origin = try stateKey()
        let actions = Self.actions(in: app)
        var outcomes: [Outcome] = []
        var atState = true
        for action in actions {
            if !atState { try goTo(path) }
            atState = false
            stepsTaken += 1
            oracle.beforeStep(action.luaSource)
            oracle.listen()
            defer { oracle.stopListening() }
            let unheard = app.unheard.count
            do {
                try runtime.lua.withTimeLimit(options.stepTimeLimit) {
                    try app.atomicallyRendering { try app.perform(action) }
                }
            } catch {
                outcomes.append(Outcome(action: action, result: .failed(Self.text(of: error)), unhandled: nil, violations: []))
                atState = true // the step was undone: the app is still at the state
                continue
            }
            oracle.afterStep()
            var violations = oracle.cheapViolations()
            if stepsTaken % max(options.collectEvery, 1) == 0 { violations += oracle.violations(collecting: runtime.lua) }
            var unhandled: (String, String)?
            if app.unheard.count != unheard, let last = app.unheard.last { unhandled = (last.screen.name, last.output) }
            let state = try seen()
            if state.key == origin { atState = true }
            outcomes.append(Outcome(action: action, result: .state(state), unhandled: unhandled, violations: violations))
        }
        return (actions.count, outcomes)
    }

    /// What the oracle finds once everything unreachable is collected (at the end of an exploration).
    public func finalViolations() -> [String] { oracle.violations(collecting: runtime.lua) }

    private func seen() throws -> StateSeen {
        let screen = app.window.visibleScreen
        let tabs = app.visibleTabs
        return StateSeen(key: try stateKey(), screen: screen?.name ?? "", owner: screen?.owner?.name ?? "",
                         inModal: !app.window.modals.isEmpty, tab: tabs.map { $0.titles[$0.selectedIndex] },
                         shownTypes: app.window.allScreens.map(\.name))
    }

    /// The gateway's state the exploration began in: every branch starts the app in it again.
    private lazy var baseState = app.gateway.state

    /// The app at its base: started, or at the link, or restored from the snapshot; the gateway in the
    /// state exploration began in (a step that signed in does not carry over to the next branch).
    private func goToBase() throws {
        let state = baseState
        switch options.base {
        case .start:
            try app.atomically {
                try app.tearDown()
                app.gateway.state = state
                try runtime.start()
            }
        case .link(let url):
            try app.atomically {
                app.gateway.state = state
                try runtime.open(url)
            }
        case .snapshot(let json): try runtime.restore(json)
        }
    }

    /// The app after `path` from the base, as one operation. No time limit here: each of these steps (and
    /// the base, in ``start()``) already finished under one when it was first taken, and a clock check on
    /// every replay costs a tenth of the throughput.
    private func goTo(_ path: [UserStep]) throws {
        try app.atomically {
            try goToBase()
            for step in path { try app.perform(step) }
        }
    }


    /// The state as a key: the snapshot's document without the coordinators' own data, lists in inputs cut
    /// to ``Options/listLimit`` items (and whether more followed).
    private func stateKey() throws -> FlowValue {
        let document = FlowValue.record(try runtime.snapshots.capture(of: runtime, data: false).document)
        let key = Self.limitingLists(in: document, to: options.listLimit, inInputs: false) ?? document
        return options.digestKeys ? .string(Self.digest(key.json)) : key
    }

    /// Two FNV-1a hashes of 64 bits, with different offsets, as 32 hex digits.
    static func digest(_ text: String) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in text.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 ^ (b >> 29)
        }
        func hex(_ x: UInt64) -> String { let s = String(x, radix: 16); return String(repeating: "0", count: 16 - s.count) + s }
        return hex(a) + hex(b)
    }

    /// `value` with every list inside inputs cut to `limit` items and a `"(more)"`; nil when nothing is cut
    /// (then nothing is copied). One pass.
    static func limitingLists(in value: FlowValue, to limit: Int, inInputs: Bool) -> FlowValue? {
        switch value {
        case .record(let record):
            var changed: [Int: FlowValue] = [:]
            for (i, field) in record.fields.enumerated() {
                if let cut = limitingLists(in: field.value, to: limit, inInputs: inInputs || field.key == "inputs") { changed[i] = cut }
            }
            guard !changed.isEmpty else { return nil }
            return .record(FlowRecord(record.fields.enumerated().map { ($1.key, changed[$0] ?? $1.value) }))
        case .list(let items):
            let long = inInputs && items.count > limit
            let kept = long ? Array(items.prefix(limit)) : items
            var changed = long
            let cut = kept.map { item -> FlowValue in
                guard let shorter = limitingLists(in: item, to: limit, inInputs: inInputs) else { return item }
                changed = true
                return shorter
            }
            guard changed else { return nil }
            return .list(long ? cut + [.string("(more)")] : cut)
        default:
            return nil
        }
    }

    /// What the user can do now: the visible screen's outputs (each item of a choice, each example of a
    /// value output), Back (when there is somewhere to go back to), the swipe-down of a modal that is not an
    /// alert, and every other tab of the tab bar when no modal covers it.
    static func actions(in app: Application) -> [UserStep] {
        var actions: [UserStep] = []
        if let screen = app.window.visibleScreen {
            for output in screen.outputs {
                switch output.payload {
                case .nothing: actions.append(.tap(output.name, payload: nil))
                case .choice(let from):
                    for item in screen[from]?.listValue ?? [] { actions.append(.tap(output.name, payload: item)) }
                case .value:
                    for example in screen.type.examples[output.name] ?? [] { actions.append(.tap(output.name, payload: example)) }
                }
            }
        }
        let alert = (app.window.modals.last as? Screen)?.dismissesOnOutput == true
        if !alert {
            if let top = app.window.modals.last {
                if Window.visibleStack(of: top).map({ $0.screens.count > 1 }) == true { actions.append(.back) }
                actions.append(.dismiss)
            } else if Window.visibleStack(of: app.window.root).map({ $0.screens.count > 1 }) == true {
                actions.append(.back)
            }
            if let tabs = app.visibleTabs {
                for i in tabs.titles.indices where i != tabs.selectedIndex { actions.append(.selectTab(i)) }
            }
        }
        return actions
    }

    /// An error as a finding shows it: a Lua error with its traceback.
    static func text(of error: Error) -> String { (error as? LuaError)?.fullDescription ?? "\(error)" }
}
