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
///
/// A pattern may declare query parameters too (`bank://transfer?to=:account`): the link's `to` is the
/// parameter `account`. A route that `requires` a gateway state (`requires = "main"`) opened in another
/// state is held, and continues from where the app is once that state's flow has started (a deferred
/// link: a sign-in first).
public struct Route {
    /// Where opening the link starts.
    public enum Start: Sendable, Equatable {
        /// The app is rebuilt from its start (its root flow starts again), then the steps run: the result
        /// does not depend on where the app was.
        case start
        /// The steps run from where the app is (a link that continues the current flow).
        case current
        /// The steps run from the running coordinator of this class (`from = "Browser"`), as production
        /// apps dispatch a link to the flow that handles it: the deepest such coordinator in the tree (ties
        /// to the one started last) is brought to the front (the modals above it dismissed, its tab
        /// selected), its own stack untouched. An error naming the class when none runs.
        case flow(String)

        /// What `from` says: `"start"`, `"current"`, or a coordinator class's name.
        public init(_ name: String) {
            switch name {
            case "start": self = .start
            case "current": self = .current
            default: self = .flow(name)
            }
        }

        /// As a route declares it.
        public var name: String {
            switch self {
            case .start: "start"
            case .current: "current"
            case .flow(let name): name
            }
        }
    }

    /// The pattern as declared.
    public let pattern: String
    /// Where opening it starts.
    public let from: Start
    /// The parameters' example values, which `coordrun routes` opens the route with.
    public let example: [String: String]
    /// Where it was declared (`shop.lua:40`).
    public let location: String
    /// The gateway state it needs (`requires = "main"`): opened in another, it is held until the app is in
    /// this one and its flow has started, then it continues from where the app is.
    public let requires: AppState?
    /// Its steps, in order (a bare tap of an alert's action made an `on = "Alert"` step by the check).
    var steps: [RouteStep]
    let scheme: String
    /// The pattern's segments after the scheme (the host first): a literal, or a parameter (`:name`).
    let segments: [Segment]
    /// The query values the pattern declares, by the link's key: a parameter (`?to=:account`), or text
    /// with parameters inside (`?url=/settings/:section`) that the link's value must match.
    let queryValues: [(key: String, value: QueryValue)]

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// What a pattern's query declares for one key.
    enum QueryValue {
        /// The whole value is the parameter (`?to=:account`): any value, or none.
        case parameter(String)
        /// Text the link's value must match whole (`?url=/settings/:section`): literal pieces and
        /// parameters, each parameter one or more characters other than `/`; the key must be there.
        case template([Segment])

        /// The pieces: a parameter alone, or the template's.
        var pieces: [Segment] {
            switch self {
            case .parameter(let name): [.parameter(name)]
            case .template(let pieces): pieces
            }
        }
    }

