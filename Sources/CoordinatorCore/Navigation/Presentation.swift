/// How a modal is presented, as UIKit's `modalPresentationStyle`, `isModalInPresentation` and a sheet's
/// detents say: kept as data for hosts (a host router gets it), shown in `:hierarchy`, and obeyed by
/// everything that acts as the user: a modal the user cannot swipe away is never swiped away.
public struct Presentation: Sendable, Equatable, CustomStringConvertible {
    /// The presentation style.
    public enum Style: String, Sendable, CaseIterable {
        /// A sheet over most of the screen (UIKit's default).
        case pageSheet
        /// A smaller centred sheet.
        case formSheet
        /// Covers the whole screen: nothing to swipe it away by.
        case fullScreen
        /// A popover from the control that opened it.
        case popover
    }

    /// The style.
    public var style: Style
    /// Whether the user may swipe it away (false: `isModalInPresentation`); a full-screen cover never is.
    public var dismissable: Bool
    /// A sheet's heights (`"medium"`, `"large"`), as declared; empty for the style's own.
    public var detents: [String]

    /// A presentation (a page sheet the user may swipe away, by default).
    public init(style: Style = .pageSheet, dismissable: Bool = true, detents: [String] = []) {
        (self.style, self.dismissable, self.detents) = (style, dismissable, detents)
    }

    /// Whether it is the default presentation: a page sheet the user may swipe away, at the style's heights.
    public var isDefault: Bool { self == Presentation() }

    /// Whether the user can swipe it away.
    public var isSwipeable: Bool { dismissable && style != .fullScreen }

    /// Why the user cannot swipe it away ("" when they can).
    package var unswipeableReason: String {
        style == .fullScreen ? "it covers the screen (presentation = \"fullScreen\")" : dismissable ? "" : "it was presented with dismissable = false"
    }

    /// `fullScreen, not dismissable, detents medium/large` (the style and what differs from a sheet's defaults).
    public var description: String {
        var parts = [style.rawValue]
        if !dismissable && style != .fullScreen { parts.append("not dismissable") }
        if !detents.isEmpty { parts.append("detents " + detents.joined(separator: "/")) }
        return parts.joined(separator: ", ")
    }
}

/// How an alert is shown: a dialog, or an action sheet from the bottom (UIKit's `UIAlertController.Style`).
public enum AlertStyle: String, Sendable, CaseIterable {
    /// A dialog in the middle of the screen.
    case alert
    /// A sheet of choices from the bottom of the screen.
    case actionSheet
}

/// What an alert's action does, as UIKit's `UIAlertAction.Style` says: a host draws a cancel action bold (an
/// action sheet's apart, below the others) and a destructive one in red. An alert has at most one cancel
/// action.
public enum AlertActionRole: String, Sendable, CaseIterable {
    /// An ordinary action.
    case `default`
    /// The action that leaves things as they were.
    case cancel
    /// An action that destroys data or cannot be undone.
    case destructive

    /// The inputs an alert carries its actions' roles in, for hosts: `cancel`, the cancel action's title, and
    /// `destructive`, the destructive ones' titles in the order of `actions`. A role for an action not in
    /// `actions`, or a second cancel action, is refused.
    static func inputs(of roles: [String: AlertActionRole], actions: [String]) throws -> FlowRecord {
        for (action, _) in roles.sorted(by: { $0.key < $1.key }) where !actions.contains(action) {
            throw NavigationError(.badAlertRole, "the alert has no action '\(action)' to give a role (actions: \(actions.joined(separator: ", ")))")
        }
        let cancel = actions.filter { roles[$0] == .cancel }
        guard cancel.count <= 1 else {
            throw NavigationError(.badAlertRole, "an alert has at most one cancel action, not \(cancel.count) (\(cancel.joined(separator: ", ")))")
        }
        let destructive = actions.filter { roles[$0] == .destructive }
        var inputs: FlowRecord = [:]
        inputs["cancel"] = cancel.first.map(FlowValue.string)
        inputs["destructive"] = destructive.isEmpty ? nil : .list(destructive.map(FlowValue.string))
        return inputs
    }
}

extension Screen {
    /// How an alert is shown (``TransitionPerformer/alert(title:message:style:actions:roles:)``); nil for a screen
    /// that is no alert.
    public var alertStyle: AlertStyle? {
        guard dismissesOnOutput else { return nil } // an alert: its outputs are its actions
        return self["style"]?.stringValue.flatMap(AlertStyle.init(rawValue:)) ?? .alert
    }

    /// What an alert's action `title` does, when it is not ordinary; nil for an ordinary action, and for
    /// every output of a screen that is no alert (whatever its inputs are named).
    package func role(ofAlertAction title: String) -> AlertActionRole? {
        guard alertStyle != nil else { return nil }
        if self["cancel"]?.stringValue == title { return .cancel }
        if self["destructive"]?.listValue?.contains(.string(title)) == true { return .destructive }
        return nil
    }
}

extension Presentable {
    /// Refuses to swipe it away when the user cannot (a full-screen cover, `dismissable = false`).
    func checkSwipeable() throws {
        guard !presentation.isSwipeable else { return }
        throw NavigationError(.notDismissable, """
            \(visibleScreen?.name ?? containerName) cannot be swiped away: \(presentation.unswipeableReason); its \
            flow dismisses it
            """)
    }
}

extension Screen: Restylable {}
extension NavigationStack: Restylable {}
extension FlowContainer: Restylable {}
