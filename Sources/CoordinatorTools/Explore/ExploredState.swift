import CoordinatorScript

/// What an app looks like at a state, as the report keeps it.
package struct ExploredState {
    /// The state's identity (``Explorer``): 32 hexadecimal digits.
    package let key: String
    /// Whether the app's view stood for some of its data.
    package let viewed: Bool
    /// The visible screen's type ("" when none).
    package let screen: String
    /// The visible screen's title, when it has one (an alert's).
    package let title: String?
    /// The class of the coordinator that shows it ("" when none).
    package let owner: String
    /// How the top modal is presented (``Presentation``'s description: `pageSheet`, `fullScreen`,
    /// `formSheet, not dismissable`), nil when no modal is up.
    package let modal: String?
    /// Whether a modal is up.
    package var inModal: Bool { modal != nil }
    /// The selected tab's title, when a tab bar shows.
    package let tab: String?
    /// The gateway's state.
    package let gateway: String
    /// Every screen type shown anywhere in the window.
    package let shownTypes: [String]
    /// The invariants (`flow.invariant`) that do not hold here: each name, with why it could not be told
    /// when its function failed.
    package var brokenInvariants: [BrokenInvariant] = []
    /// The reachable properties (`flow.reachable`) whose predicate holds here, by name.
    package var goals: [String] = []
    /// Why the properties could not be checked here (one changed the scripts' data), or nil.
    package var propertyFault: String?
    /// Whether it is a state the search looks for (``Options/stopAt``).
    package var isStop = false
}
