import CoordinatorCore
import CoordinatorLua

/// One step of a ``Route``: where the app must be (`on`, `flow`), and what the user does there (a tab, a
/// tap, Back, a dismiss). Read from a Lua table of `flow.route`:
///
/// - `on = "Products"`: the visible screen is a `Products` (checked when the script loads that the type
///   exists and has the step's output; checked again when the link opens);
/// - `flow = "Catalog"`: the visible screen belongs to a coordinator of class `Catalog`;
/// - `tab = "Catalog"` or `tab = 2`: the user selects that tab;
/// - `page = "News"` or `page = 2`: the user swipes to that page;
/// - `tap = "open"` with `choose = "product"` (an output that picks an item of a list: the item whose
///   `id`, `name`, `title` or text is the parameter's value), `payload = { id = ":product" }` (`":name"`
///   strings are replaced by the parameter) or `payload = function(params) ... end`;
/// - `back = true`, `dismiss = true`: the system's Back, the swipe-down of the top modal;
/// - `event = "pushReceived"` with an optional `payload` (as a tap's): the outside world sends that event;
/// - `answer = "book"` with `outcome` (and an optional `payload`, the answer's value): the outside answers
///   the oldest pending request of that kind;
/// - `optional = true` with `on`: the step is taken only when its screen shows, and skipped otherwise
///   (an onboarding that shows only on a fresh install).
struct RouteStep {
    enum Action {
        case tab(String)
        case tabNumber(Int)
        case page(String)
        case pageNumber(Int)
        case tap(String, Payload)
        case back
        case dismiss
        case event(String, Payload)
        case answer(String, outcome: String, Payload)
    }

    enum Payload {
        case nothing
        case choose(String)
        case value(FlowValue)
        case function(LuaFunction)
    }

    var on: String?
    var flow: String?
    var action: Action?
    /// Taken only when its `on` screen shows.
    var optional = false

    /// The step described by a Lua table; `parameters` are the route's, for `choose`.
    init(_ table: LuaTable, number: Int, pattern: String) throws {
        func fail(_ what: String) -> LuaError { LuaError(.runtime, "route '\(pattern)', step \(number): \(what)") }
        let known: Set<String> = ["on", "flow", "tab", "page", "tap", "choose", "payload", "back", "dismiss", "event", "answer", "outcome", "optional"]
        for (key, _) in try table.pairs() {
            guard let name = key.stringValue, known.contains(name) else {
                throw fail("""
                    unknown field \(key.stringValue.map { "'\($0)'" } ?? key.display) (a step has on, flow, tab, \
                    page, tap with choose or payload, back, dismiss, event with payload, answer with outcome and \
                    payload, optional)
                    """)
            }
        }
        on = try table.rawGet("on", as: String?.self)
        switch try table.rawGet("optional", as: LuaValue.self) {
        case .nil: break
        case .boolean(let value): optional = value
        default: throw fail("optional is true or false")
        }
        if optional, on == nil { throw fail("an optional step names the screen it waits for (on = \"Welcome\"): it is taken only when that screen shows") }
        flow = try table.rawGet("flow", as: String?.self)
        var actions: [Action] = []
        switch try table.rawGet("tab", as: LuaValue.self) {
        case .nil: break
        case .string(let title): actions.append(.tab(title.string))
        case let value:
            guard let n = value.intValue, n >= 1 else { throw fail("tab is a title or a number from 1") }
            actions.append(.tabNumber(n))
        }
        switch try table.rawGet("page", as: LuaValue.self) {
        case .nil: break
        case .string(let title): actions.append(.page(title.string))
        case let value:
            guard let n = value.intValue, n >= 1 else { throw fail("page is a title or a number from 1") }
            actions.append(.pageNumber(n))
        }
        if let output = try table.rawGet("tap", as: String?.self) {
            let choose = try table.rawGet("choose", as: String?.self)
            let payload = try table.rawGet("payload", as: LuaValue.self)
            if choose != nil && payload != .nil { throw fail("a tap takes choose or payload, not both") }
            if let choose {
                actions.append(.tap(output, .choose(choose)))
            } else if case .function(let f) = payload {
                actions.append(.tap(output, .function(f)))
            } else if payload != .nil {
                actions.append(.tap(output, .value(try table.rawGet("payload", as: FlowValue.self))))
            } else {
                actions.append(.tap(output, .nothing))
            }
        } else if let kind = try table.rawGet("answer", as: String?.self) {
            guard let outcome = try table.rawGet("outcome", as: String?.self) else { throw fail("an answer names its outcome (outcome = \"ok\")") }
            guard try table.rawGet("choose", as: LuaValue.self) == .nil else { throw fail("choose goes with tap, not with answer") }
            switch try table.rawGet("payload", as: LuaValue.self) {
            case .nil: actions.append(.answer(kind, outcome: outcome, .nothing))
            case .function(let f): actions.append(.answer(kind, outcome: outcome, .function(f)))
            default: actions.append(.answer(kind, outcome: outcome, .value(try table.rawGet("payload", as: FlowValue.self))))
            }
        } else if let event = try table.rawGet("event", as: String?.self) {
            guard try table.rawGet("choose", as: LuaValue.self) == .nil else { throw fail("choose goes with tap, not with event") }
            switch try table.rawGet("payload", as: LuaValue.self) {
            case .nil: actions.append(.event(event, .nothing))
            case .function(let f): actions.append(.event(event, .function(f)))
            default: actions.append(.event(event, .value(try table.rawGet("payload", as: FlowValue.self))))
            }
        } else if try table.rawGet("choose", as: LuaValue.self) != .nil || table.rawGet("payload", as: LuaValue.self) != .nil {
            throw fail("choose and payload go with tap or event")
        }
        if try table.rawGet("back", as: Bool?.self) == true { actions.append(.back) }
        if try table.rawGet("dismiss", as: Bool?.self) == true { actions.append(.dismiss) }
        if try ["tap", "event", "answer"].filter({ try table.rawGet($0, as: LuaValue.self) != .nil }).count > 1 {
            throw fail("one action a step (tab, page, tap, back, dismiss, event or answer)")
        }
        guard actions.count <= 1 else { throw fail("one action a step (tab, page, tap, back, dismiss, event or answer)") }
        guard on != nil || flow != nil || !actions.isEmpty else { throw fail("an empty step") }
        action = actions.first
    }

    /// The output this step taps, if any.
    var output: String? { if case .tap(let output, _)? = action { output } else { nil } }
}
