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
    /// Makes the store this app's own before it is loaded and saved (``ScriptRuntime/useStorage(_:)`` calls
    /// it first): a store that two processes writing it at once would lose updates of (a file) takes a lock
    /// here, held for the store's life, and throws when another holds it. A store that is only read (an
    /// exploration reading where an app starts) is never claimed. Does nothing unless the store says.
    func claim() throws
    /// The values saved last (empty when nothing was saved yet).
    func load() throws -> FlowRecord
    /// Saves every value (what is not among them is gone).
    func save(_ values: FlowRecord) throws
}

extension ScriptStorage {
    /// A store that anyone may write at once claims nothing.
    public func claim() throws {}
}

/// Where a runtime keeps its app's storage between launches: the store a host named, loaded once and
/// handed every value after each operation that changed one (``ScriptRuntime/useStorage(_:)``).
final class StorageKeeper {
    /// The store, once named.
    private(set) var store: (any ScriptStorage)?

    /// Claims `store`, loads its values into `app`'s storage, then saves there.
    func use(_ store: any ScriptStorage, in app: Application) throws {
        try store.claim()
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
///
/// An app owns its storage as an iOS app owns its container: a runtime that uses it (``claim()``) holds an
/// advisory lock on `FILE.lock` beside it for the storage's life, and a second one, in this process or
/// another, is refused with the file and the process that holds it. Reading alone (``load()``, what
/// exploration does) takes no lock and is never refused.
public final class FileStorage: ScriptStorage {
    /// The file.
    public let path: String
    /// The lock file's descriptor while this storage holds it (``claim()``), else -1.
    private var lock: Int32 = -1

    /// A storage in the file at `path` (made at the first save when missing).
    public init(path: String) { self.path = path }

    deinit { if lock >= 0 { close(lock) } }

    /// The biggest storage file read, and written (16 MiB): a storage holds flags, a user, a draft, not a
    /// database.
    public static let maximumBytes = 16 << 20

    /// The file whose lock says who owns the storage: `FILE.lock`, beside it.
    public var lockPath: String { path + ".lock" }

    /// Takes the storage's lock (`FILE.lock`, an advisory `flock` held until this storage goes), writing
    /// this process's number and command into it, or throws naming the process that holds it.
    public func claim() throws {
        guard lock < 0 else { return }
        let file = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard file >= 0 else {
            throw StorageError("cannot lock the storage \(path): cannot open \(lockPath): \(String(cString: strerror(errno)))")
        }
        guard flock(file, LOCK_EX | LOCK_NB) == 0 else {
            close(file)
            let written = readFileBytes(lockPath, limit: 4096).map { String(decoding: $0, as: UTF8.self).filter { !$0.isNewline } } ?? ""
            let holder = written.isEmpty ? "another process" : written
            throw StorageError("the storage \(path) is in use by \(holder) (it holds \(lockPath)): an app's storage has one writer at a time, "
                               + "so that no update is lost; end that one, or give this one another storage file")
        }
        let me = "process \(getpid())" + (Self.commandLine().map { " (" + $0 + ")" } ?? "") + "\n"
        _ = ftruncate(file, 0)
        _ = me.withCString { pwrite(file, $0, strlen($0), 0) }
        lock = file
    }

    /// This process's command line, as /proc has it (its arguments joined by spaces), or nil.
    private static func commandLine() -> String? {
        guard let bytes = readFileBytes("/proc/self/cmdline", limit: 4096), !bytes.isEmpty else { return nil }
        let words = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        let text = words.joined(separator: " ")
        return text.count > 200 ? String(text.prefix(199)) + "…" : text
    }

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
        let text = FlowValue.record(values).prettyJSON + "\n"
        // A file the next launch would refuse to read is refused now, when the step that made it can fail
        // and leave the app as before.
        guard text.utf8.count <= Self.maximumBytes else {
            throw StorageError("""
                the storage would be \(text.utf8.count) bytes, over the \(Self.maximumBytes >> 20) MiB a storage file \
                may hold (\(path)): a storage keeps flags, a user, a draft, not a database
                """)
        }
        do { try writeTextFile(text, to: path, newFileMode: 0o600) } catch {
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
