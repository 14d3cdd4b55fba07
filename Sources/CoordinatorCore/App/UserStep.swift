/// One thing the user did to the app: what ``Application/steps`` records, so that the same app can be
/// brought to the same place again by doing it again (a snapshot's restore, the REPL's time travel).
///
/// ```swift
/// try app.tap("selectCity")
/// try app.back()
/// app.steps   // [.tap("selectCity", payload: nil), .back]
/// ```
public enum UserStep: Hashable, Sendable {
    /// The visible screen emitted an output (``Application/tap(_:payload:)``).
    case tap(String, payload: FlowValue?)
    /// The Back button, or the swipe-down of a modal (``Application/back()``).
    case back
    /// The swipe-down of the whole top modal (``Application/dismiss()``).
    case dismiss
    /// The user selected a tab, 0-based (``Application/selectTab(_:)``).
    case selectTab(Int)
    /// The user swiped to a page of the visible pages, 0-based (``Application/swipe(toPage:)``).
    case swipeTo(Int)
    /// The window changed width (a rotation, a resized window): a split collapses or expands
    /// (``Application/setSizeClass(_:)``).
    case sizeClass(SizeClass)
    /// A link was opened: a scripting layer's route, which records the link instead of the steps it took.
    case open(String)
    /// The world outside sent an event (``Application/send(event:payload:)``).
    indirect case event(String, payload: FlowValue?)
    /// Time passed: the app's clock moved on by these seconds (``Application/advance(by:)``).
    case advance(Double)
    /// The outside answered the `nth` (0: the oldest) pending request of a kind with an outcome and a
    /// value (nil: the outcome's example) (``Application/answer(_:nth:outcome:value:)``).
    indirect case answer(String, nth: Int, outcome: String, value: FlowValue?)
    /// The app was closed and launched again, as a new process would launch it: a scripting layer runs its
    /// scripts again; only the storage and the clock carry over (``Application/relaunch()``).
    case relaunch
    /// The user opened another window of the app (an iPad's scene), which became the current one: its own
    /// root flow starts there (``Application/windows``).
    case openWindow
    /// The user made window `number` the one they act on.
    case selectWindow(Int)
    /// The user closed window `number` (not the last one open).
    case closeWindow(Int)
    /// A step that made random draws (``Application/draw(in:)``), with the values they took, in order: a
    /// replay gives them to its draws again.
    indirect case drawn(UserStep, values: [Int])
}

extension UserStep {
    /// Whether the step carries a value: a tap's or an event's payload, an answer's value.
    package var carriesValue: Bool {
        switch self {
        case .tap(_, _?), .event(_, _?), .answer(_, _, _, _?): true
        case .drawn(let step, _): step.carriesValue
        default: false
        }
    }

    /// The step with the value it carries (``carriesValue``) as `transform` makes it.
    package func mappingValues(_ transform: (FlowValue) throws -> FlowValue) rethrows -> UserStep {
        switch self {
        case let .tap(output, value?): .tap(output, payload: try transform(value))
        case let .event(name, value?): .event(name, payload: try transform(value))
        case let .answer(kind, nth, outcome, value?): .answer(kind, nth: nth, outcome: outcome, value: try transform(value))
        case let .drawn(step, values): .drawn(try step.mappingValues(transform), values: values)
        default: self
        }
    }
}

extension UserStep: CustomStringConvertible {
    /// The step in Swift's notation, for logs: `.tap("select", payload: ["id": 1])`, `.back`,
    /// `.selectTab(1)`. (A scripting layer writes it in its own language: the Lua runtime's `luaSource`.)
    public var description: String {
        switch self {
        case let .tap(output, payload): ".tap(\"\(output.replacingEscapes())\", payload: \(payload?.description ?? "nil"))"
        case .back: ".back"
        case .dismiss: ".dismiss"
        case .selectTab(let index): ".selectTab(\(index))"
        case .swipeTo(let index): ".swipeTo(\(index))"
        case .sizeClass(let sizeClass): ".sizeClass(.\(sizeClass.rawValue))"
        case .open(let url): ".open(\"\(url.replacingEscapes())\")"
        case let .event(name, payload): ".event(\"\(name.replacingEscapes())\", payload: \(payload?.description ?? "nil"))"
        case .advance(let seconds): ".advance(\(AppClock.seconds(seconds)))"
        case let .answer(kind, nth, outcome, value):
            ".answer(\"\(kind.replacingEscapes())\", nth: \(nth), outcome: \"\(outcome.replacingEscapes())\", value: \(value?.description ?? "nil"))"
        case .relaunch: ".relaunch"
        case .openWindow: ".openWindow"
        case .selectWindow(let number): ".selectWindow(\(number))"
        case .closeWindow(let number): ".closeWindow(\(number))"
        case let .drawn(step, values): ".drawn(\(step), values: \(values))"
        }
    }
}
