/// An error this package reports to a person: what went wrong, where when that is known, and what to do
/// about it when there is something to do.
///
/// Each layer throws its own: the core ``NavigationError``; scripts `SnapshotError` and `RouteError`;
/// a host reports any of them one way.
///
/// ```swift
/// do { try runtime.restore(json) } catch let error as any CoordinatorError {
///     print([error.place, error.message, error.remedy].compactMap { $0 }.joined(separator: ": "))
/// }
/// ```
public protocol CoordinatorError: Error, Sendable, CustomStringConvertible {
    /// A sentence a person understands (it names the place and the remedy too, when it has them).
    var message: String { get }
    /// Where it went wrong, as the user knows the place (`file:line`, a link, a snapshot's JSON path).
    var place: String? { get }
    /// What a user can do about it.
    var remedy: String? { get }
}

extension CoordinatorError {
    /// No place of its own: the message says where, if anywhere.
    public var place: String? { nil }
    /// No remedy of its own: the message says it, if there is one.
    public var remedy: String? { nil }
    /// The message.
    public var description: String { message }
}
