import CoordinatorCore
import CoordinatorLua

extension FlowValue {
    /// The value as a Lua expression that reads back as the same data (``LuaSyntax``): table-constructor
    /// syntax with keys in the record's order (sorted), `{city = {name = "Moscow"}, name = "Ann"}`; a key
    /// that is not a name as `["end"]`. What `flow.describe` gives, the REPL shows, and recorded tests and
    /// exploration's reproductions write.
    package var luaLiteral: String { luaLiteral(secret: nil) }

    /// ``luaLiteral``, with each place a recorded payload holds a secret (`{"$secret": name}`, see
    /// `SecretParts`) written as `secret(name)` gives it: a mask to show, or an expression that
    /// reads the secret where a test runs.
    package func luaLiteral(secret: ((String) -> String)?) -> String {
        switch self {
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return LuaSyntax.literal(i)
        case .double(let d): return LuaSyntax.literal(d)
        case .string(let s): return LuaSyntax.quoted(s)
        case .list(let items): return "{" + items.map { $0.luaLiteral(secret: secret) }.joined(separator: ", ") + "}"
        case .record(let fields):
            if let secret, let name = SecretParts.name(ofMarker: self) { return secret(name) }
            return "{" + fields.map { key, value in LuaSyntax.key(key) + " = " + value.luaLiteral(secret: secret) }.joined(separator: ", ") + "}"
        }
    }

    /// The text a person reads, with ``luaLiteral`` for data without a name.
    package var luaDisplayText: String { displayText(otherwise: \.luaLiteral) }
}

extension UserStep {
    /// The step as the driver call that takes it again, in Lua: `tap("open", {id = "42"})`, `back()`,
    /// `dismiss()`, `tab(2)`, `swipeTo(2)`, `open("shop://cart")`, `event("background")`. What recorded tests and exploration's reproductions
    /// write, and what messages name a step by.
    public var luaSource: String { luaSource(secret: nil) }

    /// ``luaSource`` with the secrets of a recorded payload written as `secret(name)` gives them
    /// (``FlowValue/luaLiteral(secret:)``).
    package func luaSource(secret: ((String) -> String)?) -> String {
        switch self {
        case let .tap(output, payload): "tap(" + LuaSyntax.quoted(output) + (payload.map { ", " + $0.luaLiteral(secret: secret) } ?? "") + ")"
        case .back: "back()"
        case .dismiss: "dismiss()"
        case .selectTab(let index): "tab(" + LuaSyntax.literal(index &+ 1) + ")" // tab(n) took n - 1, wrapping
        case .swipeTo(let index): "swipeTo(" + LuaSyntax.literal(index &+ 1) + ")"
        case .sizeClass(let sizeClass): "sizeClass(" + LuaSyntax.quoted(sizeClass.rawValue) + ")"
        case let .event(name, payload): "event(" + LuaSyntax.quoted(name) + (payload.map { ", " + $0.luaLiteral(secret: secret) } ?? "") + ")"
        case .advance(let seconds): "advance(" + FlowValue.double(seconds).luaLiteral + ")"
        case let .answer(kind, nth, outcome, value):
            "answer(" + (nth == 0 ? LuaSyntax.quoted(kind) : "pending(" + LuaSyntax.quoted(kind) + ")[" + LuaSyntax.literal(nth &+ 1) + "]")
                + ", " + LuaSyntax.quoted(outcome) + (value.map { ", " + $0.luaLiteral(secret: secret) } ?? "") + ")"
        case .open(let url): "open(" + LuaSyntax.quoted(url) + ")"
        case .relaunch: "relaunch()"
        case .openWindow: "openWindow()"
        case .selectWindow(let number): "window(" + LuaSyntax.literal(number) + ")"
        case .closeWindow(let number): "closeWindow(" + LuaSyntax.literal(number) + ")"
        case let .drawn(step, values): values.map { "random(" + LuaSyntax.literal($0) + ") " }.joined() + step.luaSource(secret: secret)
        }
    }
}
