// Files and folders as coordrun reads and writes them: one of the three files (with Terminal.swift and
// Processes.swift) where coordrun calls the operating system; nothing else in coordrun imports it.
import CEditLine
import CoordinatorTools
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files and folders.
enum Files {
    /// Whether a file or folder exists at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// What is at `path`, for a command that makes a folder there: nothing, an empty folder, or something
    /// else (a file, a link, a folder with any entry, hidden ones included).
    enum Target { case missing, emptyFolder, taken }

    static func target(_ path: String) -> Target {
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT ? .missing : .taken }
        guard (info.st_mode & S_IFMT) == S_IFDIR, let names = entries(of: path), names.isEmpty else { return .taken }
        return .emptyFolder
    }

    /// Whether `path` is a folder (or a link to one).
    static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Makes a new, empty folder of this process's own under the system's temporary folder; its path, or
    /// nil when none could be made.
    static func temporaryFolder(_ prefix: String) -> String? {
        let base = Processes.environment("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/" + prefix + "-XXXXXX").utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in // SAFETY[c-buffer]
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
            return String(cString: base)
        }
    }

    /// Removes a folder and everything in it (a temporary one this process made).
    static func removeTree(_ path: String) { _ = Processes.run("rm -rf -- " + Processes.shellQuoted(path), input: "") }

    /// The names in `folder` (without `.` and `..`), or nil when it cannot be read.
    static func entries(of folder: String) -> [String]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } // SAFETY[c-buffer]
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The test files (`*_test.lua`) among `paths` and under the folders among them, sorted; folders whose
    /// names start with `.` (`.build`, `.git`) are skipped, and links to folders are not followed. A path
    /// that is a file is taken as it is.
    static func testFiles(in paths: [String]) -> [String] { files(in: paths) { $0.hasSuffix("_test.lua") } }

    /// The files among `paths` and, under the folders among them, those whose names `matching` takes,
    /// sorted (hidden folders skipped, links to folders not followed).
    static func files(in paths: [String], matching: (String) -> Bool) -> [String] {
        var found: [String] = []
        var folders: [String] = []
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else { found.append(path); continue } // reported when it cannot load
            if (info.st_mode & S_IFMT) == S_IFDIR { folders.append(path) } else { found.append(path) }
        }
        while let folder = folders.popLast() {
            for name in entries(of: folder) ?? [] {
                if name.hasPrefix(".") { continue }
                let path = folder == "." ? name : folder + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else { continue } // a link to a folder is not followed (no loops)
                if (info.st_mode & S_IFMT) == S_IFDIR { folders.append(path) } else if matching(name) { found.append(path) }
            }
        }
        return found.sorted()
    }

    /// Writes `text` to the file at `path`, replacing it at once (``writeTextFile(_:to:)``, the one writer of
    /// whole files); the error says what failed and why.
    static func write(_ text: String, to path: String) throws(FileWriteError) { try writeTextFile(text, to: path) }

    /// Writes `text` to `path` (``write(_:to:)``): nil, or what failed and why ("cannot write PATH: REASON").
    static func writing(_ text: String, to path: String) -> String? {
        do { try write(text, to: path) } catch { return error.description }
        return nil
    }

    /// The whole file as text, or nil when it cannot be read or holds more than `limit` bytes (the
    /// scripts' own reader).
    static func readFile(_ path: String, limit: Int = 1 << 28) -> String? { readTextFile(path, limit: limit) }

    /// The current folder's path.
    static func currentFolder() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Makes the folder at `path` and the folders above it that are missing; false when it cannot.
    static func makeFolders(_ path: String) -> Bool {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            var info = stat()
            if stat(current, &info) == 0 { continue }
            if mkdir(current, 0o755) != 0 { return false }
        }
        return true
    }

    /// Removes a file (nothing when it is not there).
    static func remove(_ path: String) { unlink(path) }
}
