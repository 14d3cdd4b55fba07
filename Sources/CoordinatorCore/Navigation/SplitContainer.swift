/// How wide the window is, as UIKit's horizontal size class says: a split shows its columns side by side
/// when `regular` (an iPad, a large phone in landscape), collapsed into one stack when `compact`.
public enum SizeClass: String, Sendable, CaseIterable {
    /// Narrow: a split's columns act as one navigation stack, the secondary pushed over the primary.
    case compact
    /// Wide: a split's columns side by side.
    case regular
}

/// Columns side by side (a `UISplitViewController`): a primary column (a list), an optional supplementary
/// one, and a secondary column (the detail), each its own navigation stack with its own flow. Any flow in
/// it shows a screen in the secondary column with ``Transition/showDetail(_:)``. In a `compact` window the
/// columns collapse into one stack, the secondary's screens over the others', and expand back when the
/// window is `regular` again (``Window/sizeClass``).
public final class SplitContainer: FlowContainer {
    /// A column of a split.
    public enum Column: String, Sendable, CaseIterable {
        /// The first column: a list.
        case primary
        /// The middle column of a three-column split.
        case supplementary
        /// The detail column.
        case secondary
    }

    /// Its columns, in order (primary, supplementary when it has one, secondary).
    public let columns: [Column]

    init(context: AppContext, supplementary: Bool, owner: Coordinator?, replacing replaced: NavigationStack?) {
        let columns: [Column] = supplementary ? [.primary, .supplementary, .secondary] : [.primary, .secondary]
        self.columns = columns
        super.init(context: context, titles: columns.map { $0.rawValue }, owner: owner, replacing: replaced)
        selectedIndex = columns.count - 1 // the secondary column: the one Back and `top()` work on
    }

    override var memberName: String { "column" }
    override var kindName: String { "Split" }
    public override var containerName: String { "Split[" + columns.map(\.rawValue).joined(separator: ", ") + "]" }

    /// A column's navigation stack, or nil when it has no such column.
    public func stack(_ column: Column) -> NavigationStack? { columns.firstIndex(of: column).map { stacks[$0] } }

    /// The secondary column's stack.
    public var secondary: NavigationStack { stacks[stacks.count - 1] }

    /// The screen the user looks at: the secondary column's top, or (while it is empty) the column before's.
    public override var visibleScreen: Screen? {
        for stack in stacks.reversed() { if let screen = stack.visibleScreen { return screen } }
        return nil
    }

    /// Every column's screens, primary first: what the user sees, side by side or collapsed into one stack.
    override var visiblePath: [Screen] { stacks.flatMap(\.screens) }

    /// The top screen of each column that has one, secondary first: where a tap can go in a regular window.
    public var columnTops: [(column: Column, screen: Screen)] {
        zip(columns, stacks).reversed().compactMap { column, stack in stack.visibleScreen.map { (column, $0) } }
    }
}
