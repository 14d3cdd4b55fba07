import CoordinatorCore
import CoordinatorLua

extension FlowValue {
    /// The value as a Lua expression that reads back as the same data (``LuaSyntax``): table-constructor
    /// syntax with keys in the record's order (sorted), `{city = {name = "Moscow"}, name = "Ann"}`; a key
    /// that is not a name as `["end"]`. What `flow.describe` gives, the REPL shows, and recorded tests and
    /// exploration's reproductions write.
    package var luaLiteral: String {
        switch self {
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return LuaSyntax.literal(i)
        case .double(let d): return LuaSyntax.literal(d)
        case .string(let s): return LuaSyntax.quoted(s)
        case .list(let items): return "{" + items.map(\.luaLiteral).joined(separator: ", ") + "}"
        case .record(let fields):
            return "{" + fields.map { key, value in LuaSyntax.key(key) + " = " + value.luaLiteral }.joined(separator: ", ") + "}"
        }
    }

    /// The text a person reads, with ``luaLiteral`` for data without a name.
    package var luaDisplayText: String { displayText(otherwise: \.luaLiteral) }
}

extension UserStep {
    /// The step as the driver call that takes it again, in Lua: `tap("open", {id = "42"})`, `back()`,
    /// `dismiss()`, `tab(2)`, `open("shop://cart")`. What recorded tests and exploration's reproductions
    /// write, and what messages name a step by.
    public var luaSource: String {
        switch self {
        case let .tap(output, payload): "tap(" + LuaSyntax.quoted(output) + (payload.map { ", " + $0.luaLiteral } ?? "") + ")"
        case .back: "back()"
        case .dismiss: "dismiss()"
        case .selectTab(let index): "tab(" + LuaSyntax.literal(index &+ 1) + ")" // tab(n) took n - 1, wrapping
        case .open(let url): "open(" + LuaSyntax.quoted(url) + ")"
        }
    }
}
