/// A navigation step as a value: what a ``Router`` performs, as one atomic operation, on behalf of a
/// coordinator (which owns the screens it shows). The verbs (``TransitionPerformer/push(_:animated:completion:)``
/// and the others) are conveniences that build one; deep links and restoration build whole hierarchies
/// from ``sequence(_:)``s of them.
///
/// ```swift
/// try coordinator.perform(.sequence([.popToRoot, .push(details), .present(alert)]))
/// ```
public enum Transition {
    /// Pushes a screen onto the router's navigation stack, with the host's custom animation named
    /// `animation` (Lua's `transition = NAME`), or the platform's standard one when nil.
    case push(Screen, animation: String? = nil)
    /// Pops the top screen of the router's stack (its root cannot be popped).
    case pop
    /// Pops every screen above `screen`, which stays.
    case popTo(Screen)
    /// Pops every screen above the stack's root.
    case popToRoot
    /// Replaces the whole stack with one screen (the sources' `setRootModule(hideBar:)`).
    case setRoot(Screen, hideBar: Bool)
    /// Presents a screen, a navigation stack or a tab container modally over everything, as its
    /// ``Presentable/presentation`` says, with the host's custom animation named `animation` (Lua's
    /// `transition = NAME`), or the standard one for its style when nil.
    case present(any Presentable, animation: String? = nil)
    /// Dismisses the topmost modal (and, as UIKit does, nothing below it).
    case dismiss
    /// Selects a tab of the tab container that holds the router's stack (0-based).
    case selectTab(Int)
    /// Shows a page of the page container that holds the router's stack (0-based).
    case selectPage(Int)
    /// Puts a tab bar, pages or a split where the router's stack is (the window's root, or a modal): their
    /// flows then get routers on their stacks (``Router/router(on:)``).
    case setContainer(FlowContainer)
    /// Shows a screen as the secondary column of the split the router's stack is in (or its coordinator
    /// set), in place of that column's whole stack: UIKit's `showDetailViewController`.
    case showDetail(Screen)
    /// Several steps as one: all of them happen, or none.
    case sequence([Transition])

    /// Replaces the whole stack with one screen, the navigation bar shown.
    public static func setRoot(_ screen: Screen) -> Transition { .setRoot(screen, hideBar: false) }
}

extension Transition: CustomStringConvertible {
    /// The step as a person reads it: `push Regions#9`, `push Cities#10 (zoom)`, `present Sheet#4 (fullScreen)`,
    /// `sequence(pop to root, push Cities#10)`.
    public var description: String {
        switch self {
        case let .push(screen, animation): "push \(screen.info)" + Self.aside(animation)
        case .pop: "pop"
        case .popTo(let screen): "pop to \(screen.info)"
        case .popToRoot: "pop to root"
        case let .setRoot(screen, hideBar): "set root \(screen.info)" + (hideBar ? " (bar hidden)" : "")
        case let .present(module, animation):
            "present \(module.containerName)" + Self.aside(module.presentation.isDefault ? nil : module.presentation.description, animation)
        case .dismiss: "dismiss"
        case .selectTab(let index): "select tab \(index &+ 1)"
        case .selectPage(let index): "select page \(index &+ 1)"
        case .setContainer(let container): "set \(container.containerName)"
        case .showDetail(let screen): "show detail \(screen.info)"
        case .sequence(let steps): "sequence(" + steps.map(\.description).joined(separator: ", ") + ")"
        }
    }

    /// ` (a, b)` for the parts present, nothing when none is.
    static func aside(_ parts: String?...) -> String {
        let present = parts.compactMap { $0 }
        return present.isEmpty ? "" : " (" + present.joined(separator: ", ") + ")"
    }
}
