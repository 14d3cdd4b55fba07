import CoordinatorServer
import CoordinatorTools

/// Who may reach the preview, checked on every request before anything runs (docs/Security.md, "The web
/// preview"). Any page a developer opens can make their browser send requests to the preview's address;
/// what the preview runs is Lua, so only its own pages may act on it:
///
/// - **Host**: the name the request was sent to must be `localhost`, `127.0.0.1` or `[::1]` (or the address
///   given to `--host`; on a wildcard address, any IP address): a page on another name that resolves here
///   (DNS rebinding) is refused.
/// - **Origin**: a request a browser sends from a page carries the page's origin, which must be this
///   server's own (`http://` and the request's Host); requests with no Origin (curl, scripts) pass.
///   Browsers send `Sec-Fetch-Site` on requests without an Origin too (an image, a no-cors GET): anything
///   but `same-origin` or `none` is refused, except a person following a link to the page itself.
/// - **Content-Type**: an action must be `application/json`, which a page elsewhere cannot send without the
///   browser asking the preview first (CORS), and the preview never answers yes.
/// - **Token**: every request carries the server's random token (the `X-Coordrun-Token` header or the
///   `token` query; the page embeds it, `coordrun serve` prints it in its URL), on loopback too: another
///   account on the same machine (a shared workstation, a CI runner) reaches loopback as well, and must
///   not run Lua as the preview's owner. No cookie carries it: a browser sends a `localhost` cookie to
///   every port.
///
/// Each check reads the request's head alone: a refused request's body is never read.
struct Gate: Sendable {
    /// The Host names the preview answers to, lowercased (IPv6 addresses in brackets).
    let names: Set<String>
    /// Whether any IP address is a Host name it answers to (listening on every address).
    let anyAddress: Bool
    /// The token every request must carry: 128 random bits as hex, made at start.
    let token: String

    /// The gate of a preview listening on `host` (`--host`).
    init(listeningOn host: String) {
        let loopback: Set<String> = ["localhost", "127.0.0.1", "[::1]"]
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[" + host + "]" : host
        names = loopback.union([bracketed.lowercased()])
        anyAddress = host == "0.0.0.0" || host == "::" || host == "[::]"
        token = Self.randomToken()
    }

    /// Whether `host` is a loopback address or name (nobody else on the network reaches it).
    static func isLoopback(_ host: String) -> Bool {
        ["localhost", "::1", "[::1]"].contains(host.lowercased()) || host.hasPrefix("127.") && IPAddress.isIPv4(host)
    }

    /// A refused request: its status and the `{"error": ...}` reason.
    struct Refusal: Equatable {
        let status: Int
        let message: String
    }

    /// Why a request may not reach the preview, or nil when it may. `header` gives a request header's
    /// value by name (any case), `query` a query item's.
    func refusal(method: String, path: String, header: (String) -> String?, query: (String) -> String?) -> Refusal? {
        guard let host = header("Host"), let name = Self.name(ofHost: host), names.contains(name) || anyAddress && IPAddress.isLiteral(name) else {
            return Refusal(status: 403, message: """
                the preview answers only to its own address (localhost, 127.0.0.1 or [::1], or the --host address), \
                not to Host \(header("Host") ?? "(none)")
                """)
        }
        if let origin = header("Origin"), origin.lowercased() != "http://" + host.lowercased() {
            return Refusal(status: 403, message: "the preview takes requests only from its own pages, not from \(origin)")
        }
        if let site = header("Sec-Fetch-Site")?.lowercased(), site != "same-origin", site != "none" {
            let followsLinkToPage = method == "GET" && (path == "/" || path == "/index.html") && header("Sec-Fetch-Mode")?.lowercased() == "navigate"
            if !followsLinkToPage {
                return Refusal(status: 403, message: "the preview takes requests only from its own pages (this one is \(site))")
            }
        }
        let given = header("X-Coordrun-Token") ?? query("token") ?? ""
        guard Self.same(given, token) else {
            return Refusal(status: 403, message: "every request to the preview carries the token coordrun serve printed with its address (?token=...)")
        }
        if method == "POST" && path == "/action" {
            let type = header("Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            guard type == "application/json" else {
                return Refusal(status: 415, message: "an action is sent as application/json, not \(header("Content-Type") ?? "without a Content-Type")")
            }
        }
        return nil
    }

    /// Why `request` may not reach the preview, or nil when it may.
    func refusal(_ request: Request) -> Refusal? {
        refusal(method: request.method, path: request.path, header: request.header, query: { request.query[$0] })
    }

    /// The name of a Host header's value, lowercased, without its port (`[::1]:8080` → `[::1]`), or nil when
    /// it is malformed.
    static func name(ofHost host: String) -> String? {
        let host = host.lowercased()
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber) else { return nil }
            return String(host[...close])
        }
        let parts = host.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let first = parts.first, !first.isEmpty else { return nil }
        if parts.count == 2 && !(parts[1].allSatisfy(\.isNumber) && !parts[1].isEmpty) { return nil }
        return String(first)
    }

    /// Whether two tokens are equal, in a time that does not depend on where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    /// 128 random bits from the system's generator, as hex.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let value = generator.next() as UInt64
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}

/// IP address literals, as a Host header names them.
enum IPAddress {
    /// Whether `text` is a dotted IPv4 address (`192.168.1.5`).
    static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            (1...3).contains(part.count) && part.allSatisfy { $0.isASCII && $0.isNumber } && Int(part).map { $0 <= 255 } == true
        }
    }

    /// Whether `name` is an IP address: IPv4, or IPv6 in brackets.
    static func isLiteral(_ name: String) -> Bool {
        if name.hasPrefix("[") && name.hasSuffix("]") {
            let inner = name.dropFirst().dropLast()
            return !inner.isEmpty && inner.contains(":") && inner.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        }
        return isIPv4(name)
    }
}
