import Testing
import PropertyBased
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua
import TestSupport

/// `flow.freeze`: read-only data that screens share without copying.
@Suite struct FrozenDataTests {
    @Test func frozenDataReadsLikeItsTableAndRefusesChanges() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.run("""
            local flow = require "coordinator"
            data = flow.freeze { name = "Ann", tags = { "a", "b", "c" }, city = { name = "Kazan", size = 1.5 } }
            names = {}
            for i, tag in ipairs(data.tags) do names[i] = tag end
            keys = {}
            for k in pairs(data) do keys[#keys + 1] = k end
            table.sort(keys)
            """, name: "frozen")
        #expect(try runtime.lua.evaluate("return data.name .. data.city.name .. #data.tags .. data.tags[3]", as: String.self) == "AnnKazan3c")
        #expect(try runtime.lua.evaluate("return table.concat(names, ',') .. ';' .. table.concat(keys, ',')", as: String.self) == "a,b,c;city,name,tags")
        #expect(try runtime.lua.evaluate("return type(data) .. ' ' .. tostring(data.city)", as: String.self) == #"table {name = "Kazan", size = 1.5}"#)
        #expect(try runtime.lua.evaluate("return data.missing == nil and data.tags[4] == nil", as: Bool.self))
        let cases = [
            ("data.name = 'Bob'", "frozen:1: frozen data is read-only (cannot set name); flow.copy(data) makes a table you can change"),
            ("data.city.name = 'Samara'", "frozen:1: frozen data is read-only (cannot set name)"),
            ("table.insert(data.tags, 'd')", "frozen data is read-only (cannot set 4)"),
            ("data.new = {}", "frozen:1: frozen data is read-only (cannot set new)"),
        ]
        for (code, message) in cases {
            let error = try #require(luaError { try runtime.run(code, name: "frozen") })
            #expect(error.message.contains(message), "\(code): \(error.message)")
        }
        #expect(try runtime.lua.evaluate("return data.city.name .. #data.tags .. tostring(rawget(data, 'new'))", as: String.self) == "Kazan3nil")
    }

    /// Nested lists and records are made on first read (LazyStores): a field read before the store is walked
    /// is the table the walk finds, and walking (pairs, #) finds every field, made or not.
    @Test func nestedDataMadeOnFirstReadKeepsItsIdentityThroughAWalk() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        let result = try runtime.lua.evaluate("""
            local flow = require "coordinator"
            local d = flow.freeze { a = { 1 }, b = { 2 }, c = { { 3 } }, s = 1 }
            local a = d.a
            local seen, n = {}, 0
            for k, v in pairs(d) do n = n + 1 seen[k] = v end
            local l = flow.freeze { { x = 1 }, { x = 2 }, { x = 3 } }
            local second = l[2]
            return n == 4 and seen.a == a and seen.b == d.b and d.c[1][1] == 3 and #l == 3 and l[2] == second and l[3].x == 3
            """, as: Bool.self)
        #expect(result)
    }

    @Test func aCopyIsAPlainTableAndFreezingTwiceGivesTheSameTable() throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.run("""
            local flow = require "coordinator"
            data = flow.freeze { list = { 1, 2 }, name = "x" }
            copy = flow.copy(data)
            copy.name = "changed"
            copy.list[3] = 3
            """, name: "frozen")
        #expect(try runtime.lua.evaluate("return getmetatable(copy) == nil and getmetatable(copy.list) == nil", as: Bool.self))
        #expect(try runtime.lua.evaluate("return copy", as: FlowValue.self) == ["list": [1, 2, 3], "name": "changed"])
        #expect(try runtime.lua.evaluate("return data", as: FlowValue.self) == ["list": [1, 2], "name": "x"])
        #expect(try runtime.lua.evaluate("local flow = require 'coordinator' return flow.freeze(data) == data and flow.freeze(data.list) == data.list", as: Bool.self))
        #expect(try runtime.lua.evaluate("local flow = require 'coordinator' return flow.freeze(5) == 5 and flow.freeze('s') == 's'", as: Bool.self))
        let refused = try #require(luaError { try runtime.run("require('coordinator').freeze { user = { onTap = print } }", name: "frozen") })
        #expect(refused.message.contains("a function cannot be data (field user.onTap is one)"), "\(refused.message)")
    }

    /// Frozen data of any shape reads back in Lua as the value it was made from, and Swift gets that value back.
    @Test func randomDataFrozenInSwiftReadsBackUnchanged() async throws {
        let runtime = try ScriptRuntime(driverFunctions: true)
        try runtime.run("""
            function walk(t)
              if type(t) ~= "table" then return t end
              local c = {} for k, v in pairs(t) do c[k] = walk(v) end return c
            end
            """, name: "walk")
        await checkProperty(count: 200, input: DataTests.randomValue) { value in
            try runtime.lua.globals.set("v", runtime.frozen(value))
            #expect(try runtime.lua.evaluate("return walk(v)", as: FlowValue.self) == value)
            #expect(try runtime.lua.evaluate("return v", as: FlowValue.self) == value)
            #expect(try runtime.lua.evaluate("return require('coordinator').copy(v)", as: FlowValue.self) == value)
            #expect(try runtime.lua.evaluate("return #v.items", as: Int.self) == value["items"]?.listValue?.count)
        }
    }

    @Test func screensTakeFrozenDataAndRefuseItOnceRawsetChangedIt() throws {
        let runtime = try ScriptRuntime(state: .main, driverFunctions: true)
        try runtime.run("""
            local flow = require "coordinator"
            flow.screen "Regions" { inputs = { "regions" }, outputs = { pick = { from = "regions" } } }
            cities = flow.freeze { regions = { { name = "A", cities = { { name = "a1" } } }, { name = "B", cities = {} } } }
            local Main = flow.coordinator "Main"
            function Main:start()
              local screen = self:push("Regions", { regions = cities.regions })
              screen.onPick = function(region) picked = region end
            end
            flow.app { main = Main }
            """, name: "flow")
        try runtime.start()
        let screen = try #require(runtime.app.window.visibleScreen)
        #expect(screen["regions"]?.listValue?.map { $0["name"] } == ["A", "B"])
        try runtime.app.tap("pick", payload: screen["regions"]?.listValue?.first)
        // A payload that is frozen data Lua holds is that frozen table: the same identity, read-only.
        #expect(try runtime.lua.evaluate("return picked == cities.regions[1] and picked.cities == cities.regions[1].cities", as: Bool.self))
        let changed = try #require(luaError { try runtime.run("picked.name = 'changed'", name: "flow") })
        #expect(changed.message.contains("flow:1: frozen data is read-only (cannot set name)"), "\(changed.message)")
        #expect(try runtime.lua.evaluate("return require('coordinator').copy(picked).name", as: String.self) == "A")
        // rawset puts a field in the empty table: it no longer reads as its value, and is refused with its path.
        try runtime.run("rawset(cities.regions, 'x', 1)", name: "flow")
        let error = try #require(luaError { try runtime.run("require('coordinator').update { regions = cities.regions }", name: "flow") })
        #expect(error.message.contains("frozen data was changed with rawset (at regions)"), "\(error.message)")
        #expect(runtime.app.window.visibleScreen?["regions"]?.listValue?.count == 2)
    }

    @Test func aFrozenRecordCanBeAScreensInputs() throws {
        let runtime = try ScriptRuntime(state: .main, driverFunctions: true)
        try runtime.run("""
            local flow = require "coordinator"
            flow.screen "Regions" { inputs = { "regions" } }
            local Main = flow.coordinator "Main"
            function Main:start()
              self:push("Regions", flow.freeze { regions = { "A", "B" } })
              local ok, message = pcall(self.push, self, "Regions", flow.freeze { "not", "a", "record" })
              refused = message
            end
            flow.app { main = Main }
            """, name: "flow")
        try runtime.start()
        #expect(runtime.app.window.visibleScreen?["regions"] == ["A", "B"])
        #expect(try runtime.lua.evaluate("return refused", as: String.self).contains("frozen data that is not a record"))
    }

    /// Frozen data crossing back into Lua (an input read, a payload, a result) is the frozen table Lua
    /// holds; once Lua lets the frozen table go, the same data arrives as a new plain table.
    @Test func frozenDataComesBackAsItselfWhileLuaHoldsIt() throws {
        let runtime = try ScriptRuntime(state: .main, driverFunctions: true)
        try runtime.run("""
            local flow = require "coordinator"
            flow.screen "Pick" { inputs = { "items" }, outputs = { pick = { from = "items" } } }
            local Picker = flow.coordinator "Picker"
            function Picker:start(items)
              local screen = self:push("Pick", { items = items })
              screen.onPick = function(item) self:finish(item) end
              shown = screen
            end
            local Main = flow.coordinator "Main"
            function Main:start()
              main = self
              self:push("Pick", { items = { { name = "plain" } } })
            end
            function Main:choose(items)
              local picker = self:run(Picker, items)
              picker.onFinish = function(item) result = item end
            end
            flow.app { main = Main }
            data = flow.freeze { { name = "A" }, { name = "B" } }
            """, name: "flow")
        try runtime.start()
        let app = runtime.app
        try runtime.run("main:choose(data)", name: "flow")
        #expect(try runtime.lua.evaluate("return shown.items == data", as: Bool.self))
        try app.tap("pick", payload: app.window.visibleScreen?["items"]?.listValue?.last)
        #expect(try runtime.lua.evaluate("return result == data[2] and not pcall(function() result.name = 'x' end)", as: Bool.self))

        // Lua lets the data go: the same values come back as plain tables it may change.
        try runtime.run("main:choose(data) data, result, shown = nil, nil, nil", name: "flow")
        runtime.lua.collectGarbage()
        try app.tap("pick", payload: app.window.visibleScreen?["items"]?.listValue?.first)
        #expect(try runtime.lua.evaluate("result.name = result.name .. '!' return getmetatable(result) == nil and result.name", as: String.self) == "A!")
    }

    /// A plain table holding frozen data converts right every time it changes (it is never taken from the
    /// memo of converted tables), and reading it back gives the frozen parts as themselves.
    @Test func plainTablesHoldingFrozenDataConvertAfterEveryChange() throws {
        let runtime = try ScriptRuntime(state: .main, driverFunctions: true)
        try runtime.run("""
            local flow = require "coordinator"
            flow.screen "Profile" { inputs = { "user" } }
            cities = flow.freeze { { name = "Kazan" }, { name = "Samara" }, { name = "Perm" } }
            local Main = flow.coordinator "Main"
            function Main:start()
              user = { name = "Ann", city = cities[1], visits = { 1, 2, 3, 4 } }
              shown = self:push("Profile", { user = user })
            end
            flow.app { main = Main }
            """, name: "flow")
        try runtime.start()
        for (n, name) in [(2, "Samara"), (3, "Perm"), (1, "Kazan")] {
            try runtime.run("user.city = cities[\(n)] require('coordinator').update { user = user }", name: "flow")
            #expect(runtime.app.window.visibleScreen?["user"]?["city"]?["name"] == .string(name))
            #expect(try runtime.lua.evaluate("return shown.user.city == cities[\(n)] and shown.user ~= user", as: Bool.self))
        }
        try runtime.run("user.visits[5] = 5 require('coordinator').update { user = user }", name: "flow")
        #expect(runtime.app.window.visibleScreen?["user"]?["visits"]?.listValue?.count == 5)
    }
}
