import Foundation
import Testing
import CoordinatorCore
import CoordinatorScript

/// Random sessions against the app and every example, in process: random actions, taps of outputs the
/// screen has and has not, payloads good and bad, Backs, and Lua lines good and hostile. After every line:
/// no crash, and a line that failed changed nothing (window, inputs, tree, gateway).
///
/// `./scripts/test` runs a bounded number (the default below); `COORD_FUZZ_SESSIONS=10000 swift test
/// --filter SessionFuzzTests` runs more.
@Suite struct SessionFuzzTests {
    static let scripts = ["scripts/app.lua"] + ["tabs", "notes", "ab-picker", "multi-select", "catalog", "launch"].map { "examples/\($0).lua" }

    static var sessions: Int { Int(ProcessInfo.processInfo.environment["COORD_FUZZ_SESSIONS"] ?? "") ?? 60 }

    /// Deterministic: a session's lines depend only on its seed.
    struct SplitMix64: RandomNumberGenerator {
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
    ]

    /// What a failing line must leave as it was.
    static func state(_ app: Application) -> String {
        var text = app.window.hierarchyDescription + "|" + app.gateway.state.rawValue
        for screen in app.window.allScreens { text += "|\(screen.info)\(screen.inputs)" }
        var pending = app.root.map { [$0] } ?? []
        while let coordinator = pending.popLast() {
            text += "|\(coordinator.info):\(coordinator.status.rawValue)"
            pending += coordinator.children
        }
        return text
    }

    static func line(for app: Application, _ rng: inout SplitMix64) -> String {
        let screen = app.window.visibleScreen
        switch Int.random(in: 0..<10, using: &rng) {
        case 0..<4:
            if let screen, !screen.outputs.isEmpty {
                return screen.outputs.randomElement(using: &rng)!.name + payloads.randomElement(using: &rng)!
            }
            return "back"
        case 4..<6: return String(Int.random(in: 1...6, using: &rng))
        case 6: return "back"
        default: return luaLines.randomElement(using: &rng)!
        }
    }

    @Test(arguments: scripts)
    func randomSessionsNeverCrashAndFailingLinesChangeNothing(_ script: String) throws {
        setenv("NOTES_FILE", NSTemporaryDirectory() + "fuzz-notes-\(UUID().uuidString).txt", 1) // notes.lua's file
        let sessions = max(1, Self.sessions / Self.scripts.count)
        var lines = 0, failures = 0
        for session in 0..<sessions {
            var rng = SplitMix64(state: UInt64(session) &* 7919 &+ UInt64(script.count))
            let runtime = try ScriptRuntime()
            try runtime.load(script: repositoryRoot + "/" + script)
            try runtime.start()
            runtime.lua.onWarning { _ in } // hostile lines raise errors in finalizers: Lua warns, quietly here
            let repl = try REPL(runtime: runtime, mode: Bool.random(using: &rng) ? .run : .repl) { _ in }
            for _ in 0..<36 {
                let text = Self.line(for: runtime.app, &rng)
                let before = Self.state(runtime.app)
                let wasContinuing = repl.isContinuing
                lines += 1
                if !repl.handle(text) {
                    failures += 1
                    #expect(Self.state(runtime.app) == before, "\(script) session \(session): `\(text)` failed and changed the app")
                }
                if wasContinuing || repl.isContinuing { continue }
            }
            _ = repl.endOfInput()
        }
        #expect(lines == sessions * 36)
        #expect(failures > 0) // the sessions do reach failing lines
    }
}
