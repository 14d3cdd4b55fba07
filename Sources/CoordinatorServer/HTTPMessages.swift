import FlyingSocks
import Foundation

/// The bytes a connection sent, read as they are needed, with every read bounded: a line is looked for only
/// in the bytes not scanned yet (reading a line costs its length, however it arrives), and no read asks for
/// more than the caller allows.
package struct ByteReader: Sendable {
    /// Another read: at most the count's bytes, at least one; throws when the peer has gone.
    private let read: @Sendable (Int) async throws -> [UInt8]
    private var buffer: [UInt8] = []
    /// Where the unread bytes start in `buffer`.
    private var start = 0
    /// How far the current line has been scanned for its end.
    private var scanned = 0

    /// A reader of `socket`.
    package init(_ socket: AsyncSocket) { read = { try await socket.read(atMost: $0) } }

    /// A reader of what `read` gives (a test's bytes).
    package init(reading read: @escaping @Sendable (Int) async throws -> [UInt8]) { self.read = read }

    /// Another read from the socket, appended; throws when the peer has gone.
    private mutating func fill() async throws {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(..<start)
            scanned -= start
            start = 0
        }
        buffer += try await read(16 << 10)
    }

    /// The next line without its `\r\n` (or `\n`), or nil when it is longer than `limit` bytes.
    package mutating func line(limit: Int) async throws -> [UInt8]? {
        scanned = max(scanned, start)
        while true {
            if let end = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                guard end - start <= limit + 1 else { return nil }
                var line = Array(buffer[start..<end])
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                start = end + 1
                scanned = start
                return line
            }
            scanned = buffer.count
            guard scanned - start <= limit + 1 else { return nil }
            try await fill()
        }
    }

    /// The next `count` bytes.
    package mutating func bytes(_ count: Int) async throws -> [UInt8] {
        while buffer.count - start < count { try await fill() }
        defer { start += count }
        return Array(buffer[start..<(start + count)])
    }
}

/// A request the preview read: method, path and query, headers by lowercased name, body.
package struct Request {
    package var method: String
    package var path: String
    package var query: [String: String]
    package var headers: [String: String]
    package var body: [UInt8]
    /// Whether the connection stays open after the answer.
    package var keepAlive: Bool

    package func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The limits a request must keep, and their status when broken (docs/Preview.md).
    package enum Limit {
        /// The request line and each header line: 8 KiB.
        package static let line = 8 << 10
        /// The request line and headers together: 64 KiB.
        package static let head = 64 << 10
    }

    /// A request that cannot be taken: its status and reason; the connection is closed after the answer.
    package struct Refused: Error {
        package let status: Int
        package let message: String

        package init(status: Int, message: String) { (self.status, self.message) = (status, message) }
    }

    /// Headers a request may carry once only: two of them would let two readers see two requests.
    package static let single: Set<String> = ["host", "origin", "content-length", "content-type", "transfer-encoding", "x-coordrun-token",
                                      "sec-fetch-site", "sec-fetch-mode", "upgrade", "sec-websocket-key"]

    /// The length of the body that follows the head (its `Content-Length`), or nil when it has none; the
    /// body is read only once the request is let in (``readBody(from:limit:)``).
    package var bodyLength: Int?

    /// Reads the next request's head (its line and headers) from `reader`, not its body; nil when the peer
    /// closed the connection between requests.
    package static func head(from reader: inout ByteReader) async throws -> Request? {
        var total = 0
        func nextLine() async throws -> String? {
            guard let line = try await reader.line(limit: Limit.line) else {
                throw Refused(status: 431, message: "a request line or header line is over \(Limit.line >> 10) KiB")
            }
            total += line.count + 2
            guard total <= Limit.head else { throw Refused(status: 431, message: "the request's headers are over \(Limit.head >> 10) KiB") }
            guard let text = String(validating: line, as: UTF8.self) else { throw Refused(status: 400, message: "a request line is not UTF-8") }
            return text
        }
        var first: String
        do {
            repeat { first = try await nextLine() ?? "" } while first.isEmpty && total < Limit.head // blank lines before a request are allowed
        } catch SocketError.disconnected where total == 0 {
            return nil
        }
        let parts = first.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isUppercase && $0.isASCII }), parts[1].hasPrefix("/"),
              parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else {
            throw Refused(status: 400, message: "not an HTTP/1.1 request line")
        }
        var headers: [String: String] = [:]
        while let line = try await nextLine(), !line.isEmpty {
            guard let colon = line.firstIndex(of: ":"), colon > line.startIndex, line.first?.isWhitespace == false else {
                throw Refused(status: 400, message: "a header line is not NAME: VALUE")
            }
            let name = line[..<colon].lowercased()
            guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) }) else {
                throw Refused(status: 400, message: "a header's name is not a token")
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if let earlier = headers[name] {
                guard !single.contains(name) else { throw Refused(status: 400, message: "the header \(name) is given twice") }
                headers[name] = earlier + ", " + value
            } else {
                headers[name] = value
            }
        }
        let target = parts[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [String: String] = [:]
        if target.count == 2 {
            for item in target[1].split(separator: "&") {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let decode = { (text: Substring) in String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text) }
                query[decode(pair[0])] = pair.count == 2 ? decode(pair[1]) : ""
            }
        }
        if headers["transfer-encoding"] != nil {
            throw Refused(status: 411, message: "a body is sent with a Content-Length, not a Transfer-Encoding")
        }
        var bodyLength: Int?
        if let length = headers["content-length"] {
            guard !length.isEmpty, length.count <= 18, length.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(length) else {
                throw Refused(status: 400, message: "the Content-Length is not a number")
            }
            bodyLength = count
        }
        let connection = headers["connection"]?.lowercased() ?? ""
        let keepAlive = parts[2] == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
        return Request(method: String(parts[0]), path: String(target[0]), query: query, headers: headers, body: [], keepAlive: keepAlive,
                       bodyLength: bodyLength)
    }

    /// Reads the body the head announced (``bodyLength``), at most `limit` bytes: a request's body is read
    /// only after the gate let the request in, so a refused one never fills the server's memory.
    package mutating func readBody(from reader: inout ByteReader, limit: Int) async throws {
        guard let count = bodyLength, count > 0 else { return }
        guard count <= limit else {
            throw Refused(status: 413, message: "the body is \(count) bytes, over the \(limit >> 20) MiB a request may hold")
        }
        body = try await reader.bytes(count)
    }
}

/// An answer: status, headers, body.
package struct Response {
    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]

    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        (self.status, self.headers, self.body) = (status, headers, body)
    }

    /// JSON text.
    package static func json(_ status: Int, _ text: String) -> Response {
        Response(status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body: Array(text.utf8))
    }

    /// `{"error": message}`.
    package static func error(_ status: Int, _ message: String) -> Response {
        struct ErrorBody: Encodable { let error: String }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let text = (try? encoder.encode(ErrorBody(error: message))).map { String(decoding: $0, as: UTF8.self) } ?? #"{"error":"?"}"#
        return json(status, text)
    }

    /// The bytes on the wire, saying whether the connection stays open.
    package func bytes(keepAlive: Bool) -> Data {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers { head += name + ": " + value + "\r\n" }
        if status != 101 {
            head += "Content-Length: \(body.count)\r\nConnection: \(keepAlive ? "keep-alive" : "close")\r\n"
        }
        head += "\r\n"
        return Data(head.utf8) + Data(body)
    }

    package static func reason(_ status: Int) -> String {
        switch status {
        case 101: "Switching Protocols"
        case 200: "OK"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 426: "Upgrade Required"
        case 431: "Request Header Fields Too Large"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
