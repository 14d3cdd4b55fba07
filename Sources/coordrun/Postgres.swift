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
