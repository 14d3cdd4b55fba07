import Testing
import PropertyBased
import CoordinatorScript
import CoordinatorTools
import TestSupport

/// Everything that writes Lua (recorded tests, exploration's reproductions, the REPL) writes it through
/// `LuaSyntax`: whatever the data, the source reads back as the same data.
@Suite struct LuaSourceWritingTests {
    /// Text with what breaks hand-written Lua: keywords, quotes, backslashes, control bytes (with digits
    /// after them), non-ASCII.
    static let awkwardText = Gen.int(in: 0...13).array(of: 0...4).map { parts -> String in
        // One part alone half the time: a key that is exactly a keyword.
        parts.prefix(parts.count % 2 == 1 ? 1 : parts.count).map { part -> String in
            ["end", "nil", "a b", "\"", "\\", "\r", "\0", "\01", "\u{7}9", "\n", "é", "日本", "x_1", "1x"][part]
        }.joined()
    }

    static let scalar = zip(Gen.int(in: 0...5), Gen.int(), awkwardText, Gen.bool).map { kind, i, text, b -> FlowValue in
        switch kind {
        case 0: .int(i)
        case 1: .int(i % 2 == 0 ? .min : .max)
        case 2: .double([0.1, -0.0, 1e300, .leastNonzeroMagnitude, .infinity, -.infinity, 3.0][abs(i % 7)])
        case 3: .string(text)
        default: .bool(b)
        }
    }

    /// Nested records and lists whose keys and strings are awkward.
    static let value = {
        let record = zip(awkwardText, scalar).array(of: 1...4).map { pairs in
            FlowValue.record(FlowRecord(Dictionary(pairs) { a, _ in a }))
        }
        let inner = zip(record, scalar.array(of: 1...3)).map { r, list in FlowValue.list([r, .list(list)]) }
        return zip(awkwardText, inner, record).map { key, a, b in FlowValue.record(FlowRecord([key: a, key + "!": b])) }
    }()

    @Test func dataWrittenAsLuaReadsBackTheSame() async throws {
        let runtime = try ScriptRuntime()
        await checkProperty(count: 400, input: Self.value) { value in
            let source = value.luaLiteral
            let back = try runtime.lua.evaluate("return " + source, as: FlowValue.self)
            #expect(back == value, "\(source)")
        }
    }

    @Test func aStepWritesTheCallThatTakesItAgain() async throws {
        let lua = try LuaState()
        // Driver functions that give back what they were called with.
        try lua.run("""
            function tap(output, payload) return { "tap", output, payload } end
            function back() return { "back" } end
            function dismiss() return { "dismiss" } end
            function tab(n) return { "tab", n } end
            function open(url) return { "open", url } end
            """)
        let step = zip(Gen.int(in: 0...5), Self.awkwardText, Self.value, Gen.int()).map { kind, text, payload, n -> UserStep in
            switch kind {
            case 0: .tap(text, payload: payload)
            case 1: .tap(text, payload: nil)
            case 2: .back
            case 3: .dismiss
            case 4: .selectTab(n)
            default: .open(text)
            }
        }
        await checkProperty(count: 400, input: step) { step in
            let call = try lua.evaluate("return " + step.luaSource, as: [LuaValue].self)
            let back: UserStep? = switch call.first?.stringValue {
            case "tap": .tap(call[1].stringValue ?? "", payload: call.count > 2 ? try FlowValue(lua: call[2]) : nil)
            case "back": .back
            case "dismiss": .dismiss
            case "tab": call[1].intValue.map { .selectTab($0 &- 1) }
            case "open": call[1].stringValue.map(UserStep.open)
            default: nil
            }
            #expect(back == step, "\(step.luaSource)")
        }
    }

    @Test func literalsOfTheEdges() {
        #expect(LuaSyntax.key("end") == "[\"end\"]")
        #expect(LuaSyntax.key("_end1") == "_end1")
        #expect(LuaSyntax.key("é") == "[\"é\"]")
        #expect(LuaSyntax.quoted("a\r\0b\u{0}1") == #""a\r\0b\0001""#)
        #expect(LuaSyntax.literal(Int.min) == "(-9223372036854775807 - 1)")
        #expect(LuaSyntax.literal(3.0) == "3.0")
        #expect(LuaSyntax.literal(-Double.infinity) == "(-1/0)")
        #expect(FlowValue.record(["end": 1, "name": "one"]).luaLiteral == #"{["end"] = 1, name = "one"}"#)
    }

    /// A list item with the key `end` and a string with `\r`, tapped by number in run mode while
    /// recording: the recorded test is valid Lua and passes.
    @Test func aRecordedTapOnAnItemWithAKeywordKeyReplays() throws {
        let folder = try TemporaryDirectory()
        let app = try folder.write("app.lua", #"""
            local flow = require "coordinator"
            flow.screen "Pick" { inputs = { "items" }, outputs = { pick = { from = "items" } },
              render = function(s) return "pick one" end }
            flow.screen "Done" { inputs = { "item" }, render = function(s) return s.item.name end }
            local Main = flow.coordinator "Main"
            function Main:start()
              local s = self:push("Pick", { items = { { ["end"] = 1, name = "one" }, { name = "two\r\0002", ["not a name"] = { 1, 2 } } } })
              s.onPick = function(item) self:push("Done", { item = item }) end
            end
            flow.app { authorization = Main }
            """#)
        let runtime = try ScriptRuntime()
        try runtime.load(script: app)
        try runtime.start()
        var errors: [String] = []
        let repl = try REPL(runtime: runtime, mode: .run, output: REPL.Output(write: { _ in }, error: { errors.append($0) }))
        let recorded = folder.path + "/f_test.lua"
        #expect(repl.handle(":record " + recorded))
        #expect(repl.handle("1"))      // the item { ["end"] = 1, name = "one" }
        #expect(repl.handle("back"))
        #expect(repl.handle("2"))      // the item whose name has \r and \0
        #expect(repl.handle(":record stop"))
        #expect(errors.isEmpty, "\(errors)")
        let text = try #require(readFile(recorded))
        #expect(text.contains(#"tap("pick", {["end"] = 1, name = "one"})"#), "\(text)")
        let results = try FlowTests.run(recorded)
        #expect(results.count == 1 && results.first?.outcome == .passed, "\(results.map(\.outcome))\n\(text)")
    }
}
