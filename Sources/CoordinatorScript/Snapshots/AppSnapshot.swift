import CoordinatorCore
import CoordinatorLua

/// A whole app's state as a JSON document (docs/Links.md): what ``ScriptRuntime/snapshot()`` writes and
/// ``ScriptRuntime/restore(_:)`` reads.
///
/// ```json
/// { "format": 1,
///   "app": { "script": "shop.lua", "digest": "fnv1a64:9c3e…" },
///   "gateway": "main",
///   "window": { "root": { "tabs": [ { "title": "Catalog", "stack": [ { "type": "Categories", "inputs": {…} } ] },
///                                   { "title": "Cart", "badge": 1, "stack": […] } ], "selected": 1 },
///               "modals": [ { "stack": [ { "type": "Checkout", "inputs": {…}, "owner": 4 } ] } ] },
///   "coordinators": [ { "class": "Shop", "data": {} }, { "class": "Catalog", "parent": 1, "data": { "category": "shoes" } } ],
///   "steps": [ { "open": "shop://catalog/shoes/42" }, { "tap": "buy" } ] }
/// ```
///
/// Coordinators are listed parents first (`parent` is the position of the parent, from 1), so a tree of any
/// depth is a flat list; a screen's `owner` is its coordinator's position.
public enum AppSnapshot {
    /// The format this runtime writes and reads.
    public static let format = 1

    /// The identity of an app's scripts: FNV-1a (64 bits) over the Lua tokens of each file, in the order
    /// they loaded, so that comments, blank lines and indentation are not part of it (a snapshot survives
    /// them); a token's text is, whitespace inside strings included.
    static func digest(of texts: [String]) -> String {
        var hash = FNV1a()
        for text in texts {
            let bytes = Array(text.utf8)
            for token in LuaScanner.tokens(of: bytes) {
                hash.add(bytes[token.offset..<token.end])
                hash.add(0x20)
            }
            hash.add(0xFF)
        }
        return "lua-fnv1a64:" + hash.hex
    }

    /// The identity snapshots wrote before it went by tokens (`fnv1a64:`: over every byte of the texts):
    /// such a snapshot is of these scripts when their bytes are the same.
    static func byteDigest(of texts: [String]) -> String {
        var hash = FNV1a()
        for text in texts {
            hash.add(text.utf8)
            hash.add(0xFF)
        }
        return "fnv1a64:" + hash.hex
    }

    /// Whether `digest` (a snapshot's) names scripts of the texts `texts`.
    static func digest(_ digest: String, names texts: [String]) -> Bool {
        digest.hasPrefix("fnv1a64:") ? digest == byteDigest(of: texts) : digest == self.digest(of: texts)
    }

