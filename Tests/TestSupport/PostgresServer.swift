import Foundation

/// A throwaway PostgreSQL server on 127.0.0.1, from the machine's PostgreSQL (Debian's postgresql, which
/// `scripts/ensure-deps --test` installs): `initdb` into a temporary folder, started on a free port with
/// trust authentication for the user `coordrun`, stopped and removed when released. As root (PostgreSQL
/// refuses to run as root) it runs as the `postgres` user the package makes.
public final class PostgresServer {
    /// `postgres://coordrun@127.0.0.1:PORT/postgres`.
    public let url: String
    private let folder: String
    private let bin: String
    private let asPostgres: Bool

    public struct Failure: Error, CustomStringConvertible { public let description: String }

    public init() throws {
        let bin = try Self.binaries(), asPostgres = getuid() == 0
        let folder = NSTemporaryDirectory() + "coordrun-pg-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if asPostgres { try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: folder) }
        let port = try Self.freePort()
        func run(_ program: String, _ arguments: [String]) throws {
            try Self.run(program, arguments, bin: bin, folder: folder, asPostgres: asPostgres)
        }
        try run("initdb", ["-D", folder + "/data", "-U", "coordrun", "--auth=trust", "-E", "UTF8", "--no-sync"])
        try run("pg_ctl", ["-D", folder + "/data", "-l", folder + "/log", "-w", "-o",
                           "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off", "start"])
        (self.bin, self.folder, self.asPostgres) = (bin, folder, asPostgres)
        url = "postgres://coordrun@127.0.0.1:\(port)/postgres"
    }

    /// Runs `statement` through psql as the user `coordrun`; its rows, unaligned, one a line.
    @discardableResult
    public func sql(_ statement: String) throws -> String {
        let outcome = try Programs.run(bin + "/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", statement], input: "", within: 60)
        guard outcome.status == 0 else { throw Failure(description: "psql: \(outcome.err)") }
        return outcome.out
    }

    deinit {
        try? Self.run("pg_ctl", ["-D", folder + "/data", "-m", "immediate", "-w", "stop"], bin: bin, folder: folder, asPostgres: asPostgres)
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Runs a PostgreSQL program (as `postgres` when this process is root); throws with its output when it
    /// fails. It gets no descriptor of this process but a file for its output: the server pg_ctl starts
    /// would hold any pipe it inherits open for as long as it runs, and this process would wait on it.
    private static func run(_ program: String, _ arguments: [String], bin: String, folder: String, asPostgres: Bool) throws {
        let command = (asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + [bin + "/" + program] + arguments
        let log = folder + "/\(program).out"
        let closeInherited = #"for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done 2>/dev/null; "#
        let outcome = try Programs.run("/bin/bash", ["-c", closeInherited + "exec " + command.map(shellQuote).joined(separator: " ")
                                                     + " >" + shellQuote(log) + " 2>&1 </dev/null"],
                                       input: "", folder: folder)
        guard outcome.status == 0 else {
            throw Failure(description: "\(program) failed: " + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? ""))
        }
    }

    /// The folder of initdb and pg_ctl: Debian's newest /usr/lib/postgresql/N/bin, else initdb's on PATH.
    private static func binaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        if let newest = versions.last, FileManager.default.isExecutableFile(atPath: "\(root)/\(newest)/bin/initdb") {
            return "\(root)/\(newest)/bin"
        }
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        where FileManager.default.isExecutableFile(atPath: "\(folder)/initdb") {
            return String(folder)
        }
        throw Failure(description: "no PostgreSQL server programs (initdb, pg_ctl): scripts/ensure-deps --test installs Debian's postgresql")
    }

    /// A port on 127.0.0.1 nothing listens on now (the kernel's pick).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "no socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw Failure(description: "cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
