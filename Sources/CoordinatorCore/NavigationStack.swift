/// A headless navigation stack (a `UINavigationController`): screens pushed on top of a root.
///
/// Its screens change only through the navigation operations (``Transition``), which log every change for
/// undo (see `Change`).
public final class NavigationStack: Presentable {
    /// A number that identifies it in the app.
    public let id: Int
    /// Its screens, root first.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public internal(set) var screens: [Screen] = []
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
