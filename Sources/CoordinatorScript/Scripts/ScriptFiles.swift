import CoordinatorLua
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One file the app was loaded from, with the text it had when it was last run (scanned only when a
/// reload needs it).
struct ScriptFile {
    let path: String
    /// The module name for files loaded with `require`; nil for a main script.
    let module: String?
    /// A main script's `...` (its command-line arguments), given again when it runs again.
    var arguments: [LuaValue] = []
    var text: String?

    init(path: String, module: String?) {
        self.path = path
        self.module = module
    }

    mutating func read(overrides: [String: String]) { text = overrides[path] ?? readTextFile(path) }
}

/// The files an app was loaded from: its main scripts, in the order loaded, and the Lua modules they
/// required from files, each with the text it last ran with. What a reload runs again, `--watch` watches,
/// a snapshot's digest names, and time travel stands in for.
struct ScriptFiles {
    private(set) var files: [ScriptFile] = []

    /// Every file's path.
    var paths: [String] { files.map(\.path) }
    /// The main scripts (not required modules).
    var mains: [ScriptFile] { files.filter { $0.module == nil } }
    /// The text each file ran with (path → text).
    var sources: [String: String] {
        var result: [String: String] = [:]
        for file in files { if let text = file.text { result[file.path] = text } }
        return result
    }
    /// The identity of the scripts (``AppSnapshot/digest(of:)``).
    var digest: String { AppSnapshot.digest(of: files.compactMap(\.text)) }
    /// Whether a snapshot's `digest` names these scripts.
    func areNamed(by digest: String) -> Bool { AppSnapshot.digest(digest, names: files.compactMap(\.text)) }

    /// A main script ran with `arguments`; the modules in `loaded` (names) were required by it. Files not
    /// read yet take their text now (`overrides` stand for files); earlier files keep the text they ran.
    mutating func ran(main path: String, arguments: [LuaValue], loaded: Set<String>, in lua: LuaState) throws {
        if let i = files.firstIndex(where: { $0.path == path && $0.module == nil }) {
            files[i].arguments = arguments
        } else {
            var file = ScriptFile(path: path, module: nil)
            file.arguments = arguments
            files.append(file)
        }
        try add(modules: loaded, in: lua)
        for i in files.indices where files[i].text == nil { files[i].read(overrides: lua.sourceOverrides) }
    }

    /// Adds the files of the modules `names` that are not known yet (modules that come from Lua files).
    mutating func add(modules names: Set<String>, in lua: LuaState) throws {
        for name in names.sorted() where !files.contains(where: { $0.module == name }) {
            if let path = try lua.moduleFile(name) { files.append(ScriptFile(path: path, module: name)) }
        }
    }

    /// Every file read again (after a reload ran them).
    mutating func readAll(overrides: [String: String]) {
        for i in files.indices { files[i].read(overrides: overrides) }
    }
}

extension LuaState {
    /// The names of the modules in `package.loaded`.
    func loadedModules() throws -> Set<String> {
        guard let package = try globals.get("package", as: LuaTable?.self),
              let loaded = try package.get("loaded", as: LuaTable?.self) else { return [] }
        return Set(try loaded.stringKeys())
    }

    /// The values of `package.loaded` (modules' tables).
    func loadedValues() throws -> [LuaValue] {
        guard let package = try globals.get("package", as: LuaTable?.self),
              let loaded = try package.get("loaded", as: LuaTable?.self) else { return [] }
        return try loaded.pairs().map(\.value)
    }
}

/// The whole file as text, or nil when it cannot be read or holds more than `limit` bytes (also coordrun's
/// reader of files). The limit bounds what a file that never ends (`/dev/zero`) or a huge one costs
/// before anything is parsed.
package func readTextFile(_ path: String, limit: Int = 1 << 28) -> String? {
    readFileBytes(path, limit: limit).map { String(decoding: $0, as: UTF8.self) }
}

/// The bytes of the file at `path`, or nil when it cannot be read or holds more than `limit` bytes.
package func readFileBytes(_ path: String, limit: Int) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    // Read in place, starting at the file's size (one read for a regular file; a pipe's text grows the buffer).
    var info = stat()
    let size = fstat(fileno(file), &info) == 0 && info.st_size > 0 ? Int(clamping: info.st_size) : 0
    var bytes = [UInt8](repeating: 0, count: size > 0 ? min(size, limit) + 1 : 4096)
    var length = 0
    while true {
        let count = bytes.withUnsafeMutableBufferPointer { buffer in // SAFETY[c-buffer]
            buffer.baseAddress.map { fread($0 + length, 1, buffer.count - length, file) } ?? 0
        }
        length += count
        if length < bytes.count { break }
        if length > limit { return nil }
        bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, limit + 1 - length)))
    }
    if ferror(file) != 0 { return nil }
    bytes.removeSubrange(length...)
    return bytes
}

/// A file that could not be written: its path and the system's reason.
package struct FileWriteError: Error, CustomStringConvertible {
    /// The file.
    package let path: String
    /// Why (the system's words: "No space left on device").
    package let reason: String

    package var description: String { "cannot write \(path): \(reason)" }
}

/// Writes `text` to the file at `path`: the one writer of whole files (reports, graphs, annotations,
/// snapshots, a new project's files). A regular file, or a new one, is replaced at once: the text goes to a
/// file beside it that is then renamed over it, so that a reader never sees half of it and a write that
/// fails leaves the old file as it was (a link is followed to the file it names). Anything else there (a
/// device such as `/dev/stdout`, a pipe) is written in place. A new file gets `newFileMode` (less the
/// umask); a file replaced keeps its mode.
package func writeTextFile(_ text: String, to path: String, newFileMode: mode_t = 0o666) throws(FileWriteError) {
    func failure(_ code: Int32 = errno) -> FileWriteError { FileWriteError(path: path, reason: String(cString: strerror(code))) }
    var target = path
    var info = stat()
    if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK, let resolved = realpath(path, nil) {
        target = String(cString: resolved)
        free(resolved)
    }
    let exists = stat(target, &info) == 0
    if exists, (info.st_mode & S_IFMT) != S_IFREG {
        let file = open(target, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard file >= 0 else { throw failure() }
        let written = writeAll(text, to: file)
        let closed = close(file) == 0 ? 0 : errno
        if written != 0 { throw failure(written) }
        if closed != 0 { throw failure(closed) }
        return
    }
    let name = target.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? target
    let beside = LuaState.directory(of: target) + "/." + name + "." + String(UInt64.random(in: 0...UInt64.max), radix: 36) + ".tmp"
    let file = open(beside, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, exists ? info.st_mode & 0o7777 : newFileMode)
    guard file >= 0 else { throw failure() }
    let written = writeAll(text, to: file)
    let closed = close(file) == 0 ? 0 : errno
    if written == 0, closed == 0, rename(beside, target) == 0 { return }
    let code = written != 0 ? written : closed != 0 ? closed : errno
    unlink(beside)
    throw failure(code)
}

/// Writes all of `text` to the open file `file`: 0, or the errno of the write that failed.
private func writeAll(_ text: String, to file: Int32) -> Int32 {
    var text = text
    return text.withUTF8 { bytes in // SAFETY[c-buffer]
        var offset = 0
        while offset < bytes.count {
            let count = write(file, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += count
        }
        return 0
    }
}
