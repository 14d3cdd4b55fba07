import CoordinatorScript

/// How the REPL shows Lua values: as the stand-alone `lua` does (`tostring`: `0.3`, `3.1415926535898`,
/// `-0.0`, `file (0x...)`, a value's `__tostring`; strings as they are at the top level), except plain
/// tables, which are pretty-printed as Lua that reads back (array items first, then fields by name, keys
/// that are not names as `["end"]`; nested tables indented when they do not fit on one line; a depth limit
/// and cycle marks), and screens, shown by name and id.
package enum ValuePrinter {
    static let maxDepth = 4
    static let maxItems = 40
    static let lineWidth = 72

    /// `value` as the REPL prints it.
    package static func format(_ value: LuaValue) -> String {
        if case .string(let s) = value { return s.string }
        var seen: Set<LuaValue> = []
        return render(value, depth: 0, indent: "", seen: &seen)
    }

    private static func render(_ value: LuaValue, depth: Int, indent: String, seen: inout Set<LuaValue>) -> String {
        switch value {
        case .string(let s): return LuaSyntax.quoted(s.string)
        case .userdata(let u):
            if let screen = u.object(as: Screen.self) { return "Screen \(screen.info)" }
            return value.display
        case .table(let table):
            if let fields = FrozenValue.fields(ofFrozen: table) { // frozen data shows its fields
                return render(.table(fields), depth: depth, indent: indent, seen: &seen)
            }
            if let meta = table.metatable, (try? meta.rawGet("__tostring", as: LuaValue.self)) != .nil
                || (try? meta.rawGet("__name", as: LuaValue.self))?.stringValue != nil {
                return value.display // an object with a type of its own: as `lua` prints it
            }
            if seen.contains(value) { return "<cycle>" }
            if depth >= maxDepth { return "{...}" }
            guard let pairs = try? table.pairs() else { return value.description }
            if pairs.isEmpty { return "{}" }
            seen.insert(value)
            defer { seen.remove(value) }
            // The array part: 1...count with no gap, then the other keys by name.
            var integers: [Int: LuaValue] = [:]
            for pair in pairs { if case .integer(let i) = pair.key, i >= 1 { integers[Int(i)] = pair.value } }
            var count = 0
            while integers[count + 1] != nil { count += 1 }
            let keyed = pairs.filter { pair in
                if case .integer(let i) = pair.key, i >= 1, i <= count { return false }
                return true
            }.sorted { keyText($0.key) < keyText($1.key) }
            let inner = indent + "  "
            var items: [String] = []
            for i in stride(from: 1, through: min(count, maxItems), by: 1) {
                items.append(render(integers[i] ?? .nil, depth: depth + 1, indent: inner, seen: &seen))
            }
            for pair in keyed where items.count < maxItems {
                items.append(keyText(pair.key) + " = " + render(pair.value, depth: depth + 1, indent: inner, seen: &seen))
            }
            if pairs.count > items.count { items.append("... (\(pairs.count - items.count) more)") }
            let flat = "{ " + items.joined(separator: ", ") + " }"
            if flat.count + indent.count <= lineWidth && !flat.contains("\n") { return flat }
            return "{\n" + items.map { inner + $0 }.joined(separator: ",\n") + "\n" + indent + "}"
        default:
            return value.display
        }
    }

    private static func keyText(_ key: LuaValue) -> String {
        if case .string(let s) = key { return LuaSyntax.key(s.string) }
        if case .table = key { return "[" + key.display + "]" }
        return "[" + render(key) + "]"
    }

    private static func render(_ key: LuaValue) -> String {
        var seen: Set<LuaValue> = []
        return render(key, depth: maxDepth, indent: "", seen: &seen)
    }
}
