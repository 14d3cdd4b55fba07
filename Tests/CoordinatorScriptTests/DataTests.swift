import Testing
import PropertyBased
import TestSupport
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua

/// Lua values crossing into the core as `FlowValue`s (screen inputs, payloads, results).
@Suite struct DataTests {
    /// Records of scalars and lists, and lists of such records, nested two levels deep.
    static let randomValue = {
        let scalar = zip(Gen.int(in: -1_000_000...1_000_000), Gen.letterOrNumber.string(of: 0...6), Gen.bool, Gen.int(in: 0...3))
            .map { i, s, b, kind -> FlowValue in
                switch kind {
                case 0: .int(i)
                case 1: .string(s)
                case 2: .bool(b)
                default: .double(Double(i) + 0.5)
                }
            }
        let list = scalar.array(of: 1...5).map(FlowValue.list)
        let record = zip(Gen.letter.string(of: 1...5), zip(scalar, list).map { a, b in [a, b] })
            .array(of: 0...5).map { pairs in FlowValue.record(FlowRecord(Dictionary(pairs.map { ($0.0, $0.1[$0.0.count % 2]) }) { a, _ in a })) }
        return zip(record, record.array(of: 1...3)).map { top, items in FlowValue.record(["top": top, "items": .list(items)]) }
    }()

    @Test func randomDataRoundTripsThroughLua() async throws {
        let lua = try LuaState()
        await checkProperty(count: 300, input: Self.randomValue) { value in
            try lua.globals.set("v", value)
            #expect(try lua.evaluate("return v", as: FlowValue.self) == value)
            #expect(try FlowValue(lua: lua.globals["v"]) == value)
        }
    }

    /// What the memo relies on: a value's image matches the table it converts from, and no table of other data.
    @Test func anImageMatchesExactlyTheTablesOfItsValue() async throws {
        let lua = try LuaState()
        var image = LuaDataImage()
        var matched = false
        try lua.globals.set("check", lua.function { call in matched = call.stack.matches(image, at: 1) })
        await checkProperty(count: 300, input: zip(Self.randomValue, Self.randomValue)) { value, other in
            try lua.globals.set("v", value)
            try lua.globals.set("w", other)
            image = value.luaImage
            try lua.run("check(v)")
            #expect(matched)
            try lua.run("check(w)")
            #expect(matched == (other == value))
            try lua.run("v.items[1][\"extra!\"] = true check(v)")
            #expect(!matched)
        }
    }

    @Test func refusedValuesAreNamedByTheirPath() throws {
        let lua = try LuaState()
        let cases: [(code: String, message: String)] = [
            ("return { user = { city = { onTap = print } } }", "a function cannot be data (field user.city.onTap is one)"),
            ("return { tags = { 'a', 'b', coroutine.create(print) } }", "a thread cannot be data (field tags[3] is one)"),
            ("return { [print] = 1 }", "a function cannot be a key of data (at top)"),
            ("return { list = { { x = { [true] = print } } } }", "a function cannot be data (field list[1].x.true is one)"),
            ("local t = {} t.self = t return t", "data nested more than 64 levels deep (or cyclic) at self.self.self.self..."),
            ("return print", "a function cannot be data (the value is one)"),
        ]
        for (code, message) in cases {
            let value = try lua.evaluate(code, as: LuaValue.self)
            #expect(throws: LuaError.self, "\(code)") { try FlowValue(lua: value) }
            do { _ = try FlowValue(lua: value, path: "payload") } catch let error as LuaError {
                let expected = message.replacingOccurrences(of: "field ", with: "field payload.")
                    .replacingOccurrences(of: "the value", with: "field payload")
                    .replacingOccurrences(of: "(at top)", with: "(at payload)")
                    .replacingOccurrences(of: "cyclic) at self.self.self.self", with: "cyclic) at payload.self.self.self.self")
                #expect(error.message.hasPrefix(expected), "\(code): \(error.message)")
            }
            do { _ = try lua.globals.set("v", value); _ = try lua.evaluate("return v", as: FlowValue.self) } catch let error as LuaError {
                #expect(error.message.contains(message), "\(code): \(error.message)")
            }
        }
    }

