import Foundation
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

/// A chat host: `users` users, each a conversation with a support bot (a menu, orders, an order, help), one
/// step a message; each message takes the user's session if a runtime of the pool holds it, or restores the
/// user's last snapshot into the runtime used least recently, then takes one step (a tap of one of the
/// visible screen's outputs, or Back) and saves the snapshot, as a host after each message. The CPU time a
/// message costs, the memory each user holds (the pool's runtimes and every user's saved snapshot, over the
/// users), and how many steps the longest saved conversation replays.
func chatHostCase(users: Int, messages: Int, pool: Int) throws -> [BenchResult] {
    try withTemporaryScript("bot.lua", EmbeddedFile.botLua) { script in
        func runtime() throws -> ScriptRuntime {
            let runtime = try ScriptRuntime()
            runtime.lua.tracebacks = false
            runtime.dropsStepLoops = true // as ScriptSession and ScriptHost
            try runtime.load(script: script)
            return runtime
        }
        let first = try runtime()
        try first.start()
        let initial = try first.snapshot()
        let before = mallocBytes()
        var saved = [String](repeating: initial, count: users)
        var resident: [Int: ScriptRuntime] = [:]
        var holder: [ObjectIdentifier: Int] = [:]
        var lastUse: [Int: Int] = [:]
        var random: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        let start = cpuNow()
        for message in 0..<messages {
            let user = next(users)
            let app: ScriptRuntime
            if let live = resident[user] {
                app = live
            } else {
                if resident.count < pool {
                    app = try runtime()
                } else {
                    guard let (oldest, _) = lastUse.filter({ resident[$0.key] != nil }).min(by: { $0.value < $1.value }),
                          let evicted = resident.removeValue(forKey: oldest) else { break }
                    app = evicted
                }
                try app.restore(saved[user])
                resident[user] = app
                holder[ObjectIdentifier(app)] = user
            }
            lastUse[user] = message
            let screen = app.app.window.visibleScreen
            let outputs = screen?.type.outputs.map(\.name) ?? []
            let stack = app.app.window.visibleStack.count
            let choice = next(outputs.count + (stack > 1 ? 2 : 0))
            if choice < outputs.count {
                let output = outputs[choice]
                var payload: FlowValue?
                if output == "open", let list = screen?["orders"]?.listValue, !list.isEmpty { payload = list[next(list.count)] }
                try app.app.tap(output, payload: payload)
            } else {
                try app.app.perform(.back)
            }
            saved[user] = try app.snapshot()
        }
        let perMessage = Double(cpuNow() - start) / Double(messages)
        let held = Double(mallocBytes() - before)
        let longest = try saved.map { try FlowValue(json: $0)["steps"]?.listValue?.count ?? 0 }.max() ?? 0
        let snapshotBytes = Double(saved.reduce(0) { $0 + $1.utf8.count })
        withExtendedLifetime((resident, first)) {}
        return [
            BenchResult(name: "a chat host: \(users) users, \(messages) messages, a pool of \(pool) runtimes: CPU a message",
                        value: perMessage / 1e6, unit: "ms",
                        target: 1, targetIsRatio: false,
                        note: "take or restore the user's session, one step, save its snapshot; the longest saved conversation replays \(longest) steps"),
            BenchResult(name: "  memory each user holds (the pool's runtimes and every user's snapshot)", value: held / Double(users) / 1024, unit: "KiB",
                        target: 64, targetIsRatio: false,
                        note: String(format: "a snapshot %.1f KiB on average; a runtime of the pool about %.0f KiB",
                                     snapshotBytes / Double(users) / 1024, (held - snapshotBytes) / Double(max(resident.count, 1)) / 1024)),
        ]
    }
}
