/// A headless navigation stack (a `UINavigationController`): screens pushed on top of a root.
///
/// Its screens change only through the navigation operations (``Transition``), which log every change for
/// undo (see `Change`).
public final class NavigationStack: Presentable {
    /// A number that identifies it in the app.
    public let id: Int
    // Exclusivity of the state touched by every navigation step is unchecked: see Coordinator.swift.
    /// Its screens, root first.
    @exclusivity(unchecked) public internal(set) var screens: [Screen] = []
    /// Whether the navigation bar is hidden (set with ``Transition/setRoot(_:hideBar:)``).
    public internal(set) var barHidden = false
    let context: AppContext
    /// The operation level it was made in (see ``Journal/shouldLog(_:)``).
    let born: Int

    init(context: AppContext) {
        self.context = context
        self.id = context.nextID()
        self.born = context.journal.markNew()
    }

    public var visibleScreen: Screen? { screens.last }
    public var containerName: String { "NavigationStack[" + screens.map(\.name).joined(separator: ", ") + "]" }
}
