/// A screen as events name it: its identity and type, without keeping it alive.
public struct ScreenInfo: Hashable, Sendable, CustomStringConvertible {
    /// Its id, unique in the app.
    public let id: Int
    /// Its screen type's name.
    public let name: String
    /// `Name#id`.
    public var description: String { "\(name)#\(id)" }
}

/// A coordinator as events name it, without keeping it alive.
public struct CoordinatorInfo: Hashable, Sendable, CustomStringConvertible {
    /// Its id, unique in the app.
    public let id: Int
    /// Its name (a Lua coordinator's class name).
    public let name: String
    /// `Name#id`.
    public var description: String { "\(name)#\(id)" }
}

/// Why a coordinator finished.
public enum FinishReason: String, Sendable {
    /// It called `finish`.
    case finished
    /// The user went back past its last screen, or swiped its modal away.
    case systemBack
    /// Its parent finished (or restarted), so it finished first.
    case parentFinished
    /// Another coordinator's navigation removed its last screen.
    case screensRemoved
}

/// Everything that happens in an application, reported to observers in order.
///
/// Events of an operation that fails are never reported: the operation is undone and its events dropped.
public enum NavigationEvent: Sendable, Equatable, CustomStringConvertible {
    /// A coordinator started (`parent` nil for the root).
    case started(CoordinatorInfo, parent: CoordinatorInfo?)
    /// A coordinator finished, why, and with what result.
    case finished(CoordinatorInfo, reason: FinishReason, result: FlowValue?)
    /// A screen was pushed on a navigation stack (`animation`: the host's custom animation it named).
    case pushed(ScreenInfo, animated: Bool, animation: String? = nil)
    /// Screens left a navigation stack (`bySystem`: the Back button or edge swipe).
    case popped([ScreenInfo], animated: Bool, bySystem: Bool)
    /// A stack's screens were replaced by one root screen.
    case rootSet(ScreenInfo, hideBar: Bool, animated: Bool)
    /// A modal container (named by its visible screen) was presented, as `presentation` says
    /// (`animation`: the host's custom animation it named).
    indirect case presented(String, animated: Bool, presentation: Presentation = Presentation(), animation: String? = nil)
    /// A modal went away (`bySystem`: swiped down).
    case dismissed(String, animated: Bool, bySystem: Bool)
    /// A tab was selected (`bySystem`: by the user tapping the tab bar).
    case tabSelected(Int, bySystem: Bool)
    /// The user tapped a tab that is a button (0-based): its action ran, and nothing was selected.
    case tabActed(Int)
    /// A page was shown (`bySystem`: by the user swiping).
    case pageSelected(Int, bySystem: Bool)
    /// A screen was shown as a split's secondary column, in place of its stack.
    case detailShown(ScreenInfo, animated: Bool)
    /// The window's width changed: a split collapsed (`compact`) or expanded (`regular`).
    case sizeClassChanged(SizeClass)
    /// The user opened window `number` (it is now the current one).
    case windowOpened(Int)
    /// The user made window `number` the current one.
    case windowSelected(Int)
    /// The user closed window `number`.
    case windowClosed(Int)
    /// An event from outside the flows reached `receivers` coordinators' handlers.
    case eventReceived(String, receivers: Int)
    /// A timer of `owner` fired (`due`: when it falls due next, for a repeating one).
    case timerFired(CoordinatorInfo?, due: Double)
    /// The user's side moved the app's clock on by `seconds`.
    case clockAdvanced(Double)
    /// A coordinator started a request of `kind` (numbered `id` in the app) that the outside answers later.
    indirect case requestStarted(String, id: Int, by: CoordinatorInfo)
    /// The outside answered a request of `kind` with `outcome` (`heard`: a handler took it).
    indirect case requestAnswered(String, outcome: String, heard: Bool)
    /// A screen's input changed.
    case inputChanged(ScreenInfo, input: String)
    /// A screen emitted an output.
    case outputEmitted(ScreenInfo, output: String)
    /// A signal went up the tree from a sender and reached `receivers` handlers.
    case signal(String, from: String, receivers: Int)
    /// The gateway changed state (sign-in, sign-out).
    case gatewayChanged(from: AppState, to: AppState)
    /// The app closed and launched again (only its storage and clock carried over).
    case relaunched
    /// A link was held until the app runs the flow of gateway state `until` (its route requires it).
    indirect case linkHeld(String, until: AppState)
    /// A held link continued: its steps were taken from where the app was.
    case linkContinued(String)
    /// A held link was dropped: another took its place, or its steps failed when it continued.
    indirect case linkDropped(String, reason: String)
    /// Work a coordinator asked for right after an operation (``Coordinator/later(_:)``) failed: its own
    /// changes were undone, the step stands. `owner` is the coordinator (`Menu#4`).
    indirect case laterFailed(owner: String, reason: String)

