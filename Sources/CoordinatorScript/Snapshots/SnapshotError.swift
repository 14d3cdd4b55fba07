import CoordinatorCore

/// A snapshot that cannot be taken, read or restored; the app is exactly as it was.
public typealias SnapshotError = CodedError<SnapshotErrorCode>

/// The codes of ``SnapshotError``: what went wrong, for code that reacts to particular cases.
public enum SnapshotErrorCode: String, Sendable {
    /// The snapshot's file or the key's cannot be read.
    case unreadable
    /// Not a snapshot document: not JSON, not an object, a field missing or of the wrong kind.
    case malformed
    /// A format this runtime does not read.
    case otherFormat
    /// Written by other scripts, and its steps do not rebuild into these.
    case otherScripts
    /// Its steps no longer rebuild the app it recorded (a step fails, or they build another app).
    case notRebuilt
    /// A step needs a secret that was not given.
    case needsSecret
    /// Not signed, where the runtime restores only signed snapshots.
    case unsigned
    /// A signature that does not match: altered, or signed with another key.
    case badSignature
    /// A signing key too short to sign with.
    case badKey
    /// The app took more steps than it keeps, so no snapshot can be taken.
    case tooManySteps
}
