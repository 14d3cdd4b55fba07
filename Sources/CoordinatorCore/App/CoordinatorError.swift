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

/// An error of one layer: a code for the code that reacts to particular cases, and a sentence a person
/// understands. ``NavigationError``, `SnapshotError` and `RouteError` are this shape, each with its own
/// codes; a failed operation that throws one leaves the app exactly as it was.
public struct CodedError<Kind: RawRepresentable & Hashable & Sendable>: CoordinatorError, Equatable where Kind.RawValue == String {
    /// The codes of this kind of error.
    public typealias Code = Kind
    /// What went wrong, for code that reacts to particular cases.
    public var code: Kind
    /// A sentence a person understands (the place and the remedy too, when it has them).
    public var message: String

    /// An error with its code and the sentence that explains it.
    public init(_ code: Kind, _ message: String) {
        self.code = code
        self.message = message
    }
}
