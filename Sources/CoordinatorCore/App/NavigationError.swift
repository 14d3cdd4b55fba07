/// A navigation or coordination mistake. Every operation that throws one leaves the app exactly as it was.
public typealias NavigationError = CodedError<NavigationErrorCode>

/// The codes of ``NavigationError``: what went wrong, for code that reacts to particular mistakes.
public enum NavigationErrorCode: String, Sendable {
    /// Popping the root screen of a stack.
    case popRoot
    /// Dismissing with no modal presented.
    case nothingPresented
    /// Swiping away (or going back past the root of) a modal the user cannot swipe away: a full-screen
    /// cover, or one presented with `dismissable = false`.
    case notDismissable
    /// Going back with nowhere to go back to (a root screen, no modal).
    case nothingToGoBack
    /// An alert with no action: the user could never answer it.
    case alertNeedsAction
    /// A role for an action an alert does not have, or a second cancel action.
    case badAlertRole
    /// A screen type that is not in the catalog.
    case unknownScreen
    /// An input the screen type does not declare.
    case unknownInput
    /// A required input left out.
    case missingInput
    /// An output the screen does not have, or one nothing handles.
    case unknownOutput
    /// The output is declared but not offered now: its condition (`when`) is false.
    case notOffered
    /// A payload the output does not take (none for a plain output, an item not in its list).
    case badPayload
    /// Nothing is showing.
    case noVisibleScreen
    /// Finishing a coordinator that finished already.
    case alreadyFinished
    /// Acting through a coordinator that is not running (not started, finished, or its app gone).
    case notRunning
    /// Starting a coordinator that started already.
    case alreadyStarted
    /// Running a coordinator inside itself.
    case cycle
    /// Running a coordinator that another one runs already.
    case alreadyHasParent
    /// Showing a screen that is shown already.
    case screenInUse
    /// Navigating in a container that is not on screen.
    case containerNotShown
    /// A tab index out of range, or tabs where there are none.
    case badTab
    /// A window that is not open, the last one closed, or one the app cannot open.
    case badWindow
    /// A gateway state the application has no flow for.
    case unknownState
    /// An event the app does not declare, or sent with a payload it does not take (or without one it needs).
    case unknownEvent
    /// A time that is not one: negative, not finite, a repeating timer's period of 0.
    case badTime
    /// A request kind the app does not declare, an outcome it does not declare, or no such request pending.
    case unknownRequest
    /// A link opened in an app that has nothing to route it (the scripting layer's routes do).
    case noRouter
    /// A branch (``Application/branch(_:)``) begun while an operation runs.
    case operationRunning
    /// A random draw that cannot be made: outside a step, from no values or more than 64, with no value
    /// given where none is drawn at random (flow tests, exploration), or given a value out of its range.
    case badDraw
}
