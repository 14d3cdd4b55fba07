import CoordinatorCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an app's storage (`flow.storage` in Lua, ``Application/storage`` in Swift) lives between launches:
/// `UserDefaults` or the keychain on a device, a file or a database on a server. The runtime loads it once
/// (``ScriptRuntime/useStorage(_:)``, before the scripts run) and saves every value after each operation
/// that changed one, before the operation commits: a save that throws fails the operation, and the app is as
/// before it.
///
/// ```swift
/// final class DefaultsStorage: ScriptStorage {
///     func load() throws -> FlowRecord { /* read UserDefaults.standard */ [:] }
///     func save(_ values: FlowRecord) throws { /* write UserDefaults.standard */ }
/// }
/// try runtime.useStorage(DefaultsStorage())
/// ```
public protocol ScriptStorage: AnyObject {
    /// The values saved last (empty when nothing was saved yet).
    func load() throws -> FlowRecord
    /// Saves every value (what is not among them is gone).
    func save(_ values: FlowRecord) throws
}

/// Where a runtime keeps its app's storage between launches: the store a host named, loaded once and
/// handed every value after each operation that changed one (``ScriptRuntime/useStorage(_:)``).
final class StorageKeeper {
    /// The store, once named.
    private(set) var store: (any ScriptStorage)?

    /// Loads `store`'s values into `app`'s storage, then saves there.
    func use(_ store: any ScriptStorage, in app: Application) throws {
        try seed(store.load(), in: app)
        connect(store, to: app)
    }

    /// Gives `app`'s storage `values`, saved nowhere.
    func seed(_ values: FlowRecord, in app: Application) throws {
        try app.atomically {
            app.storage.persist = nil
            app.storage.replaceAll(with: values)
        }
        store = nil
    }

    /// Takes `other`'s store, saving `app`'s values there now.
    func take(from other: StorageKeeper, in app: Application) throws {
        guard let store = other.store else { return }
        try store.save(app.storage.values)
        connect(store, to: app)
    }

    private func connect(_ store: any ScriptStorage, to app: Application) {
        self.store = store
        app.storage.persist = { [weak store] values in try store?.save(values) }
    }
}

/// A storage in a JSON file (`coordrun --storage FILE`): an object of the values by key. A missing file is
/// an empty storage; a save replaces the file at once (a reader never sees half of it, a failed write leaves
/// the old one), a new file readable by its owner alone (it may hold secrets such as a token).
public final class FileStorage: ScriptStorage {
    /// The file.
    public let path: String

    /// A storage in the file at `path` (made at the first save when missing).
    public init(path: String) { self.path = path }

    /// The biggest storage file read (16 MiB): a storage holds flags, a user, a draft, not a database.
    public static let maximumBytes = 16 << 20

    public func load() throws -> FlowRecord {
        guard let bytes = readFileBytes(path, limit: Self.maximumBytes) else {
            if access(path, F_OK) != 0 { return [:] } // nothing saved yet
            throw StorageError("\(path) cannot be read as a storage file (a JSON object of at most \(Self.maximumBytes >> 20) MiB)")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if text.allSatisfy(\.isWhitespace) { return [:] }
        do {
            guard case .record(let values) = try FlowValue(json: text) else {
                throw StorageError("\(path) is not a storage file: it holds JSON, but not an object of values by key")
            }
            return values
        } catch let error as JSONError {
            throw StorageError("\(path) is not a storage file (a JSON object of values by key): \(error.message)")
        }
    }

    public func save(_ values: FlowRecord) throws {
        do { try writeTextFile(FlowValue.record(values).prettyJSON + "\n", to: path, newFileMode: 0o600) } catch {
            throw StorageError("the storage \(error)")
        }
    }
}

/// A storage that could not be loaded or saved: what went wrong, for the user.
public struct StorageError: CoordinatorError {
    /// What went wrong.
    public var message: String
    init(_ message: String) { self.message = message }
}
