import Testing
import TestSupport
import CCoordinatorLua
import CoordinatorLua

/// Pattern matching whose steps count toward the limits: the same results and errors as Lua's own string
/// library, and a match that backtracks is stopped by each limit.
@Suite struct PatternTests {
    let lua: LuaState
    init() throws { lua = try makeState() }

    /// What both comparisons use: results packed with their count, compared value by value; a gmatch's
    /// captures collected (at most 100 matches); a call that is not a tail call, so that an error's
    /// position is the same line for both libraries.
    static let comparing = """
        local function pack(ok, ...) return { ok = ok, n = select("#", ...), ... } end
        local function same(a, b)
          if a.ok ~= b.ok or a.n ~= b.n then return false end
          for i = 1, a.n do if a[i] ~= b[i] then return false end end
          return true
        end
        local function collect(gmatch, s, p, init)
          local all, steps = {}, 0
          for a, b, c in gmatch(s, p, init) do
            all[#all + 1] = tostring(a) .. "|" .. tostring(b) .. "|" .. tostring(c)
            steps = steps + 1
            if steps > 100 then break end
          end
          return table.concat(all, ",")
        end
        local function call(f, ...) local results = table.pack(f(...)) return table.unpack(results, 1, results.n) end

        """

    /// Lua's own `string` library, opened afresh as `lstrlib` (the state's `string` has the counted matcher).
    private func openLuaStringLibrary() throws {
        try lua.withUnsafeState { L in
            luaL_requiref(L, "lstrlib", luaopen_string, 0)
            lua_setglobal(L, "lstrlib")
        }
    }

