#if canImport(Glibc)
import Glibc
#endif
import CoordinatorScript

/// Where a REPL session's own commands may write files (`:record FILE`, ``REPL/fileWrites``). A session's
/// lines can come from people other than the one at the keyboard (a web page through `coordrun serve`, a
/// script replayed by time travel), so a command never writes over a file the session did not write
/// itself, and where the lines are less trusted it writes only test files in the project's folder, or
/// nothing.
public enum FileWrites: Sendable, Equatable {
    /// Any path, but never over an existing file the session did not write (the REPL at a terminal).
    case anywhere
    /// Only test files (`NAME_test.lua`) inside `folder` and its subfolders (the project: the main
    /// script's folder), a relative path taken from `folder`; never over one the session did not write
    /// (the web preview).
    case testsInside(folder: String)
    /// No file at all (a sandboxed runtime: its scripts are not trusted with the disk).
    case nothing

    /// A file as the system knows it, whatever path names it.
    struct FileID: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    /// Opens `path` for writing from its start, as this policy lets it, and notes it among the files
    /// `written`; gives the descriptor and the path as written to. Throws a message saying why not.
    func open(_ path: String, written: inout Set<FileID>) throws -> (Int32, String) {
        func refuse(_ message: String) -> Recorder.RecordingError { Recorder.RecordingError(message: message) }
        var path = path
        switch self {
        case .nothing:
            throw refuse(":record writes no file in the sandbox: the session's scripts are not trusted with the disk")
        case .testsInside(let folder):
            if !path.hasPrefix("/") { path = folder + "/" + path }
        case .anywhere:
            break
        }
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        guard !name.isEmpty, name != ".", name != ".." else { throw refuse("cannot write \(path): it names a folder, not a file") }
        guard let parent = Self.realPath(LuaState.directory(of: path)) else {
            throw refuse("cannot write \(path): its folder \(LuaState.directory(of: path)) does not exist")
        }
        if case .testsInside(let folder) = self {
            guard name.hasSuffix("_test.lua"), name.count > "_test.lua".count else {
                throw refuse(":record writes only test files here (NAME_test.lua), not \(name)")
            }
            guard let project = Self.realPath(folder), parent == project || parent.hasPrefix(project == "/" ? "/" : project + "/") else {
                throw refuse(":record writes only inside the project's folder \(folder), not \(path)")
            }
        }
        let directory = Glibc.open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw refuse("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(directory) }
        // A new file is made afresh (O_EXCL: never through a link); an existing one is opened without
        // following a link and written over only when the session wrote it.
        var file = openat(directory, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        var existed = false
        if file < 0, errno == EEXIST {
            existed = true
            file = openat(directory, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        }
        guard file >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link, which :record does not follow" : String(cString: strerror(errno))
            throw refuse("cannot write \(path): \(reason)")
        }
        var status = stat()
        guard fstat(file, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(file)
            throw refuse("cannot write \(path): it is not a regular file")
        }
        let id = FileID(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        if existed {
            guard written.contains(id) else {
                close(file)
                throw refuse("\(path) exists and was not recorded by the running session: :record does not write over it (remove it, or choose another name)")
            }
            guard ftruncate(file, 0) == 0 else {
                let reason = String(cString: strerror(errno))
                close(file)
                throw refuse("cannot write \(path): \(reason)")
            }
        }
        written.insert(id)
        return (file, path)
    }

    /// The absolute path of `path` with every link resolved, or nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