    /// The parameters the pattern names, in order: its path's, then its query's.
    public var parameters: [String] {
        (segments + queryValues.flatMap(\.value.pieces)).compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    init(pattern: String, from: Start, example: [String: String], location: String, steps: [RouteStep], requires: AppState? = nil) throws {
        guard let (scheme, parts) = Route.split(pattern) else {
            throw LuaError(.runtime, "route '\(pattern)': a pattern is scheme://host/path (shop://catalog/:category)")
        }
        var seen = Set<String>()
        func declare(_ name: String) throws {
            guard !name.isEmpty, seen.insert(name).inserted else {
                throw LuaError(.runtime, "route '\(pattern)': parameter ':\(name)' is empty or named twice")
            }
        }
        var segments: [Segment] = []
        for part in parts {
            if part.hasPrefix(":") {
                let name = String(part.dropFirst())
                try declare(name)
                segments.append(.parameter(name))
            } else {
                segments.append(.literal(part))
            }
        }
        var query: [(key: String, value: QueryValue)] = []
        for (key, value) in Route.queryPairs(of: pattern) {
            guard !query.contains(where: { $0.key == key }) else { throw LuaError(.runtime, "route '\(pattern)': the query names '\(key)' twice") }
            let pieces = Route.pieces(of: value)
            for case .parameter(let name) in pieces { try declare(name) }
            if pieces.count == 1, case .parameter(let name) = pieces[0] {
                query.append((key, .parameter(name)))
                continue
            }
            for (a, b) in zip(pieces, pieces.dropFirst()) {
                if case .parameter(let first) = a, case .parameter(let second) = b {
                    throw LuaError(.runtime, "route '\(pattern)': the query's \(key) has :\(first) and :\(second) side by side (text must part them)")
                }
            }
            query.append((key, .template(pieces)))
        }
        self.pattern = pattern
        self.from = from
        self.example = example
        self.location = location
        self.steps = steps
        self.scheme = scheme
        self.segments = segments
        self.queryValues = query
        self.requires = requires
    }

    /// A query value of a pattern as literal text and parameters (`:name`, a run of letters, digits and
    /// `_`; a `:` with no name after it is text).
    static func pieces(of value: String) -> [Segment] {
        var pieces: [Segment] = []
        func add(text: String) {
            guard !text.isEmpty else { return }
            if case .literal(let previous)? = pieces.last { pieces[pieces.count - 1] = .literal(previous + text) } else { pieces.append(.literal(text)) }
        }
        var rest = Substring(value)
        while let colon = rest.firstIndex(of: ":") {
            add(text: String(rest[..<colon]))
            let after = rest[rest.index(after: colon)...]
            let name = after.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            if name.isEmpty { add(text: ":") } else { pieces.append(.parameter(String(name))) }
            rest = after.dropFirst(name.count)
        }
        add(text: String(rest))
        return pieces
    }

    /// The parameters `value` gives when it matches `pieces` whole (each parameter one or more characters
    /// other than `/`; the shortest that lets the rest match), or nil.
    static func match(_ pieces: ArraySlice<Segment>, _ value: Substring) -> [String: String]? {
        guard let piece = pieces.first else { return value.isEmpty ? [:] : nil }
        let rest = pieces.dropFirst()
        switch piece {
        case .literal(let text):
            guard value.hasPrefix(text) else { return nil }
            return match(rest, value.dropFirst(text.count))
        case .parameter(let name):
            let run = value.prefix { $0 != "/" }
            guard !run.isEmpty else { return nil }
            guard case .literal(let next)? = rest.first, let first = next.first else {
                return rest.isEmpty && run.endIndex == value.endIndex ? [name: String(run)] : nil
            }
            // Each place in the run where the text after the parameter may begin, nearest first.
            var end = run.index(after: run.startIndex)
            while true {
                if end == value.endIndex || value[end] == first, var found = match(rest, value[end...]) {
                    found[name] = String(value[..<end])
                    return found
                }
                guard end < run.endIndex else { return nil }
                end = value.index(after: end)
            }
        }
    }

    /// The longest query value matched against text with parameters inside (a parameter may try every
    /// place the text after it could begin: the cost grows with the square of the value's length).
    static let longestMatchedValue = 4096

    /// ``match(_:_:)`` of a whole query value: nil for one longer than ``longestMatchedValue`` bytes.
    static func matchValue(_ pieces: [Segment], _ value: String) -> [String: String]? {
        value.utf8.count <= longestMatchedValue ? match(pieces[...], value[...]) : nil
    }

    /// Whether the link's query (`query`, decoded) has every text value the pattern declares, matching.
    func queryMatches(_ query: [String: String]) -> Bool {
        queryValues.allSatisfy { key, declared in
            guard case .template(let pieces) = declared else { return true }
            return query[key].map { Self.matchValue(pieces, $0) != nil } ?? false
        }
    }

    /// The scheme and the path's segments (percent-decoded) of `url`, or nil when it is not `scheme://...`.
    static func split(_ url: String) -> (scheme: String, segments: [String])? {
        // Over the bytes, in one pass each: a link of megabytes costs milliseconds.
        let bytes = Array(url.utf8)
        let separator = Array("://".utf8)
        guard let at = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
        let scheme = String(decoding: bytes[..<at], as: UTF8.self)
        let ascii: (UInt8) -> Bool = {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
        let allowed: (Character) -> Bool = { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }
        guard at > 0, bytes[..<at].allSatisfy(ascii) || scheme.allSatisfy(allowed) else { return nil }
        var rest = bytes[(at + separator.count)...]
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
        if let query = rest.firstIndex(of: UInt8(ascii: "?")) { rest = rest[..<query] }
        let segments = rest.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map { percentDecoded($0) }
        guard !segments.isEmpty else { return nil }
        return (scheme, segments)
    }

    /// The query's parameters (`?size=42&color=red`), percent-decoded (a key given twice: the last value).
    static func query(of url: String) -> [String: String] {
        Dictionary(queryPairs(of: url), uniquingKeysWith: { _, last in last })
    }

    /// The query's keys and values in order, percent-decoded (`+` a space in values).
    static func queryPairs(of url: String) -> [(String, String)] {
        let bytes = Array(url.utf8)
        guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return [] }
        var rest = bytes[(mark + 1)...]
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
        var result: [(String, String)] = []
        for pair in rest.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1)
            guard let key = parts.first else { continue }
            result.append((percentDecoded(key), parts.count > 1 ? percentDecoded(parts[1].map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }[...]) : ""))
        }
        return result
    }

    /// The parameters of a link split already (``split(_:)``) when its segments match this route's (as many
    /// segments, literals equal), with the query's parameters (`query`) added: a declared one under its
    /// parameter's name, any other under its key (for payload functions); a path parameter wins.
    func match(_ parts: [String], query: [String: String]) -> [String: String]? {
        guard parts.count == segments.count else { return nil }
        var parameters = query
        for (key, declared) in queryValues {
            guard let value = query[key] else { continue }
            switch declared {
            case .parameter(let name): parameters[name] = value
            case .template(let pieces):
                guard let found = Self.matchValue(pieces, value) else { return nil }
                parameters.merge(found) { _, new in new }
            }
        }
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
        for (i, (key, declared)) in queryValues.enumerated() {
            var value = ""
            for piece in declared.pieces {
                switch piece {
                case .literal(let text): value += text
                case .parameter(let name):
                    guard let given = example[name] else {
                        throw LuaError(.runtime, "route '\(pattern)' (\(location)) declares no example for :\(name)")
                    }
                    value += given
                }
            }
            url += (i == 0 ? "?" : "&") + Route.percentEncoded(key) + "=" + Route.percentEncoded(value)
        }
        return url
    }

    static func percentDecoded(_ text: String) -> String { percentDecoded(Array(text.utf8)[...]) }

    /// UTF-8 bytes with each `%XX` decoded, as text.
    static func percentDecoded(_ utf8: ArraySlice<UInt8>) -> String {
        guard utf8.contains(UInt8(ascii: "%")) else { return String(decoding: utf8, as: UTF8.self) }
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var i = utf8.startIndex
        while i < utf8.endIndex {
            if utf8[i] == UInt8(ascii: "%"), utf8.endIndex - i >= 3, let high = hex(utf8[i + 1]), let low = hex(utf8[i + 2]) {
                bytes.append(high << 4 | low)
                i += 3
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A link as a message shows it: control characters escaped (a link cannot write to the terminal), and
    /// one of more than 200 characters cut there with its length said.
    static func shown(_ url: String) -> String {
        let limit = 200
        var scalars = url.unicodeScalars.prefix(limit + 1)
        guard scalars.count > limit else { return url.replacingEscapes() }
        scalars = scalars.prefix(limit)
        return String(String.UnicodeScalarView(scalars)).replacingEscapes() + "… (\(url.utf8.count) bytes)"
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
