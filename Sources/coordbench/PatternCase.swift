import CoordinatorLua

/// A pattern-heavy loop (gmatch with captures and sets, %b, gsub, an anchored match) in a runtime's state,
/// whose matcher counts its steps toward the limits, against the same loop in a plain liblua state with
/// Lua's own string library: the ratio of their times per iteration (target 1.1).
func patternCase(iterations n: Int, rounds: Int) throws -> [BenchResult] {
    let code = """
        local line = "key_12 = value-with-dashes ; other=42, name=\\"quoted text\\" (nested (parens)) end"
        local n = 0
        for i = 1, \(n) do
          for k, v in line:gmatch("(%w+)%s*=%s*([^;,]+)") do n = n + #k end
          local a = line:find("%b()")
          local s = line:gsub("%s+", " ")
          if line:match("^key_(%d+)") then n = n + 1 end
          n = n + #s + a
        end
        return n
        """
    return [try againstPlainLua("pattern-heavy loop (gmatch, find %b, gsub, match)", code, operations: n, rounds: rounds,
                                floorName: "Lua's string library")]
}

/// `code` run in a runtime's state against the same chunk in a plain liblua state with Lua's own libraries,
/// `operations` each run, in the same rounds: their times per operation (target 1.1).
func againstPlainLua(_ name: String, _ code: String, operations n: Int, rounds: Int, floorName: String) throws -> BenchResult {
    let raw = try RawLua()
    let lua = try LuaState()
    lua.tracebacks = false
    let rawLoop = try raw.compile(code)
    let ourLoop = try lua.load(code, name: "bench")
    let times = try compare(rounds: rounds, operations: n, product: { try ourLoop.callValues() }, floor: { try raw.call(rawLoop) })
    return BenchResult(name: name, value: times.product, unit: "ns", floor: times.floor, floorName: floorName, target: 1.1)
}
