/// A headless navigation stack (a `UINavigationController`): screens pushed on top of a root.
///
/// Its screens change only through the navigation operations (``Transition``), which log every change for
/// undo (see `Change`).
public final class NavigationStack: Presentable {
    /// A number that identifies it in the app.
    public let id: Int
    /// How it is presented, when it is a modal.
    public internal(set) var presentation = Presentation()
    /// Its screens, root first.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    public internal(set) var screens: [Screen] = [] { didSet { followNames() } }
    /// Its screens' names as a persistent list, top first (``ScreenNames``).
    package private(set) var names: ScreenNames?
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

    /// Keeps ``names`` up to date: a push adds a node, a pop steps down one (O(1), the operations a stack
    /// does all day); any other change builds the list again.
    private func followNames() {
        let count = screens.count, known = names?.count ?? 0
        if count == known + 1, let top = screens.last, count == 1 || screens[count - 2].id == names?.id {
            names = ScreenNames(top, below: names)
        } else if count == known - 1, count == 0 ? true : screens[count - 1].id == names?.below?.id {
            names = names?.below
        } else if !ScreenNames.list(names, holds: screens) {
            names = screens.reduce(nil) { ScreenNames($1, below: $0) }
        }
    }

    public var visibleScreen: Screen? { screens.last }
    public var containerName: String { "NavigationStack[" + screens.map(\.name).joined(separator: ", ") + "]" }
}

/// A stack's screen names as a persistent list: each node is a screen and points to the one below it, so a
/// record of a whole stack is one reference, shared with every other record of the same stack (what a
/// REPL keeps for each line it may write as a test costs O(1), whatever the depth).
package final class ScreenNames {
    /// The screen's type name.
    package let name: String
    /// The screen's id.
    package let id: Int
    /// The screen below it, nil for the root.
    package let below: ScreenNames?
    /// How many screens the list holds, this one included.
    package let count: Int

    init(_ screen: Screen, below: ScreenNames?) {
        name = screen.name
        id = screen.id
        self.below = below
        count = (below?.count ?? 0) + 1
    }

    /// Whether `list` holds exactly these screens (by id), top first: then it stays the stack's list, and a
    /// change undone gives back the very list there was.
    static func list(_ list: ScreenNames?, holds screens: [Screen]) -> Bool {
        guard (list?.count ?? 0) == screens.count else { return false }
        var node = list
        for screen in screens.reversed() {
            guard let next = node, next.id == screen.id, next.name == screen.name else { return false }
            node = next.below
        }
        return true
    }

    /// Whether two lists hold the same screens: at once when they are the same list, else screen by
    /// screen from the top.
    package static func same(_ a: ScreenNames?, _ b: ScreenNames?) -> Bool {
        var (x, y) = (a, b)
        while let p = x, let q = y {
            if p === q { return true }
            guard p.id == q.id, p.count == q.count else { return false }
            (x, y) = (p.below, q.below)
        }
        return x == nil && y == nil
    }

    /// The names, bottom first.
    package var bottomFirst: [String] {
        var result: [String] = []
        result.reserveCapacity(count)
        var node: ScreenNames? = self
        while let next = node {
            result.append(next.name)
            node = next.below
        }
        return result.reversed()
    }
}
