/// Watches files by modification time (checked when the input is idle), for `--watch`.
final class FileWatcher {
    var paths: [String] { didSet { stamps = Self.stamps(paths) } }
    private var stamps: [String: String]

    init(paths: [String]) {
        self.paths = paths
        self.stamps = Self.stamps(paths)
    }

    /// True once for each round of saves.
    func changed() -> Bool {
        let now = Self.stamps(paths)
        guard now != stamps else { return false }
        stamps = now
        return true
    }

    static func stamps(_ paths: [String]) -> [String: String] {
        var result: [String: String] = [:]
        for path in paths { result[path] = Platform.modificationStamp(path) }
        return result
    }
}
