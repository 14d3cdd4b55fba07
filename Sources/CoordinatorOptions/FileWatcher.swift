#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Watches files by modification time and size (looked at when the caller is idle), for `--watch`: the REPL's
/// and run mode's, `coordrun test`'s and the web preview's.
///
/// A file is compared with what it was when it started being watched, so a save made while the caller was
/// busy (running the tests, reloading) is seen, never lost; a save is taken once two looks find it the same,
/// so one caught half written is not taken half written.
package final class FileWatcher {
    /// The files watched. Setting it keeps each file still watched compared with what it was, and starts
    /// the new ones from what they are now.
    package var paths: [String] {
        didSet {
            let kept = stamps
            stamps = [:]
            for path in paths { stamps[path] = kept[path] ?? Self.modificationStamp(path) }
        }
    }
    private var stamps: [String: String]

    package init(paths: [String]) {
        self.paths = paths
        self.stamps = Self.stamps(paths)
    }

    /// What the files were at the last look, to tell a finished save from one still being written.
    private var lastLook: [String: String]?

    /// True once for each round of saves, once it is finished: files that changed since the last round and
    /// stayed the same between two looks (a save caught half written is not read half written).
    package func changed() -> Bool {
        let now = Self.stamps(paths)
        defer { lastLook = now }
        guard now != stamps, now == lastLook else { return false }
        stamps = now
        return true
    }

    static func stamps(_ paths: [String]) -> [String: String] {
        var result: [String: String] = [:]
        for path in paths { result[path] = modificationStamp(path) }
        return result
    }

    /// A string that changes whenever the file is written: its modification time and size; nil when the
    /// file cannot be read.
    static func modificationStamp(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        return "\(time.tv_sec).\(time.tv_nsec):\(info.st_size)"
    }
}
