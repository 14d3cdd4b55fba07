import CoordinatorCore
import CoordinatorLua

/// A deep link the app declares: a URL pattern with parameters (`shop://catalog/:category/:product`) and
/// the steps that bring the app there, taken as the user would take them (select a tab, tap an output,
/// pick an item of a list), so that every coordinator on the way runs and wires its handlers as it always
/// does. Opening one (``ScriptRuntime/open(_:)``) is one atomic operation: the whole hierarchy, or an error
/// and the app as it was.
///
/// Declared in Lua with `flow.route` (docs/Links.md):
///
/// ```lua
/// flow.route("shop://catalog/:category/:product", {
///   example = { category = "Shoes", product = "42" },
///   { tab = "Catalog" },
///   { on = "Categories", tap = "open", choose = "category" },
///   { on = "Products", tap = "open", choose = "product" },
///   { on = "Product" },
/// })
/// ```
public struct Route {
    /// Where opening the link starts.
    public enum Start: String, Sendable {
        /// The app is rebuilt from its start (its root flow starts again), then the steps run: the result
        /// does not depend on where the app was.
        case start
        /// The steps run from where the app is (a link that continues the current flow).
        case current
    }

    /// The pattern as declared.
    public let pattern: String
    /// Where opening it starts.
    public let from: Start
    /// The parameters' example values, which `coordrun routes` opens the route with.
    public let example: [String: String]
    /// Where it was declared (`shop.lua:40`).
    public let location: String
    /// Its steps, in order.
    let steps: [RouteStep]
    let scheme: String
    /// The pattern's segments after the scheme (the host first): a literal, or a parameter (`:name`).
    let segments: [Segment]

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// The parameters the pattern names, in order.
    public var parameters: [String] {
        segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    init(pattern: String, from: Start, example: [String: String], location: String, steps: [RouteStep]) throws {
        guard let (scheme, parts) = Route.split(pattern) else {
            throw LuaError(.runtime, "route '\(pattern)': a pattern is scheme://host/path (shop://catalog/:category)")
        }
        var seen = Set<String>()
        var segments: [Segment] = []
        for part in parts {
            if part.hasPrefix(":") {
                let name = String(part.dropFirst())
                guard !name.isEmpty, seen.insert(name).inserted else {
                    throw LuaError(.runtime, "route '\(pattern)': parameter ':\(name)' is empty or named twice")
                }
                segments.append(.parameter(name))
            } else {
                segments.append(.literal(part))
            }
        }
        self.pattern = pattern
        self.from = from
        self.example = example
        self.location = location
        self.steps = steps
        self.scheme = scheme
        self.segments = segments
    }

    /// The scheme and the path's segments (percent-decoded) of `url`, or nil when it is not `scheme://...`.
    static func split(_ url: String) -> (scheme: String, segments: [String])? {
        let separator = Array("://".utf8)
        let bytes = Array(url.utf8)
        guard let at = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
        let scheme = String(decoding: bytes[..<at], as: UTF8.self)
        let allowed: (Character) -> Bool = { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }
        guard !scheme.isEmpty, scheme.allSatisfy(allowed) else { return nil }
        var rest = Substring(String(decoding: bytes[(at + separator.count)...], as: UTF8.self))
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        if let query = rest.firstIndex(of: "?") { rest = rest[..<query] }
        let segments = rest.split(separator: "/", omittingEmptySubsequences: true).map { percentDecoded(String($0)) }
        guard !segments.isEmpty else { return nil }
        return (scheme, segments)
    }

    /// The query's parameters (`?size=42&color=red`), percent-decoded.
    static func query(of url: String) -> [String: String] {
        guard let mark = url.firstIndex(of: "?") else { return [:] }
        var rest = url[url.index(after: mark)...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var result: [String: String] = [:]
        for pair in rest.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard let key = parts.first else { continue }
            result[percentDecoded(String(key))] = parts.count > 1 ? percentDecoded(String(parts[1].map { $0 == "+" ? " " : $0 })) : ""
        }
        return result
    }

    /// The parameters of a link split already (``split(_:)``) when its segments match this route's (as many
    /// segments, literals equal), with the query's parameters (`query`) added: a path parameter wins.
    func match(_ parts: [String], query: [String: String]) -> [String: String]? {
        guard parts.count == segments.count else { return nil }
        var parameters = query
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let text): guard text == part else { return nil }
            case .parameter(let name): parameters[name] = part
            }
        }
        return parameters
    }

    /// The pattern with the example values in place of its parameters: the link `coordrun routes` opens.
    public func exampleURL() throws -> String {
        var url = scheme + ":/"
        for segment in segments {
            switch segment {
            case .literal(let text): url += "/" + text
            case .parameter(let name):
                guard let value = example[name] else {
                    throw LuaError(.runtime, "route '\(pattern)' (\(location)) declares no example for :\(name)")
                }
                url += "/" + Route.percentEncoded(value)
            }
        }
        return url
    }

    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte < 0x80, c.isLetter || c.isNumber || "-._~".contains(c) { out.append(c) } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count < 2 ? "0" : "") + hex
            }
        }
        return out
    }
}