    @Test func sequencesAreListsAndEverythingElseIsARecord() throws {
        let lua = try LuaState()
        #expect(try lua.evaluate("return { 1, 2, 3 }", as: FlowValue.self) == [1, 2, 3])
        #expect(try lua.evaluate("return {}", as: FlowValue.self) == .record([:]))
        #expect(try lua.evaluate("return { 1, nil, 3 }", as: FlowValue.self) == .record(["1": 1, "3": 3]))
        #expect(try lua.evaluate("return { [2] = 'b', [3] = 'c' }", as: FlowValue.self) == .record(["2": "b", "3": "c"]))
        #expect(try lua.evaluate("return { 'a', x = 1 }", as: FlowValue.self) == .record(["1": "a", "x": 1]))
        #expect(try lua.evaluate("return { [1.5] = true }", as: FlowValue.self) == .record(["1.5": true]))
        #expect(try lua.evaluate("return 2^53", as: FlowValue.self) == .double(9007199254740992))
    }

    /// Converting a table again after changing it in place gives what a fresh conversion gives (the
    /// conversion memo compares remembered values with the table; it must never hand back a stale one).
    @Test func tablesChangedInPlaceConvertAfresh() async throws {
        let lua = try LuaState()
        try lua.run("""
            function reset()
              data = { federal = { { name = "Moscow" }, { name = "Saint Petersburg" } },
                       regions = { { name = "A", cities = { { name = "a1" }, { name = "a2" } } },
                                   { name = "B", cities = { { name = "b1" } } } } }
            end
            function copy(t)
              if type(t) ~= "table" then return t end
              local c = {} for k, v in next, t do c[k] = copy(v) end return c
            end
            changes = {
              function() local c = data.regions[1].cities[2] if c then c.name = "a3" end end, -- same length, other bytes
              function() data.regions[2].cities[1].name = 5 end,             -- string to integer
              function() data.regions[1].cities[1].name = 5.0 end,           -- integer-valued float
              function() data.federal[3] = { name = "Sevastopol" } end,      -- a list grows
              function() data.federal[2] = nil end,                          -- a list shrinks
              function() data.federal.x = 1 end,                             -- a list becomes a record
              function() data.regions[1].extra = true end,                   -- a field added
              function() data.regions[1].name = nil end,                     -- a field removed
              function() data.regions[1], data.regions[2] = data.regions[2], data.regions[1] end,
              function() data.regions[2].cities = data.regions[1].cities end,
              function() local c = data.regions[1].cities[1] c.nome, c.name = c.name, nil end, -- renamed key
              function() data.regions[1].cities[1] = {} end,                 -- an empty record
              function() end,                                                -- unchanged
            }
            """, name: "memo")
        await checkProperty(count: 200, input: Gen.int(in: 1...13).array(of: 1...6)) { steps in
            try lua.run("reset()", name: "memo")
            _ = try lua.evaluate("return data", as: FlowValue.self)
            for step in steps {
                try lua.run("changes[\(step)]()", name: "memo")
                let again = try lua.evaluate("return data", as: FlowValue.self)
                let fresh = try lua.evaluate("return copy(data)", as: FlowValue.self)
                #expect(again == fresh, "after change \(step) of \(steps)")
            }
        }
    }
}

@Suite struct DataNotationTests {
    /// Lua sees data in Lua's syntax (frozen data's tostring, the REPL's `:screen`); Swift in Swift's.
    @Test func eachSideSeesItsOwnNotation() throws {
        let runtime = try ScriptRuntime()
        let described = try runtime.run("return tostring(require('coordinator').freeze { name = 'Ann', tags = { 'a', 'b' }, ['two words'] = 1 })")
        #expect(described == [#"{name = "Ann", tags = {"a", "b"}, ["two words"] = 1}"#])
        let value: FlowValue = ["name": "Ann", "tags": ["a", "b"], "two words": 1]
        #expect(value.description == #"["name": "Ann", "tags": ["a", "b"], "two words": 1]"#)
    }
}
