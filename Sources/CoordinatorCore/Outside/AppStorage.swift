/// The app's storage: named values that outlive a launch of the app ("onboarded", a signed-in user, a saved
/// draft), as `UserDefaults` or a keychain keep them on a device. A relaunch keeps them; everything else of
/// the app starts again.
///
/// Every write is undone with a failed operation. Where the values live between processes is the host's
/// choice: ``persist`` is called with all of them at the end of every outermost operation that changed one,
/// before it commits, so a store that cannot take them fails the operation and the app stays as it was.
/// Keys declared secret (``declareSecret(_:)``: a token) are never written into a snapshot.
///
/// ```swift
/// try app.atomically { app.storage["onboarded"] = true }
/// app.storage["onboarded"]   // true
/// ```
public final class AppStorage {
    /// The values, by key.
    public private(set) var values = FlowRecord()
    /// The keys whose values a snapshot never holds.
    public private(set) var secretKeys: Set<String> = []
    /// Called with every value at the end of an outermost operation that changed one (its error fails the
    /// operation): a file, `UserDefaults`, a database.
    public var persist: ((FlowRecord) throws -> Void)?
    /// Whether a value changed since the last ``persist`` (undone with the operation, like the change).
    private var changed = false
    /// A number that grows with every write that changes a value (and goes back with its undo).
    package private(set) var version = 0
    let context: AppContext

    init(context: AppContext) { self.context = context }

    /// The value of `key`, or nil; setting nil removes it. A write that changes nothing records nothing.
    public subscript(key: String) -> FlowValue? {
        get { values[key] }
        set {
            let old = values[key]
            guard old != newValue else { return }
            record { storage in storage.values[key] = old }
            values[key] = newValue
        }
    }

    /// Replaces every value at once (a snapshot's start, a storage loaded from a file). Secret keys
    /// missing from `new` keep their values when `keepingSecrets`.
    public func replaceAll(with new: FlowRecord, keepingSecrets: Bool = false) {
        var next = new
        if keepingSecrets { for key in secretKeys where next[key] == nil { next[key] = values[key] } }
        guard next != values else { return }
        let old = values
        record { storage in storage.values = old }
        values = next
    }

    /// Declares `key` secret: never written into a snapshot. Undone with the operation.
    public func declareSecret(_ key: String) {
        guard !secretKeys.contains(key) else { return }
        let old = secretKeys
        recordUndo { storage in storage.secretKeys = old }
        secretKeys.insert(key)
    }

    /// Forgets the secret declarations (the scripts declare them again as they load).
    package func forgetSecrets() {
        guard !secretKeys.isEmpty else { return }
        let old = secretKeys
        recordUndo { storage in storage.secretKeys = old }
        secretKeys = []
    }

    /// The values without the secret ones: what a snapshot holds.
    public var withoutSecrets: FlowRecord {
        guard !secretKeys.isEmpty else { return values }
        return FlowRecord(values.fields.filter { !secretKeys.contains($0.key) }.map { ($0.key, $0.value) })
    }

    /// The shortest secret value a step is searched for (``hidingSecrets(in:)``): a shorter string (`"ok"`,
    /// a number typed) is too likely to be something else.
    package static let shortestHiddenSecret = 8

    /// `step` with every string equal to a secret key's string value (of at least
    /// ``shortestHiddenSecret`` characters) replaced by `{"$secret": KEY}`, wherever the step carried it: a
    /// token an answer gave, a password typed, that the app keeps as a secret is recorded by name, never as
    /// it is, even where the step declares nothing secret. Nil when there is nothing to look for (no
    /// secret value that long, or a step that carries no value).
    package func hidingSecrets(in step: UserStep) -> UserStep? {
        guard !secretKeys.isEmpty, step.carriesValue else { return nil }
        var names: [String: String] = [:]
        for key in secretKeys.sorted() {
            if case .string(let text)? = values[key], text.count >= Self.shortestHiddenSecret, names[text] == nil { names[text] = key }
        }
        guard !names.isEmpty else { return nil }
        return step.mappingValues { SecretParts.hiding(names, in: $0) }
    }

    /// Each value as a front shows it, by key: in `notation` (Lua's), a secret one as `(secret)`.
    package func shown(_ notation: (FlowValue) -> String) -> [(key: String, text: String)] {
        values.fields.map { ($0.key, secretKeys.contains($0.key) ? "(secret)" : notation($0.value)) }
    }

    /// Notes a change of a value (with the undo that takes it back): the running operation undoes it, and
    /// the next outermost commit persists.
    private func record(_ undo: @escaping (AppStorage) -> Void) {
        let wasChanged = changed, wasVersion = version
        recordUndo { storage in
            undo(storage)
            (storage.changed, storage.version) = (wasChanged, wasVersion)
        }
        changed = true
        version &+= 1
    }

    private func recordUndo(_ undo: @escaping (AppStorage) -> Void) {
        guard context.journal.isOpen else { return }
        context.journal.recordAlways(.custom(born: 0) { [weak self] in if let self { undo(self) } })
    }

    /// Hands the values to ``persist`` when one changed: the end of an outermost operation, before it
    /// commits (an error fails it).
    func persistIfChanged() throws {
        guard changed else { return }
        try persist?(values)
        changed = false
    }
}
