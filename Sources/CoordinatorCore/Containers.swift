/// Something that can be shown: a screen, a navigation stack, or a tab container (the sources'
/// `Presentable`). A UIKit adapter would map these to view controllers.
public protocol Presentable: AnyObject {
    /// The screen the user sees inside it, if any.
    var visibleScreen: Screen? { get }
    /// Every screen inside it.
    var screens: [Screen] { get }
    /// A short name for events and hierarchy listings.
    var containerName: String { get }
}

/// A headless navigation stack (a `UINavigationController`): screens pushed on top of a root.
public final class NavigationStack: Presentable {
    /// The operation level that last recorded it (see `Application.needsRecord`).
    var journalMark = 0
    public let id: Int
    public internal(set) var screens: [Screen] = []
    /// Whether the navigation bar is hidden (set with `setRoot(hideBar:)`).
    public internal(set) var barHidden = false
    weak var app: Application?

    init(app: Application) {
        self.app = app
        self.id = app.nextID()
    }

    public var visibleScreen: Screen? { screens.last }
    public var containerName: String { "NavigationStack[" + screens.map(\.name).joined(separator: ", ") + "]" }

    func record() {
        guard let app, app.needsRecord(self) else { return }
        let (saved, hidden) = (screens, barHidden)
        app.addUndo { self.screens = saved; self.barHidden = hidden }
    }
}

/// A headless tab bar (a `UITabBarController`): tabs that each hold their own navigation stack.
public final class TabContainer: Presentable {
    /// The operation level that last recorded it (see `Application.needsRecord`).
    var journalMark = 0
    public let id: Int
    public let titles: [String]
    public let stacks: [NavigationStack]
    public internal(set) var selectedIndex = 0
    weak var app: Application?

    init(app: Application, titles: [String]) {
        self.app = app
        self.id = app.nextID()
        self.titles = titles
        self.stacks = titles.map { _ in NavigationStack(app: app) }
    }

    public var selectedStack: NavigationStack { stacks[selectedIndex] }
    public var visibleScreen: Screen? { selectedStack.visibleScreen }
    public var screens: [Screen] { stacks.flatMap(\.screens) }
    public var containerName: String { "Tabs[" + titles.joined(separator: ", ") + "]" }

    func record() {
        guard let app, app.needsRecord(self) else { return }
        let saved = selectedIndex
        app.addUndo { self.selectedIndex = saved }
    }
}

/// The whole headless UI: a root container and the modals presented over it, topmost last.
public final class Window {
    /// The operation level that last recorded it (see `Application.needsRecord`).
    var journalMark = 0
    public internal(set) var root: Presentable
    public internal(set) var modals: [Presentable] = []
    weak var app: Application?

    init(app: Application) {
        self.app = app
        self.root = NavigationStack(app: app)
    }

    /// What the user sees now.
    public var visibleScreen: Screen? {
        for modal in modals.reversed() { if let screen = modal.visibleScreen { return screen } }
        return root.visibleScreen
    }

    /// The visible hierarchy from bottom to top: the root's stack (the selected tab's, for tabs), then
    /// each modal's.
    public var visibleStack: [Screen] { ([root] + modals).flatMap(Window.visiblePath) }

    static func visiblePath(_ container: Presentable) -> [Screen] {
        switch container {
        case let stack as NavigationStack: stack.screens
        case let tabs as TabContainer: tabs.selectedStack.screens
        default: container.screens
        }
    }

    /// Every shown screen, including the ones in unselected tabs.
    public var allScreens: [Screen] { ([root] + modals).flatMap(\.screens) }

    /// Every navigation stack in the window.
    var allStacks: [NavigationStack] {
        ([root] + modals).flatMap { container -> [NavigationStack] in
            switch container {
            case let stack as NavigationStack: [stack]
            case let tabs as TabContainer: tabs.stacks
            default: []
            }
        }
    }

    func contains(_ stack: NavigationStack) -> Bool { allStacks.contains { $0 === stack } }

    /// The whole hierarchy as an indented listing.
    public var hierarchyDescription: String {
        var lines: [String] = []
        func list(_ container: Presentable, _ indent: String, _ label: String) {
            switch container {
            case let stack as NavigationStack:
                lines.append(indent + label + "NavigationStack" + (stack.barHidden ? " (bar hidden)" : ""))
                for screen in stack.screens { lines.append(indent + "  " + screen.info.description) }
            case let tabs as TabContainer:
                lines.append(indent + label + "Tabs")
                for (i, stack) in tabs.stacks.enumerated() {
                    list(stack, indent + "  ", (i == tabs.selectedIndex ? "* " : "  ") + tabs.titles[i] + ": ")
                }
            default:
                lines.append(indent + label + container.containerName)
            }
        }
        list(root, "", "root: ")
        for (i, modal) in modals.enumerated() { list(modal, "", "modal \(i + 1): ") }
        return lines.joined(separator: "\n")
    }

    func record() {
        guard let app, app.needsRecord(self) else { return }
        let (savedRoot, savedModals) = (root, modals)
        app.addUndo { self.root = savedRoot; self.modals = savedModals }
    }
}
