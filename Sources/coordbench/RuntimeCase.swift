import CoordinatorCore
import CoordinatorTools

/// A new runtime with scripts/app.lua loaded and started, as a host that runs one app per session makes
/// them (the target: 0.2 ms and 64 KB each): the best round's time per runtime, and the memory each
/// of `count` live runtimes holds (malloc, Lua's heap included).
func runtimeCase(count: Int, rounds: Int, root: String) throws -> [BenchResult] {
    let script = root + "/scripts/app.lua"
    func make() throws -> ScriptRuntime {
        let runtime = try ScriptRuntime()
        try runtime.load(script: script)
        try runtime.start()
        return runtime
    }
    let ns = try best(rounds: rounds, operations: count) {
        for _ in 0..<count { _ = try make() }
    }
    let before = mallocBytes()
    var live: [ScriptRuntime] = []
    for _ in 0..<count { live.append(try make()) }
    let bytes = Double(mallocBytes() - before) / Double(count)
    let luaHeap = Double(live.reduce(0) { $0 + $1.lua.memoryUsed }) / Double(count)
    withExtendedLifetime(live) {}
    return [
        BenchResult(name: "a new runtime with scripts/app.lua loaded and started", value: ns / 1e6, unit: "ms", target: 0.2, targetIsRatio: false),
        BenchResult(name: "  memory each of \(count) live runtimes holds", value: bytes / 1024, unit: "KiB", target: 64, targetIsRatio: false,
                    note: "of it Lua's heap \(Int(luaHeap / 1024)) KiB"),
    ]
}
