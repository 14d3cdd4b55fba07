import CoordinatorScript

/// A REPL line that typed a secret (a payload an output declares secret): shown and recorded as the steps
/// it took, each secret masked (``shown``) or read from the environment where a recorded test runs
/// (``recorded``), never as typed. A line that failed took no step (the app is as before it): it is shown
/// as a placeholder and records nothing.
struct SecretLine {
    /// What the history and a line editor show in the line's place.
    let shown: String
    /// The steps as a recorded test takes them, or nil.
    let recorded: String?

    /// Watches the app while a line runs: whether it typed a secret, and the steps it took.
    struct Watch {
        let app: Application
        let secrets: Int, steps: Int

        init(app: Application) { (self.app, secrets, steps) = (app, app.input.secretsTaken, app.steps.count) }

        /// The line just run, when it typed a secret.
        func line(succeeded: Bool) -> SecretLine? {
            guard app.input.secretsTaken != secrets else { return nil }
            let taken = succeeded && app.steps.count > steps ? Array(app.steps[steps...]) : []
            guard !taken.isEmpty else { return SecretLine(shown: "(a line that typed a secret)", recorded: nil) }
            return SecretLine(shown: taken.map { $0.luaSource(secret: SecretText.mask) }.joined(separator: "\n  "),
                              recorded: taken.map { $0.luaSource(secret: SecretText.read) }.joined(separator: "\n  "))
        }
    }
}
