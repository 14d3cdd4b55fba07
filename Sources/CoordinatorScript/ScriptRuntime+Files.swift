#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CoordinatorLua

/// Files by `URL`, as Swift hosts name them (`Bundle.main.url(forResource:withExtension:)`, a document
/// picker, `URL(filePath:)`). The path forms take a path as `lua` does (relative to the current folder).
extension ScriptRuntime {
    /// Runs the app's main script at a file URL (see ``load(script:arguments:)-(String,_)``).
    public func load(script url: URL, arguments: [LuaValue] = []) throws {
        try load(script: Self.path(of: url), arguments: arguments)
    }

    /// Restores the snapshot in a file (see ``restore(contentsOf:)-(String)``).
    @discardableResult
    public func restore(contentsOf url: URL) throws -> RestoreWarning? {
        try restore(contentsOf: Self.path(of: url))
    }

    /// Restores the snapshot in a file, asking `secrets` for the secrets its steps need (see
    /// ``restore(contentsOf:secrets:)-(String,_)``).
    @discardableResult
    public func restore(contentsOf url: URL, secrets: (SnapshotSecret) throws -> FlowValue) throws -> RestoreWarning? {
        try restore(contentsOf: Self.path(of: url), secrets: secrets)
    }

    /// Writes ``snapshot()`` to a file, replacing it at once (a reader never sees half of it, and a write
    /// that fails leaves the old file as it was).
    public func writeSnapshot(to url: URL) throws {
        try writeTextFile(snapshot(), to: Self.path(of: url))
    }

    package static func path(of url: URL) throws -> String {
        guard url.isFileURL else { throw LuaError(.misuse, "\(url) is not a file URL: scripts and snapshots are files") }
        return url.path(percentEncoded: false)
    }
}
