import CoordinatorTools

/// Random sessions: each line is picked for the screen in front (its outputs, with payloads good and bad),
/// or is a number, a Back, or a Lua line from a list of good and hostile ones. Deterministic: a session's
/// lines depend only on its seed.
struct RandomSessions {
    /// SplitMix64: a small generator whose sequence depends only on its seed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let payloads = [
        "", " { name = 'Ann', password = 'secret' }", " { name = 'Ann', password = 'x' }", " 42", " 'text'",
        " { name = print }", " nil", " { 1, 2, 3 }", " { name = 'Kazan' }", " top().regions and top().regions[1]",
        " (function() local t = {1} for i = 1, 30 do t = {t, t} end return t end)()", " error('in payload')",
    ]

    static let luaLines = [
        "back()", "tab(1)", "tab(2)", "tab(math.mininteger)", "=stack()", "=tree()", ":tree", ":screen", ":events 3",
        ":hierarchy", ":nosuch", ":0", ":-9223372036854775808", "0", "-9223372036854775808", "99", "back",
        "error('boom')", "error({ code = 1 })", "error(setmetatable({}, { __tostring = function() return {} end }))",
        "tap('nothing')", "top().nothing = 1", "top():emit('nothing')", "require('coordinator').update { user = 1 }",
        "require('coordinator').gateway.state = 'main'", "require('coordinator').gateway.state = 'authorization'",
        "for i = 1, 3 do back() end", "local t = {} t.x = t tap('login', t)", "load(string.dump(function() end))()",
        "coroutine.wrap(function() back() error('x') end)()", "top():send('ping', { 1 })", "string.rep('x', 100)",
        "pcall(back) error('after')", "setmetatable({}, { __gc = function() back() end }) collectgarbage()",
        "function f(", "end", "x = [[", "]]", "return 1, nil, 'a'", "reload and nil",
        "self = top() self:alert { title = 'T', actions = { 'OK' } }", "tap('OK')",
        "dismiss()", "open('shop://catalog/shoes/42')", "open('shop://buy/shirts/7')", "open('shop://catalog/x/1')",
        "open('nowhere')", "open(nil)", "s = snapshot()", "restore(s)", "restore('{}')", "restore('[[[')",
        "restore(s and s:gsub('Product', 'Cart'))", ":undo", ":redo", ":history", ":goto 1", ":goto 0", ":goto 99",
        "tab('Cart')", "tab('Nope')",
    ]

    /// Lines in each session.
    static let linesPerSession = 36

    /// The next line for the app as it is now.
    static func line(for app: Application, _ rng: inout Generator) -> String {
        let screen = app.window.visibleScreen
        switch Int.random(in: 0..<10, using: &rng) {
        case 0..<4:
            if let screen, let output = screen.outputs.randomElement(using: &rng), let payload = payloads.randomElement(using: &rng) {
                return output.name + payload
            }
            return "back"
        case 4..<6: return String(Int.random(in: 1...6, using: &rng))
        case 6: return "back"
        default: return luaLines.randomElement(using: &rng) ?? "back"
        }
    }

    /// What sessions did: lines handled and lines that failed (none of which changed the app).
    struct Tally {
        var sessions = 0, lines = 0, failures = 0
    }

    /// Runs `count` sessions against `script`, seeded from `seed`; throws at the first failing line that
    /// changed the app.
    static func run(script: String, count: Int, seed: UInt64 = 0) throws -> Tally {
        var tally = Tally()
        for session in 0..<count {
            var rng = Generator(state: (seed &+ UInt64(session)) &* 7919 &+ UInt64(script.utf8.count))
            var run = try SessionRun(script: script, mode: Bool.random(using: &rng) ? .run : .repl, sandbox: false)
            for _ in 0..<linesPerSession { try run.handle(line(for: run.repl.runtime.app, &rng)) }
            run.finish()
            tally.sessions += 1
            tally.lines += run.lines
            tally.failures += run.failures
        }
        return tally
    }
}
