import CoordinatorCore

/// A secret a snapshot's restore needs, which `Application.steps` never records and a snapshot never holds:
/// a part of a payload that its output declares secret (`secret = { "password" }`), a part of an answer's
/// value that its request declares secret, or a value the app keeps among its storage's secrets
/// (`flow.storageSecrets`) that a step carried. ``ScriptRuntime/restore(_:secrets:)`` asks for each one as
/// its step is replayed.
///
/// ```swift
/// try runtime.restore(json) { secret in
///     switch secret.origin {
///     case .output: return .string(keychain.password(for: secret.name))
///     case .answer, .storage: return .string(keychain.token())
///     }
/// }
/// ```
public struct SnapshotSecret: Hashable, Sendable, CustomStringConvertible {
    /// The step being replayed, from 1.
    public let step: Int
    /// The secret's name (`password`): a field's name, the output's or the request's for a whole secret
    /// value, the storage's key for a storage secret. A recorded test reads it from `COORDRUN_SECRET_NAME`.
    public let name: String
    /// Where the step carried it.
    public let origin: Origin

    /// Where a step carried a secret.
    public enum Origin: Hashable, Sendable {
        /// The payload of the output `output` of the screen type `screen` (`Login`, `submit`).
        case output(screen: String, output: String)
        /// The value of an answer to a request of kind `request` with outcome `outcome` (`signIn`, `ok`).
        case answer(request: String, outcome: String)
        /// Any value of the step, equal to what the storage keeps under the secret key ``SnapshotSecret/name``.
        case storage
    }

    /// "the secret 'password' of Login's output submit", "the secret 'token' of request signIn's answer ok",
    /// "the storage's secret 'token'".
    public var description: String {
        switch origin {
        case let .output(screen, output): "the secret '\(name)' of \(screen)'s output \(output)"
        case let .answer(request, outcome): "the secret '\(name)' of request \(request)'s answer \(outcome)"
        case .storage: "the storage's secret '\(name)'"
        }
    }
}

/// What a restore that succeeded has to say about the snapshot: it was taken of other scripts (their code
/// changed since), and its steps still build the same app in these. Nil from a restore of a snapshot of
/// these very scripts (comments, blank lines and indentation aside).
public struct RestoreWarning: Sendable, Equatable, CustomStringConvertible {
    /// The warning, which names both scripts' digests.
    public let message: String
    public var description: String { message }
}