    @Test func matchesAsLuasOwnStringLibraryOnRandomPatterns() throws {
        try openLuaStringLibrary()
        let differences = try lua.evaluate(Self.comparing + """
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

    /// Patterns built item by item from the manual's grammar (classes, sets with ranges, escapes and
    /// complements, every repetition, nested and position captures, %b, %f, back-references, anchors) with
    /// malformed pieces among them, on subjects from a few characters so that matches happen: every result
    /// and every error message (with its position) equal to the library's. A fresh seed each run, named
    /// when a case differs.
    @Test func matchesAsLuasOwnStringLibraryOnPatternsFromTheGrammar() throws {
        try openLuaStringLibrary()
        let seed = Int.random(in: 1...Int(Int32.max))
        try lua.globals.set("seed", seed)
        let differences = try lua.evaluate(Self.comparing + """
            math.randomseed(seed)
            local R = math.random
            local singles = { "a", "b", "c", ".", "%a", "%A", "%d", "%l", "%u", "%s", "%S", "%w", "%x", "%p", "%c", "%g",
              "%z", "%.", "%%", "%]", "%-", "[ab]", "[^ab]", "[a-c]", "[%a_]", "[%]a]", "[]]", "[^]]", "[a-]", "[-a]",
              "[a%-c]", "[%d-z]", "[b-a]", "[.]", "[%w%s]", "[^%s]", "$", "^", "*", "-", "\\0", "]" }
            local repeats = { "", "", "", "?", "*", "+", "-" }
            local broken = { "%", "[", "[^", "[a", "%b", "%ba", "%f", "%fa", "%f[", "(", ")", "%0", "%9" }
            local function item(depth)
              local roll = R(100)
              if roll <= 55 then return singles[R(#singles)] .. repeats[R(#repeats)]
              elseif roll <= 65 and depth < 3 then
                local inner = {}
                for i = 1, R(0, 3) do inner[i] = item(depth + 1) end
                return "(" .. table.concat(inner) .. ")"
              elseif roll <= 69 then return "()"
              elseif roll <= 75 then return "%b" .. ({ "()", "ab", "aa", "[]" })[R(4)]
              elseif roll <= 81 then return "%f[" .. ({ "%a", "%A", "ab", "^a", "%z", "%s" })[R(6)] .. "]"
              elseif roll <= 88 then return "%" .. R(1, 3)
              elseif roll <= 92 then return broken[R(#broken)]
              else return ({ "a", "b", "ab", "ba", "(", ")" })[R(6)] end
            end
            local function pattern()
              local parts = {}
              if R(6) == 1 then parts[1] = "^" end
              for i = 1, R(0, 6) do parts[#parts + 1] = item(0) end
              if R(6) == 1 then parts[#parts + 1] = "$" end
              return table.concat(parts)
            end
            local letters = { "a", "b", "c", "a", "b", "(", ")", "[", "]", " ", "1", "A", "_", "-", ".", "\\0", "%" }
            local function subject()
              local parts = {}
              for i = 1, R(0, 12) do parts[i] = letters[R(#letters)] end
              return table.concat(parts)
            end
            local inits = { nil, 1, 0, -1, -3, 2, 5, 13, 40, math.mininteger, math.maxinteger }
            local hooked = setmetatable({}, { __index = function(_, k) return k == "a" and 1.5 or nil end })
            local replacements = { "<%0>", "%1", "%1-%2", "%%", "%", "%x", "", 7, 2.5,
              { a = "A", b = false, ["("] = {}, ab = 3 }, hooked,
              function(...) return select("#", ...) .. ":" .. table.concat({ ... }, ",") end,
              function(c) if c == "a" then return false elseif c == "b" then return {} end return c end }
            local differences = {}
            for case = 1, 20000 do
              local s, p = subject(), pattern()
              local init = inits[R(#inits)]
              local r = replacements[R(#replacements)]
              local most = R(4) == 1 and R(-1, 3) or nil
              local calls = {
                { "find", string.find, lstrlib.find, s, p, init },
                { "match", string.match, lstrlib.match, s, p, init },
                { "gmatch", function(...) return collect(string.gmatch, ...) end, function(...) return collect(lstrlib.gmatch, ...) end, s, p, init },
                { "gsub", string.gsub, lstrlib.gsub, s, p, r, most },
              }
              for _, c in ipairs(calls) do
                local ours = pack(pcall(call, c[2], table.unpack(c, 4, 7)))
                local luas = pack(pcall(call, c[3], table.unpack(c, 4, 7)))
                if not same(ours, luas) then
                  differences[#differences + 1] = string.format("%s(%q, %q, %s): %s / %s", c[1], s, p, tostring(c[6]),
                    tostring(ours[1]), tostring(luas[1]))
                end
              end
            end
            -- Limits: 32 captures and no more, and the depth of open choices.
            local limits = {
              { string.rep("(", 32) .. "a" .. string.rep(")", 32), "a" },
              { string.rep("(", 33) .. "a" .. string.rep(")", 33), "a" },
              { string.rep("a?", 199), string.rep("a", 199) },
              { string.rep("a?", 200), string.rep("a", 200) },
              { string.rep("a?", 201), string.rep("a", 201) },
              { string.rep("(a)", 20) .. string.rep("b?", 180), string.rep("a", 20) .. string.rep("b", 180) },
              { string.rep("a-", 150) .. "$", string.rep("a", 150) },
              { string.rep("a-", 201) .. "$", string.rep("a", 201) },
              { string.rep("%b()", 3) .. string.rep("x-", 199), "()()()" .. string.rep("x", 199) },
            }
            for _, case in ipairs(limits) do
              for _, name in ipairs({ "find", "match", "gsub" }) do
                local ours = pack(pcall(call, string[name], case[2], case[1], name == "gsub" and "" or nil))
                local luas = pack(pcall(call, lstrlib[name], case[2], case[1], name == "gsub" and "" or nil))
                if not same(ours, luas) then
                  differences[#differences + 1] = string.format("%s(#%d, %q): %s / %s", name, #case[2], case[1]:sub(1, 40), tostring(ours[1]), tostring(luas[1]))
                end
              end
            end
            return table.concat(differences, "\\n", 1, math.min(#differences, 10))
            """, as: String.self)
        #expect(differences == "", "seed \(seed)")
    }

    @Test func aTimeLimitStopsAMatchThatBacktracks() throws {
        let subject = "local s = ('a'):rep(400000)\n"
        for call in ["string.find(s, '.-.-.-.-b')", "string.match(s, '.-.-.-.-b')", "string.gsub(s, '.-.-.-.-b', '')",
                     "for _ in string.gmatch(s, '.-.-.-.-b') do end",
                     "string.find(s, '(a*)%1%1%1b')", "string.find(('('):rep(50000), '%b()')"] {
            let error = luaError { _ = try lua.withTimeLimit(0.2) { try lua.run(subject + call, name: "=match") } }
            #expect(error?.kind == .interrupted, "\(call)")
            #expect(error?.message == "match:2: timed out", "\(call)")
        }
        #expect(try lua.evaluate("return (string.find('abc', 'b'))", as: Int.self) == 2)
    }

    @Test func aPlainSearchCostsTheSubjectsLengthNotItsSquare() throws {
        // Searching 200,001 characters that fail at their last in 400,000 costs a step per subject character:
        // a search that compared the needle again from each position would spend 10^10.
        lua.instructionBudget = 1_000_000
        let found = try lua.evaluate("local s = ('a'):rep(400000) return string.find(s, ('a'):rep(200000) .. 'b', 1, true) == nil",
                                     as: Bool.self)
        #expect(found)
        lua.instructionBudget = nil
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
