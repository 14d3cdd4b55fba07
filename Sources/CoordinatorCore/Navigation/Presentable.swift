/// Something that can be shown: a screen, a navigation stack, or a tab container (the sources'
/// `Presentable`). A UIKit router would map these to view controllers.
public protocol Presentable: AnyObject {
    /// The screen the user sees inside it, if any.
    var visibleScreen: Screen? { get }
    /// Every screen inside it.
    var screens: [Screen] { get }
    /// A short name for events and hierarchy listings.
    var containerName: String { get }
    /// How it is presented, when it is a modal (the style it was last presented with).
    var presentation: Presentation { get }
}

extension Presentable {
    /// A container of a host's own is presented as a page sheet the user may swipe away.
    public var presentation: Presentation { Presentation() }
}

/// The containers whose presentation an operation sets (``Window/setPresentation(_:of:)``, undone with it):
/// nothing else writes it.
protocol Restylable: Presentable {
    var presentation: Presentation { get set }
}
