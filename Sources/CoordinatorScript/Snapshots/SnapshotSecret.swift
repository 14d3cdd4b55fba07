import CoordinatorCore

/// A secret a snapshot's restore needs: a part of a payload that the screen type declares secret (an
/// output's `secret = { "password" }`), which `Application.steps` never records and a snapshot never
/// holds. ``ScriptRuntime/restore(_:secrets:)`` asks for each one as its step is replayed.
///
/// ```swift
/// try runtime.restore(json) { secret in
///     guard secret.name == "password" else { throw MyError.unknownSecret(secret.name) }
///     return .string(keychain.password(for: secret.screen))
/// }
/// ```
public struct SnapshotSecret: Hashable, Sendable, CustomStringConvertible {
    /// The step being replayed, from 1.
    public let step: Int
    /// The screen type whose output the step taps (`Login`).
    public let screen: String
    /// The output (`submit`).
    public let output: String
    /// The secret field's name (`password`), or the output's name when its whole payload is secret.
    public let name: String

    /// "the secret 'password' of Login's output submit".
    public var description: String { "the secret '\(name)' of \(screen)'s output \(output)" }
}

/// What a restore that succeeded has to say about the snapshot: it was taken of other scripts (their code
/// changed since), and its steps still build the same app in these. Nil from a restore of a snapshot of
/// these very scripts (comments, blank lines and indentation aside).
public struct RestoreWarning: Sendable, Equatable, CustomStringConvertible {
    /// The warning, which names both scripts' digests.
    public let message: String
    public var description: String { message }
}
