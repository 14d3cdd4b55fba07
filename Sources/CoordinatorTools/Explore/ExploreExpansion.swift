import CoordinatorScript

/// What one action taken at a state gave.
package struct ExploreOutcome {
    /// Where it led, or why it failed (the step was undone).
    package enum Result {
        /// The state it led to.
        case state(ExploredState)
        /// Why it failed (the error's message, with its place).
        case failed(String)
        /// Not followed: it would leave more requests of `kind` waiting than the search follows
        /// (``Options/maxPending``); `waiting` of them.
        case cut(kind: String, waiting: Int)
    }
    /// What the user did.
    package let action: UserStep
    /// Where it led, or why it failed.
    package let result: Result
    /// The output no handler heard, when the action was a tap nobody handles.
    package let unhandled: (screen: String, output: String)?
    /// What the lifecycle oracle found after the step: what it left running without a screen, and what
    /// it left alive (found when the state's expansion ends, ``Expansion``).
    package internal(set) var violations: [String]
    /// The range of a random draw the step failed at for want of a value given (it stands for an
    /// action per value, ``drawing(_:_:)``).
    var drawNeeded: ClosedRange<Int>? = nil
    /// Why a later the step ran failed (``Application/failedLaters``): the step stood, the later's
    /// changes were undone; an error of the app.
    package internal(set) var laterFailure: String? = nil
}

/// What expanding one state gave: every action the user has there and where each led.
///
/// The lifecycle oracle collects garbage once at the end of each state's expansion, and gives what it
/// finds left alive to the action that left it (the oracle names the step that finished the flow or took
/// the screen away); what no action of the state left goes to the state itself. So what is found, and
/// the path it is reported with, depend only on the state, not on which runtime expanded which states
/// before it: a search split among worker processes reports what one process does.
public struct ExploreExpansion {
    /// How many actions the user has at the state.
    package let actionCount: Int
    /// What each action gave, in the order they were taken.
    package internal(set) var outcomes: [ExploreOutcome]
    /// What the oracle found alive at the end that no action of the state left: the state's own finding.
    package internal(set) var leftAlive: [String]
    /// How many fresh runtimes the expansion needed (``Explorer``).
    package internal(set) var freshRuntimes = 0
}
