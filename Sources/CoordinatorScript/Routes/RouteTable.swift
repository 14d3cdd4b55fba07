import CoordinatorCore
import CoordinatorLua

/// The deep links of an app: the routes its scripts declare (`flow.route`), checked when the scripts
/// load, and opening a link (``ScriptRuntime/open(_:)``).
final class RouteTable {
    /// The routes, in the order declared (a route declared again, by a reload, replaces the old one in
    /// place).
    private(set) var routes: [Route] = [] {
        didSet { index = nil }
    }
    /// Where each pattern is in `routes`.
    private var positions: [String: Int] = [:]
    /// The routes by their segments, made on the first link opened after a change.
    private var index: RouteIndex?

    /// Forgets every route (a reload declares them again: a route taken out of a file goes).
    func removeAll() { restore([]) }

    /// Puts back the routes of before (a reload that failed).
    func restore(_ saved: [Route]) {
        routes = saved
        positions = Dictionary(saved.enumerated().map { ($1.pattern, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// `flow.route(pattern, { [from = "start" | "current" | "Class"], [requires = state], [example = {...}], step, step, ... })`.
    func declare(_ call: borrowing LuaCall) throws {
        let pattern = try call.string(1)
        let spec = try call.argument(2, as: LuaTable.self)
        let location = call.callerLocation ?? "?"
        func fail(_ what: String) -> LuaError { LuaError(.runtime, "route '\(pattern)': \(what)") }
        for (key, _) in try spec.pairs() where key.intValue == nil {
            guard let name = key.stringValue, ["from", "example", "requires"].contains(name) else {
                throw fail("unknown field \(key.stringValue.map { "'\($0)'" } ?? key.display) (a route has from, requires, example, and its steps in order)")
            }
        }
        let from = Route.Start(try spec.rawGet("from", as: String?.self) ?? "start")
        var example: [String: String] = [:]
        if let table = try spec.rawGet("example", as: LuaTable?.self) {
            for (key, value) in try table.pairs() {
                guard let name = key.stringValue, value.stringValue != nil || value.intValue != nil else {
                    throw fail("example maps parameter names to strings or numbers")
                }
                example[name] = value.display
            }
        }
        var steps: [RouteStep] = []
        for n in 1...max(spec.count, 1) where n <= spec.count {
            guard let table = try spec.rawGet(n, as: LuaTable?.self) else { throw fail("step \(n) is not a table") }
            steps.append(try RouteStep(table, number: n, pattern: pattern))
        }
        let requires = try spec.rawGet("requires", as: String?.self).map { AppState($0) }
        let route = try Route(pattern: pattern, from: from, example: example, location: location, steps: steps, requires: requires)
        for name in example.keys where !route.parameters.contains(name) && !route.steps.contains(where: { $0.chooses(name) }) {
            throw fail("example names '\(name)', which is not a parameter of the pattern")
        }
        if let i = positions[pattern] {
            routes[i] = route
        } else {
            positions[pattern] = routes.count
            routes.append(route)
        }
    }

    /// What can be checked before a link opens, checked when the scripts have loaded: the screen types and
    /// coordinator classes a route names exist, a tapped output is one its screen type declares (a `choose`
    /// one picks from a list), and `choose` names a parameter of the pattern. A tap with no `on` of an output
    /// no screen type declares is an alert's action (alerts' actions are known only when they show): the
    /// step is one `on = "Alert"`, which finds an alert showing when the link opens.
    func check(_ runtime: ScriptRuntime) throws {
        let app = runtime.app, classes = runtime.scriptModule.classes
        for r in routes.indices {
            let route = routes[r]
            for (i, step) in route.steps.enumerated() {
                func fail(_ what: String) -> LuaError {
                    LuaError(.runtime, "\(route.location): route '\(route.pattern)', step \(i + 1): \(what)")
                }
                var type: ScreenType?
                if step.on == app.alertType.name {
                    continue // an alert's actions are known when it shows: the step checks them then
                }
                if let on = step.on {
                    guard let found = app.catalog.types[on] else {
                        throw fail("no screen type '\(on)' (screen types: \(app.catalog.names.joined(separator: ", ")))")
                    }
                    type = found
                }
                if let flow = step.flow, try classes?.rawGet(flow, as: LuaTable?.self) == nil {
                    throw fail("no coordinator class '\(flow)'")
                }
                if case .event(let name, _)? = step.action, app.eventDeclarations[name] == nil {
                    throw fail("no event '\(name)' (events: \(app.eventDeclarations.keys.sorted().joined(separator: ", ")))")
                }
                if case let .answer(kind, outcome, _)? = step.action {
                    guard let declared = app.requestDeclarations[kind] else { throw fail("no request '\(kind)'") }
                    guard declared.example(of: outcome) != nil else {
                        throw fail("request \(kind) has no outcome '\(outcome)' (outcomes: \(declared.outcomes.map(\.name).joined(separator: ", ")))")
                    }
                }
                guard case let .tap(output, payload)? = step.action else { continue }
                let declared = type.map { [$0] } ?? Array(app.catalog.types.values)
                guard let spec = declared.lazy.compactMap({ $0.output(named: output) }).first else {
                    guard let type else {
                        guard case .nothing = payload else { throw fail("no screen type has an output '\(output)', and an alert's action takes no payload") }
                        routes[r].steps[i].on = app.alertType.name
                        continue
                    }
                    throw fail("\(type.name) has no output '\(output)' (its outputs: \(type.outputs.map(\.name).joined(separator: ", ")))")
                }
                if case .choose(let parameter) = payload {
                    guard case .choice = spec.payload else { throw fail("'\(output)' does not pick from a list, so it cannot choose") }
                    guard route.parameters.contains(parameter) else {
                        throw fail("choose names ':\(parameter)', which is not a parameter of the pattern")
                    }
                }
            }
            for (i, step) in route.steps.enumerated() {
                if let name = step.payloadParameters.first(where: { !route.parameters.contains($0) }) {
                    throw LuaError(.runtime, """
                        \(route.location): route '\(route.pattern)', step \(i + 1): the payload names ':\(name)', \
                        which is not a parameter of the pattern
                        """
                        + (route.parameters.isEmpty ? " (it has none)" : " (parameters: \(route.parameters.joined(separator: ", ")))"))
                }
            }
            if case .flow(let name) = route.from, try classes?.rawGet(name, as: LuaTable?.self) == nil, runtime.classes.swiftCoordinators[name] == nil {
                throw LuaError(.runtime, """
                    \(route.location): route '\(route.pattern)': from = \"\(name)\" names no coordinator class (from \
                    is \"start\", \"current\" or a coordinator class)
                    """)
            }
            if let requires = route.requires {
                let states = runtime.scriptModule.declaration.flows.keys.map(\.rawValue).sorted()
                guard states.isEmpty || states.contains(requires.rawValue) else {
                    throw LuaError(.runtime, """
                        \(route.location): route '\(route.pattern)' requires '\(requires.rawValue)', which is no \
                        gateway state of the app (states: \(states.joined(separator: ", ")))
                        """)
                }
            }
        }
    }

    /// A link held until the app is in the gateway state its route requires (``open(_:in:)``).
    struct Held {
        let url: String
        let route: Route
        let parameters: [String: String]
    }

    /// The link held, if any: one at a time (a second replaces it).
    private(set) var held: Held?

    /// Sets or clears the held link as a step of the running operation (undone with it). While one is
    /// held, the end of every step of the user (and of every operation) looks whether it continues.
    private func hold(_ link: Held?, in runtime: ScriptRuntime) {
        let old = held
        runtime.app.undoLog.record(born: 0) { [weak self, weak runtime] in
            guard let self, let runtime else { return }
            set(old, in: runtime)
        }
        set(link, in: runtime)
    }

    private func set(_ link: Held?, in runtime: ScriptRuntime) {
        held = link
        // The hooks cost a call on every step and operation: set only while a link is held.
        let check: (() throws -> Void)? = link == nil ? nil : { [weak self, weak runtime] in
            guard let self, let runtime else { return }
            try continueHeld(in: runtime)
        }
        (runtime.app.scripting.afterStep, runtime.app.scripting.beforeCommit) = (check, check)
    }

    /// Drops the held link (the app relaunched, or is taken back to its start), undone with the operation.
    func dropHeld(in runtime: ScriptRuntime) {
        if held != nil { hold(nil, in: runtime) }
    }

    /// Opens a link: finds the route it matches and takes its steps (from the app's start, from where it is,
    /// or from the running flow of a coordinator class brought to the front, as the route says), as one
    /// atomic operation. An unknown link, a parameter that resolves to
    /// nothing, a step that finds the app elsewhere: an error naming the link and the step, and the app
    /// exactly as before. The steps record the link (`Application.steps`), not the taps it made.
    @discardableResult
    func open(_ url: String, in runtime: ScriptRuntime) throws -> LinkOutcome {
        let app = runtime.app
        let index = self.index ?? RouteIndex(routes)
        self.index = index
        let query = Route.query(of: url)
        guard let (scheme, parts) = Route.split(url), let i = index.first(scheme: scheme, parts[...], accepting: { self.routes[$0].queryMatches(query) }),
              let parameters = routes[i].match(parts, query: query) else {
            let known = routes.isEmpty ? "the app declares no routes" : "routes: " + routes.map(\.pattern).joined(separator: ", ")
            throw RouteError(.noMatch, "no route matches \(Route.shown(url)) (\(known))")
        }
        let route = routes[i]
        // Not in the state it needs (an app not started yet: not starting in it): held until the app is,
        // then it continues from where the app is. An app not started starts, as it would to show the link.
        if let requires = route.requires, app.root == nil ? app.gateway.state != requires : !Self.runs(requires, in: app) {
            try app.atomically {
                if app.root == nil { try runtime.reset(to: app.gateway.state, width: app.window.sizeClass, starting: true) }
                if let old = held { app.emit(.linkDropped(old.url, reason: "another link was held in its place")) }
                hold(Held(url: url, route: route, parameters: parameters), in: runtime)
                app.emit(.linkHeld(url, until: requires))
                app.stepLog.note(.open(url))
            }
            return .held
        }
        try app.atomically {
            try app.stepLog.withoutRecording {
                if route.from == .start || app.root == nil {
                    // From the app's start: the gateway in the state the app started in, not the one it is in
                    // (a route that requires a state: in that one), the window as wide as it started.
                    try runtime.reset(to: route.requires ?? app.startState, width: app.startSizeClass, starting: true)
                }
                try takeSteps(of: route, for: url, parameters: parameters, in: app)
            }
            if route.from == .start { app.stepLog.reset(to: [.open(url)]) } else { app.stepLog.note(.open(url)) }
        }
        return .opened
    }

    /// Whether the app runs the flow of gateway state `state`: in that state, and (for an app of a flow per
    /// state) that state's flow started and running.
    static func runs(_ state: AppState, in app: Application) -> Bool {
        guard app.gateway.state == state, let root = app.root, root.status == .running else { return false }
        guard let gateway = root as? ApplicationCoordinator else { return true }
        return gateway.runningState == state && gateway.children.contains { $0.status == .running }
    }

    /// At the end of an operation: the held link continues when the app now runs the flow of the state
    /// it requires, its steps taken from where the app is, as an operation of their own inside this one
    /// (one that fails is undone alone: the link is dropped, and an event says why).
    func continueHeld(in runtime: ScriptRuntime) throws {
        guard let link = held, let requires = link.route.requires, Self.runs(requires, in: runtime.app) else { return }
        let app = runtime.app
        hold(nil, in: runtime)
        do {
            try app.atomically {
                try app.stepLog.withoutRecording { try takeSteps(of: link.route, for: link.url, parameters: link.parameters, in: app) }
                app.emit(.linkContinued(link.url))
            }
        } catch {
            app.emit(.linkDropped(link.url, reason: "\(error)"))
        }
    }

    /// Takes the steps of `route` for the link `url`: a step that fails is an error naming the link, the step
    /// and the route.
    private func takeSteps(of route: Route, for url: String, parameters: [String: String], in app: Application) throws {
        if case .flow(let name) = route.from {
            guard let coordinator = app.runningCoordinator(named: name) else {
                throw RouteError(.notRunning, "\(Route.shown(url)): route '\(route.pattern)' (\(route.location)) starts at \(name), and no \(name) runs")
            }
            do { try app.bringForward(coordinator) } catch {
                throw RouteError(.stepFailed, "\(Route.shown(url)): route '\(route.pattern)' (\(route.location)) starts at \(name): \(error)")
            }
        }
        for (i, step) in route.steps.enumerated() {
            do {
                try take(step, parameters: parameters, in: app)
            } catch {
                throw RouteError(.stepFailed, "\(Route.shown(url)), step \(i + 1) of route '\(route.pattern)' (\(route.location)): \(error)")
            }
        }
    }

    private func take(_ step: RouteStep, parameters: [String: String], in app: Application) throws {
        // The visible screen, or beside a split's columns the column top the step names (or taps).
        let shown = app.window.tappableScreens
        let screen = shown.first { screen in
            step.on.map { screen.name == $0 } ?? step.output.map { output in screen.outputs.contains { $0.name == output } } ?? false
        }
            ?? app.window.visibleScreen
        if step.optional, let on = step.on, screen?.name != on { return } // its screen is not there: skipped
        if let on = step.on, screen?.name != on {
            let showing = shown.isEmpty ? "no screen is" : shown.map(\.name).joined(separator: " and ") + (shown.count > 1 ? " are" : " is")
            throw RouteError(.notShowing, "expected \(on) to be showing, but " + showing)
        }
        if let flow = step.flow, screen?.owner?.name != flow {
            throw RouteError(
                .notShowing,
                "expected a screen of flow \(flow), but " + (screen.map { "\($0.name) belongs to \($0.owner?.name ?? "nobody")" } ?? "no screen is showing")
            )
        }
        let user: UserStep
        switch step.action {
        case nil: return
        case .back?: user = .back
        case .dismiss?: user = .dismiss
        case .tabNumber(let n)?: user = .selectTab(n &- 1)
        case .tab(let title)?: user = .selectTab(try app.tabIndex(titled: title))
        case .pageNumber(let n)?: user = .swipeTo(n &- 1)
        case .page(let title)?: user = .swipeTo(try app.pageIndex(titled: title))
        case let .tap(output, payload)?: user = .tap(output, payload: try resolve(payload, output: output, on: screen, parameters: parameters))
        case let .event(name, payload)?: user = .event(name, payload: try resolve(payload, output: name, on: nil, parameters: parameters))
        case let .answer(kind, outcome, payload)?:
            user = .answer(kind, nth: 0, outcome: outcome, value: try resolve(payload, output: kind, on: nil, parameters: parameters))
        }
        try app.perform(user)
    }

    private func resolve(_ payload: RouteStep.Payload, output: String, on screen: Screen?, parameters: [String: String]) throws -> FlowValue? {
        switch payload {
        case .nothing: return nil
        case .value(let value): return Self.substitute(parameters, in: value)
        case .function(let f):
            return try f.call(FlowValue.record(FlowRecord(parameters.mapValues { FlowValue.string($0) })), as: FlowValue?.self)
        case .choose(let parameter):
            guard let value = parameters[parameter] else { throw LuaError(.runtime, "the link has no parameter '\(parameter)'") }
            guard let screen, case .choice(let from)? = screen.type.output(named: output)?.payload else {
                throw LuaError(.runtime, "\(screen?.name ?? "no screen") has no output '\(output)' that picks from a list")
            }
            let items = screen[from]?.listValue ?? []
            guard let item = items.first(where: { Self.item($0, is: value) }) else {
                throw LuaError(.runtime, "parameter \(parameter) = \"\(value)\" matches no item of \(from) on \(screen.name)"
                    + (items.isEmpty ? " (it is empty)" : " (" + items.map(Self.key(of:)).joined(separator: ", ") + ")"))
            }
            return item
        }
    }

    /// Whether a list item is the one a link's parameter names: its text, or its `id`, `name`, `title` or
    /// `key` field's.
    static func item(_ item: FlowValue, is value: String) -> Bool {
        if case .record(let fields) = item {
            return ["id", "name", "title", "key"].contains { fields[$0].map { text(of: $0) == value } ?? false }
        }
        return text(of: item) == value
    }

    /// What a link names an item by: its `id`, `name`, `title` or `key` field, or its text.
    static func key(of item: FlowValue) -> String {
        if case .record(let fields) = item, let key = ["id", "name", "title", "key"].lazy.compactMap({ fields[$0] }).first {
            return text(of: key)
        }
        return text(of: item)
    }

    private static func text(of value: FlowValue) -> String {
        switch value {
        case .string(let s): s
        case .int(let i): String(i)
        case .double(let d): Int(exactly: d).map(String.init) ?? String(d)
        default: value.displayText
        }
    }

    /// `value` with every string `":name"` replaced by that parameter's value.
    static func substitute(_ parameters: [String: String], in value: FlowValue) -> FlowValue {
        switch value {
        case .string(let s) where s.hasPrefix(":"): return parameters[String(s.dropFirst())].map(FlowValue.string) ?? value
        case .list(let items): return .list(items.map { substitute(parameters, in: $0) })
        case .record(let record): return .record(FlowRecord(record.fields.map { ($0.key, substitute(parameters, in: $0.value)) }))
        default: return value
        }
    }
}

extension RouteStep {
    /// Whether it picks an item by the parameter `name`.
    func chooses(_ name: String) -> Bool {
        if case .tap(_, .choose(let parameter))? = action { parameter == name } else { false }
    }

    /// The parameters its payload value names (`":account"` strings that are Lua names), each once.
    var payloadParameters: [String] {
        let payload: RouteStep.Payload? = switch action {
        case let .tap(_, payload)?, let .event(_, payload)?, let .answer(_, _, payload)?: payload
        default: nil
        }
        guard case .value(let value)? = payload else { return [] }
        var names: [String] = []
        var pending = [value]
        while let next = pending.popLast() {
            switch next {
            case .string(let s) where s.hasPrefix(":") && LuaSyntax.isName(String(s.dropFirst())):
                if !names.contains(String(s.dropFirst())) { names.append(String(s.dropFirst())) }
            case .list(let items): pending += items.reversed()
            case .record(let record): pending += record.fields.map(\.value).reversed()
            default: break
            }
        }
        return names
    }
}

/// What opening a link did (``ScriptRuntime/open(_:)``).
public enum LinkOutcome: String, Sendable {
    /// Its steps were taken: the app is where it leads.
    case opened
    /// Its route requires another gateway state than the app's (`requires = "main"`): it is held, and
    /// continues from where the app is once that state's flow has started (a second link held replaces it).
    case held
}

/// The routes by their segments, so that the route a link matches is found in time that grows with the
/// link's segments, not with the number of routes: a tree for each scheme whose edges are a segment's
/// literal text or a parameter (any text), each node knowing the first route declared that ends there.
/// The first route in declaration order whose pattern the link matches wins, as a search in order would find.
struct RouteIndex {
    final class Node {
        var literals: [String: Node] = [:]
        var parameter: Node?
        /// The routes whose patterns end at this node, by their place in the table (several differ in the
        /// text values of their queries).
        var endings: [Int] = []
    }

    private var roots: [String: Node] = [:]

    init(_ routes: [Route]) {
        for (i, route) in routes.enumerated() {
            var node = roots[route.scheme] ?? Node()
            roots[route.scheme] = node
            for segment in route.segments {
                switch segment {
                case .literal(let text):
                    let next = node.literals[text] ?? Node()
                    node.literals[text] = next
                    node = next
                case .parameter:
                    let next = node.parameter ?? Node()
                    node.parameter = next
                    node = next
                }
            }
            node.endings.append(i)
        }
    }

    /// The first route the link's segments `parts` match in scheme `scheme`, of those `accepting` takes (its
    /// query's text values match).
    func first(scheme: String, _ parts: ArraySlice<String>, accepting: (Int) -> Bool) -> Int? {
        roots[scheme].flatMap { Self.first(from: $0, parts, accepting) }
    }

    private static func first(from node: Node, _ parts: ArraySlice<String>, _ accepting: (Int) -> Bool) -> Int? {
        guard let part = parts.first else { return node.endings.first(where: accepting) }
        let rest = parts.dropFirst()
        let literal = node.literals[part].flatMap { first(from: $0, rest, accepting) }
        let parameter = node.parameter.flatMap { first(from: $0, rest, accepting) }
        switch (literal, parameter) {
        case let (a?, b?): return min(a, b)
        case let (a, b): return a ?? b
        }
    }
}
