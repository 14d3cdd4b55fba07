import CoordinatorCore

/// A service coordinator written in Swift: it shows no screen, and answers the `profileSaved` signal that
/// the Lua flow sends when the user saves the profile.
final class ProfileStore: Coordinator {
    /// The names saved, oldest first.
    private(set) var saved: [String] = []

    override func start(_ args: FlowValue?) throws {
        onSignal("profileSaved") { [unowned self] signal in
            let name = signal.payload?["name"]?.stringValue ?? "?"
            saved.append(name)
            signal.reply("saved #\(saved.count)")
        }
    }
}