    /// FNV-1a, 64 bits.
    private struct FNV1a {
        private var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        mutating func add(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        mutating func add(_ bytes: some Sequence<UInt8>) { for byte in bytes { add(byte) } }
        var hex: String {
            let hex = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
    }

    /// A step as the document writes it.
    package static func value(of step: UserStep) -> FlowValue {
        switch step {
        case let .tap(output, payload):
            var fields: FlowRecord = ["tap": .string(output)]
            if let payload { fields = FlowRecord(fields.fields.map { ($0.key, $0.value) } + [("payload", payload)]) }
            return .record(fields)
        case .back: return ["back": true]
        case .dismiss: return ["dismiss": true]
        case .selectTab(let index): return ["tab": .int(index &+ 1)]
        case .swipeTo(let index): return ["page": .int(index &+ 1)]
        case .sizeClass(let sizeClass): return ["sizeClass": .string(sizeClass.rawValue)]
        case let .event(name, payload):
            return .record(FlowRecord([("event", .string(name))] + (payload.map { [("payload", $0)] } ?? [])))
        case .advance(let seconds): return ["advance": .double(seconds)]
        case let .answer(kind, nth, outcome, value):
            var fields: [(String, FlowValue)] = [("answer", .string(kind)), ("outcome", .string(outcome))]
            if nth != 0 { fields.append(("nth", .int(nth &+ 1))) }
            if let value { fields.append(("value", value)) }
            return .record(FlowRecord(fields))
        case .open(let url): return ["open": .string(url)]
        case .relaunch: return ["relaunch": true]
        case .openWindow: return ["openWindow": true]
        case .selectWindow(let number): return ["window": .int(number)]
        case .closeWindow(let number): return ["closeWindow": .int(number)]
        case let .drawn(step, values):
            guard case .record(let fields) = value(of: step) else { return value(of: step) }
            return .record(FlowRecord(fields.fields.map { ($0.key, $0.value) } + [("random", .list(values.map { .int($0) }))]))
        }
    }

    /// The step a document's entry describes.
    package static func step(from value: FlowValue, number: Int) throws -> UserStep {
        func bad() -> SnapshotError { SnapshotError(.malformed, """
            snapshot: step \(number) is not a step ({ \"tap\": ... }, back, dismiss, tab, page, sizeClass, event, \
            advance, answer, open, relaunch, openWindow, window, closeWindow; random: the values it drew)
            """) }
        guard case .record(let fields) = value else { throw bad() }
        if let drawn = fields["random"] {
            // The values the step drew, each an integer.
            guard let list = drawn.listValue, !list.isEmpty else { throw bad() }
            let values = try list.map { item -> Int in
                guard let value = item.intValue else { throw bad() }
                return value
            }
            let step = try Self.step(from: .record(FlowRecord(fields.fields.filter { $0.key != "random" }.map { ($0.key, $0.value) })), number: number)
            return .drawn(step, values: values)
        }
        if let output = fields["tap"]?.stringValue { return .tap(output, payload: fields["payload"]) }
        if fields["back"] == true { return .back }
        if fields["dismiss"] == true { return .dismiss }
        if let tab = fields["tab"]?.intValue, tab >= 1 { return .selectTab(tab - 1) }
        if let page = fields["page"]?.intValue, page >= 1 { return .swipeTo(page - 1) }
        if let width = fields["sizeClass"]?.stringValue, let sizeClass = SizeClass(rawValue: width) { return .sizeClass(sizeClass) }
        if let name = fields["event"]?.stringValue { return .event(name, payload: fields["payload"]) }
        if let seconds = fields["advance"]?.doubleValue { return .advance(seconds) }
        if let kind = fields["answer"]?.stringValue, let outcome = fields["outcome"]?.stringValue {
            let nth = fields["nth"]?.intValue ?? 1
            guard nth >= 1 else { throw bad() }
            return .answer(kind, nth: nth - 1, outcome: outcome, value: fields["value"])
        }
        if let url = fields["open"]?.stringValue { return .open(url) }
        if fields["openWindow"] == true { return .openWindow }
        if let number = fields["window"]?.intValue, number >= 1 { return .selectWindow(number) }
        if let number = fields["closeWindow"]?.intValue, number >= 1 { return .closeWindow(number) }
        if fields["relaunch"] == true { return .relaunch }
        throw bad()
    }

    /// The names of the secrets a snapshot's steps stand in for (``SnapshotSecret``), each once, in the
    /// order of the steps: what a front asks its user before it restores (nothing for a document it
    /// cannot read; the restore says what is wrong).
    package static func secretNames(in json: String) -> [String] {
        guard let steps = try? FlowValue(json: json)["steps"]?.listValue else { return [] }
        var names: [String] = []
        for step in steps {
            for value in [step["payload"], step["value"]].compactMap(\.self) {
                for name in SecretParts.markerNames(in: value) where !names.contains(name) { names.append(name) }
            }
        }
        return names
    }

    /// The first place where two documents differ, as a path (`window.root.tabs[2].stack[1].inputs.items`)
    /// with both values, or nil when they are equal.
    static func difference(_ a: FlowValue, _ b: FlowValue, at path: String = "") -> String? {
        switch (a, b) {
        case let (.record(x), .record(y)):
            for field in x.fields {
                guard let other = y[field.key] else { return "\(join(path, field.key)): the snapshot has it, the app does not" }
                if let found = difference(field.value, other, at: join(path, field.key)) { return found }
            }
            for field in y.fields where x[field.key] == nil { return "\(join(path, field.key)): the app has it, the snapshot does not" }
            return nil
        case let (.list(x), .list(y)):
            for (i, (p, q)) in zip(x, y).enumerated() {
                if let found = difference(p, q, at: path + "[\(i + 1)]") { return found }
            }
            return x.count == y.count ? nil : "\(path): the snapshot has \(x.count) entries, the app \(y.count)"
        default:
            return a == b ? nil : "\(path): the snapshot has \(a), the app \(b)"
        }
    }

    private static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }
}
