import CoordinatorCore

extension FlowValue {
    /// Lua table-constructor syntax with sorted keys, as scripts write data: `{city = {name = "Moscow"},
    /// name = "Ann"}` (what `flow.describe` gives and the REPL shows).
    package var luaLiteral: String {
        switch self {
        case .list(let items): return "{" + items.map(\.luaLiteral).joined(separator: ", ") + "}"
        case .record(let fields):
            let parts = fields.map { key, value in
                (key.isLuaName ? key : "[\"\(key.replacingEscapes())\"]") + " = " + value.luaLiteral
            }
            return "{" + parts.joined(separator: ", ") + "}"
        default: return description // scalars read the same in Lua and in Swift
        }
    }

    /// The text a person reads, with ``luaLiteral`` for data without a name.
    package var luaDisplayText: String { displayText(otherwise: \.luaLiteral) }
}

extension String {
    /// Whether the string can be written as a bare field name in Lua (`name = ...`).
    var isLuaName: Bool {
        guard let first = unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }
}
