import Testing
import TestSupport
import CCoordinatorLua
import CoordinatorLua

/// Pattern matching whose steps count toward the limits: the same results and errors as Lua's own string
/// library, and a match that backtracks is stopped by each limit.
@Suite struct PatternTests {
    let lua: LuaState
    init() throws { lua = try makeState() }

    /// Lua's own `string` library, opened afresh as `lstrlib` (the state's `string` has the counted matcher).
    private func openLuaStringLibrary() throws {
        try lua.withUnsafeState { L in
            luaL_requiref(L, "lstrlib", luaopen_string, 0)
            lua_setglobal(L, "lstrlib")
        }
    }

    @Test func matchesAsLuasOwnStringLibraryOnRandomPatterns() throws {
        try openLuaStringLibrary()
        let differences = try lua.evaluate(
            """
            math.randomseed(20261126)
            local items = { "a", "b", ".", "%a", "%d", "%s", "%w", "%p", "%x", "%A", "[ab]", "[^a]", "[%a-]",
              "[a-c]", "(", ")", "()", "*", "+", "-", "?", "^", "$", "%b()", "%f[%a]", "%f[%A]", "%1", "%2",
              "%", "[", "]", "%z", "%%", "%.", "x", "1", " ", "[]", "[^]", "%g", "%c", "%u", "%l", "\\0" }
            local letters = { "a", "b", "c", "(", ")", "1", "2", " ", "x", "-", ".", "%", "A", "\\0", "\\n" }
            local function random(from, count)
              local parts = {}
              for i = 1, math.random(0, count) do parts[i] = from[math.random(#from)] end
              return table.concat(parts)
            end
            local function pack(ok, ...) return { ok = ok, n = select("#", ...), ... } end
            local function same(a, b)
              if a.ok ~= b.ok or a.n ~= b.n then return false end
              for i = 1, a.n do if a[i] ~= b[i] then return false end end
              return true
            end
            local function collect(gmatch, s, p, init)
              local all = {}
              for a, b in gmatch(s, p, init) do all[#all + 1] = tostring(a) .. "|" .. tostring(b) end
              return table.concat(all, ",")
            end
            local replacements = { "<%0>", "%1%1", "%%", "x", 7, { a = "A", b = false }, function(c) return c == "a" and "!" or nil end, "%2", "%" }
            local differences = {}
            for case = 1, 30000 do
              local p, s = random(items, 6), random(letters, 14)
              local init = math.random(-16, 16)
              local r = replacements[math.random(#replacements)]
              local max = math.random(0, 3) == 0 and math.random(0, 3) or nil
              local calls = {
                { "find", string.find, lstrlib.find, s, p, init },
                { "find plain", string.find, lstrlib.find, s, p, init, true },
                { "match", string.match, lstrlib.match, s, p, init },
                { "gmatch", function(...) return collect(string.gmatch, ...) end, function(...) return collect(lstrlib.gmatch, ...) end, s, p, init },
                { "gsub", string.gsub, lstrlib.gsub, s, p, r, max },
              }
              for _, call in ipairs(calls) do
                local ours = pack(pcall(call[2], table.unpack(call, 4, 7)))
                local luas = pack(pcall(call[3], table.unpack(call, 4, 7)))
                if not same(ours, luas) then
                  differences[#differences + 1] = string.format("%s(%q, %q): %s / %s", call[1], s, p, tostring(ours[1]), tostring(luas[1]))
                end
              end
            end
            return table.concat(differences, "\\n", 1, math.min(#differences, 10))
            """, as: String.self)
        #expect(differences == "")
    }

    @Test func aTimeLimitStopsAMatchThatBacktracks() throws {
        let subject = "local s = ('a'):rep(400000)\n"
        for call in ["string.find(s, '.-.-.-.-b')", "string.match(s, '.-.-.-.-b')", "string.gsub(s, '.-.-.-.-b', '')",
                     "for _ in string.gmatch(s, '.-.-.-.-b') do end", "string.find(s, ('a'):rep(200000) .. 'b', 1, true)",
                     "string.find(s, '(a*)%1%1%1b')", "string.find(('('):rep(50000), '%b()')"] {
            let error = luaError { _ = try lua.withTimeLimit(0.2) { try lua.run(subject + call, name: "=match") } }
            #expect(error?.kind == .interrupted, "\(call)")
            #expect(error?.message == "match:2: timed out", "\(call)")
        }
        #expect(try lua.evaluate("return (string.find('abc', 'b'))", as: Int.self) == 2)
    }

    @Test func anInstructionBudgetCountsAMatchsSteps() throws {
        lua.instructionBudget = 1_000_000
        let error = luaError { try lua.run("return string.find(('a'):rep(100000), '.-.-.-.-b')", name: "=match") }
        #expect(error?.kind == .budgetExhausted)
        #expect(error?.message == "match:1: instruction budget of 1000000 instructions exhausted")
        // A pcall that catches it does not let the call go on.
        let caught = luaError { try lua.run("pcall(string.find, ('a'):rep(100000), '.-.-.-.-b') return 1", name: "=caught") }
        #expect(caught?.kind == .budgetExhausted)
        lua.instructionBudget = nil
    }

    @Test func aGmatchIteratorStoppedByALimitMatchesAgainAfterwards() throws {
        // Each stop leaves the iterator inside two levels of the matcher's recursion; Lua's matcher keeps its
        // depth in the iterator, so 150 stops would leave it "too complex" for ever unless each match restores it.
        try lua.run("iterate = string.gmatch(('a'):rep(40000) .. 'b', 'a-b')")
        lua.instructionBudget = 10_000
        for _ in 0..<150 {
            #expect(luaError { try lua.run("iterate()", name: "=stop") }?.kind == .budgetExhausted)
        }
        lua.instructionBudget = nil
        #expect(try lua.evaluate("return #iterate()", as: Int.self) == 40001)
    }
}
