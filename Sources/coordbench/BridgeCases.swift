import CCoordinatorLua
import CCoordinatorLuaGlue
import CoordinatorCore
import CoordinatorTools
import CoordinatorLua

/// A Lua state used through the C API only: the floors.
final class RawLua {
    let L: OpaquePointer

    init() throws {
        guard let state = luaL_newstate() else { throw LuaError(.memory, "no Lua state") }
        L = state
        luaL_openlibs(L)
    }

    deinit { lua_close(L) }

    /// Compiles `code` and leaves the function in the registry.
    func compile(_ code: String) throws -> Int32 {
        guard luaL_loadstring(L, code) == LUA_OK else { throw LuaError(.syntax, String(cString: lua_tolstring(L, -1, nil))) }
        return coordlua_ref(L)
    }

    func call(_ ref: Int32, arguments: Int32 = 0) throws {
        coordlua_rawgetref(L, ref)
        if arguments > 0 { lua_rotate(L, -1 - arguments, 1) }
        guard lua_pcallk(L, arguments, 0, 0, 0, nil) == LUA_OK else {
            throw LuaError(.runtime, String(cString: lua_tolstring(L, -1, nil)))
        }
    }
}

/// `f(x)` returns x: the C function of the floors.
let identity: lua_CFunction = { L in
    lua_pushinteger(L, lua_tointegerx(L, 1, nil))
    return 1
}

/// `obj:m(x)` returns x.
let method: lua_CFunction = { L in
    lua_pushinteger(L, lua_tointegerx(L, 2, nil))
    return 1
}

final class Probe {}

/// The bridge cases; `wanted` picks among `closure`, `method` and `output`.
func bridgeCases(calls n: Int, rounds: Int, wanted: (String) -> Bool) throws -> [BenchResult] {
    var results: [BenchResult] = []
    let raw = try RawLua()
    let lua = try LuaState()
    lua.tracebacks = false

    // The same Lua loop run in both states, in alternating rounds.
    func compareLoop(_ code: String) throws -> (product: Double, floor: Double) {
        let rawLoop = try raw.compile(code)
        let kitLoop = try lua.load(code, name: "bench")
        return try compare(rounds: rounds, operations: n, product: { try kitLoop.callValues() }, floor: { try raw.call(rawLoop) })
    }

    // 1a. A plain Swift closure as a global function, against a C function.
    if wanted("closure") {
    lua_pushcclosure(raw.L, identity, 0)
    lua_setglobal(raw.L, "f")
    try lua.globals.set("f", lua.function(name: "f") { call in try call.push(call.integer(1)) })
    let closure = try compareLoop("local f = f for i = 1, \(n) do f(i) end")
    results.append(BenchResult(name: "Lua -> Swift closure f(i)", value: closure.product, unit: "ns", floor: closure.floor,
                               floorName: "C function", target: 3))
    }

    // 1b. A method on a Swift object (userdata), against a C function reached through an __index table.
    if wanted("method") {
    _ = lua_newuserdatauv(raw.L, 8, 1)
    lua_createtable(raw.L, 0, 1)          // metatable
    lua_createtable(raw.L, 0, 1)          // its __index table
    lua_pushcclosure(raw.L, method, 0)
    lua_setfield(raw.L, -2, "m")
    lua_setfield(raw.L, -2, "__index")
    _ = lua_setmetatable(raw.L, -2)
    lua_setglobal(raw.L, "obj")
    try lua.register(Probe.self, name: "Probe") { c in
        c.method("m") { _, call in try call.push(call.integer(1)) }
    }
    try lua.globals.set("obj", lua.userdata(Probe()))
    let m = try compareLoop("local o = obj for i = 1, \(n) do o:m(i) end")
    results.append(BenchResult(name: "Lua -> Swift method obj:m(i)", value: m.product, unit: "ns", floor: m.floor,
                               floorName: "C __index", target: 2))
    }
    guard wanted("output") else { return results }

    // 2. A screen output dispatched to its Lua handler with a one-field table payload, against lua_pcall
    //    of the same function with the table built through the C API, in the same Lua state (so that both
    //    pay the same garbage collector over the same heap, and only the bridge differs).
    let runtime = try ScriptRuntime(state: AppState("bench"), driverFunctions: true)
    runtime.lua.tracebacks = false
    try runtime.run("""
        local flow = require "coordinator"
        flow.screen "Probe" { outputs = { x = "value" } }
        local P = flow.coordinator "P"
        function probeHandler(p) sink = p.k end
        function P:start() local s = self:push("Probe") s.onX = probeHandler end
        flow.app { bench = P }
        """, name: "bench")
    try runtime.start()
    guard let screen = runtime.app.window.visibleScreen else { throw LuaError(.misuse, "no probe screen") }
    let outputs = n / 10
    let payload = FlowValue.record(["k": .int(1)])
    let function = try runtime.lua.withUnsafeState { L in // SAFETY[unsafe-state]
        lua_getglobal(L, "probeHandler")
        return coordlua_ref(L)
    }
    // A round here is a tenth of the calls of the cases above: twice their rounds.
    let dispatch = try compare(rounds: rounds * 2, operations: outputs, product: {
        for _ in 0..<outputs { try screen.emit("x", payload: payload) }
    }, floor: {
        try runtime.lua.withUnsafeState { L in try handWritten(L) } // SAFETY[unsafe-state]
    })
    func handWritten(_ L: OpaquePointer) throws {
        for i in 0..<outputs {
            coordlua_rawgetref(L, function)
            lua_createtable(L, 0, 1)
            lua_pushinteger(L, lua_Integer(i))
            lua_setfield(L, -2, "k")
            guard lua_pcallk(L, 1, 0, 0, 0, nil) == LUA_OK else { throw LuaError(.runtime, "handler failed") }
        }
    }
    results.append(BenchResult(name: "Swift -> Lua screen output to handler", value: dispatch.product, unit: "ns",
                               floor: dispatch.floor, floorName: "lua_pcall + table", target: 1.5))
    let taps = try best(rounds: rounds, operations: outputs) { for _ in 0..<outputs { try runtime.app.tap("x", payload: payload) } }
    results.append(BenchResult(name: "  same through app.tap (atomic operation)", value: taps, unit: "ns", floor: dispatch.floor,
                               floorName: "lua_pcall + table", note: "journal, events, settle"))
    return results
}
