import CCoordinatorPostgres

/// A connection to a PostgreSQL server through libpq (``CCoordinatorPostgres``, loaded when the first
/// connection is made): statements with text parameters, rows of text, and notifications.
final class PostgresConnection {
    /// Why a connection or a statement failed, as the server or libpq said it.
    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    private let connection: OpaquePointer

    /// Connects to `url` (`postgres://user@host:port/database`, or a libpq connection string).
    init(_ url: String) throws {
        if let problem = coordpq_load() { throw Failure(message: String(cString: problem)) }
        guard let connection = coordpq_connect(url) else { throw Failure(message: "cannot connect to PostgreSQL: out of memory") }
        guard coordpq_connected(connection) != 0 else {
            let message = Self.trimmed(String(cString: coordpq_error(connection)))
            coordpq_finish(connection)
            throw Failure(message: "cannot connect to PostgreSQL: \(message)")
        }
        self.connection = connection
    }

    deinit { coordpq_finish(connection) }

    /// Runs `sql` with `parameters` as $1, $2, ... (nil: NULL); the rows, each value as text (nil: NULL).
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws -> [[String?]] {
        var packed: [CChar] = []
        for parameter in parameters {
            packed += (parameter ?? "").utf8.map { CChar(bitPattern: $0) }
            packed.append(0)
        }
        if packed.isEmpty { packed.append(0) }
        let nulls = parameters.map { Int32($0 == nil ? 1 : 0) } + [0]
        return try rows(of: coordpq_exec(connection, sql, Int32(parameters.count), packed, nulls))
    }

    /// Runs statements without parameters (the schema).
    func script(_ sql: String) throws { _ = try rows(of: coordpq_exec_script(connection, sql)) }

    /// Waits up to `milliseconds` for a notification on a channel this connection listens to; whether one came.
    func waitForNotification(milliseconds: Int) throws -> Bool {
        let came = coordpq_wait(connection, Int32(clamping: milliseconds))
        guard came >= 0 else { throw Failure(message: "the connection to PostgreSQL failed: " + Self.trimmed(String(cString: coordpq_error(connection)))) }
        return came == 1
    }

    private func rows(of result: OpaquePointer?) throws -> [[String?]] {
        defer { coordpq_clear(result) }
        guard let result, coordpq_succeeded(result) != 0 else {
            let message = result.map { String(cString: coordpq_result_error($0)) } ?? String(cString: coordpq_error(connection))
            throw Failure(message: "PostgreSQL: " + Self.trimmed(message))
        }
        let columns = coordpq_columns(result)
        return (0..<coordpq_rows(result)).map { row in
            (0..<columns).map { column in coordpq_value(result, row, column).map { String(cString: $0) } }
        }
    }

    private static func trimmed(_ message: String) -> String {
        String(message.reversed().drop { $0 == "\n" || $0 == " " }.reversed())
    }
}

/// A `postgres://` URL's password, apart: a password on a command line is read by anyone on the machine
/// (`ps`), one in the environment only by the process and its owner.
enum PostgresURL {
    /// `url` without its password (`postgres://user:secret@host/db` → `postgres://user@host/db`; a
    /// `password=` query item too), and the password (percent-decoded), or nil when it holds none. Other
    /// forms (a libpq connection string) are given back as they are.
    static func splittingPassword(_ url: String) -> (url: String, password: String?) {
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://"), let colon = url.firstIndex(of: ":") else { return (url, nil) }
        let start = url.index(colon, offsetBy: 3)
        let rest = url[start...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var password: String?
        var kept = String(url[..<start])
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            password = decoded(authority[authority.index(after: colon)..<at])
            kept += authority[..<colon] + authority[at...]
        } else {
            kept += authority
        }
        var tail = String(rest[authorityEnd...])
        if let question = tail.firstIndex(of: "?") {
            var items: [Substring] = []
            for item in tail[tail.index(after: question)...].split(separator: "&") {
                if item.hasPrefix("password=") { password = decoded(item.dropFirst("password=".count)) } else { items.append(item) }
            }
            tail = String(tail[..<question]) + (items.isEmpty ? "" : "?" + items.joined(separator: "&"))
        }
        return (kept + tail, password)
    }

    /// `%XX` escapes decoded (a malformed one kept as written).
    private static func decoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