    public var description: String { description(notation: \.description) }

    /// The event as ``description`` says it, with a finished coordinator's result in `notation` (a scripting
    /// bridge gives its language's: `finish Login#3 (finished) -> {name = "Ann"}`).
    package func description(notation: (FlowValue) -> String) -> String {
        switch self {
        case let .started(c, parent): "start \(c)" + (parent.map { " under \($0)" } ?? "")
        case let .finished(c, reason, result): "finish \(c) (\(reason.rawValue))" + (result.map { " -> " + notation($0) } ?? "")
        case let .pushed(s, animated, animation): "push \(s)" + Transition.aside(animated ? nil : "not animated", animation)
        case let .popped(screens, _, bySystem): (bySystem ? "system back: pop " : "pop ") + screens.map(\.description).joined(separator: ", ")
        case let .rootSet(s, hideBar, _): "set root \(s)" + (hideBar ? " (bar hidden)" : "")
        case let .presented(what, animated, presentation, animation):
            "present \(what)" + Transition.aside(presentation.isDefault ? nil : presentation.description, animated ? nil : "not animated", animation)
        case let .dismissed(what, _, bySystem): (bySystem ? "system: swipe down " : "dismiss ") + what
        case let .tabSelected(i, bySystem): (bySystem ? "user selects tab " : "select tab ") + String(i + 1)
        case let .tabActed(i): "user taps tab \(i + 1) (an action)"
        case let .pageSelected(i, bySystem): (bySystem ? "user swipes to page " : "select page ") + String(i + 1)
        case let .detailShown(s, _): "show detail \(s)"
        case let .sizeClassChanged(sizeClass): "size class \(sizeClass.rawValue)"
        case let .windowOpened(number): "user opens window \(number)"
        case let .windowSelected(number): "user selects window \(number)"
        case let .windowClosed(number): "user closes window \(number)"
        case let .eventReceived(name, receivers): "event \(name) reached \(receivers)"
        case let .timerFired(owner, _): "timer of \(owner?.description ?? "a finished flow") fired"
        case let .clockAdvanced(seconds): "clock +\(AppClock.seconds(seconds)) s"
        case let .requestStarted(kind, _, by): "request \(kind) by \(by)"
        case let .requestAnswered(kind, outcome, heard): "answer \(kind) \(outcome)" + (heard ? "" : " (nobody heard it)")
        case let .inputChanged(s, input): "update \(s).\(input)"
        case let .outputEmitted(s, output): "\(s) -> \(output)"
        case let .signal(name, from, receivers): "signal \(name) from \(from) reached \(receivers)"
        case let .gatewayChanged(from, to): "gateway \(from) -> \(to)"
        case .relaunched: "relaunch"
        case let .linkHeld(url, until): "hold link \(url.replacingEscapes()) until \(until)"
        case let .linkContinued(url): "continue link \(url.replacingEscapes())"
        case let .linkDropped(url, reason): "drop link \(url.replacingEscapes()): \(reason)"
        case let .laterFailed(owner, reason): "later of \(owner) failed: \(reason)"
        }
    }
}
