/// The kind of device the app runs on, as UIKit's `userInterfaceIdiom` says: fixed for a launch (a tool's
/// `--idiom`, a snapshot's), part of the app's state, independent of the window's width (``SizeClass``).
public enum Idiom: String, Sendable, CaseIterable {
    /// A phone: a popover shows as a page sheet, as UIKit adapts it.
    case phone
    /// A tablet: a popover shows as a popover.
    case pad
}

extension Presentation {
    /// How it shows on a device of `idiom`: a popover on a phone is a page sheet (UIKit's adaptation), its
    /// dismissability and detents kept; anything else as it is.
    package func adapted(to idiom: Idiom) -> Presentation {
        guard idiom == .phone, style == .popover else { return self }
        var sheet = self
        sheet.style = .pageSheet
        return sheet
    }
}
