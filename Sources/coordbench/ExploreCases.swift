import CoordinatorCore
import CoordinatorTools

/// Exploration: transitions explored per second over the app and every example, each to its
/// fixed point, and how the cost of a transition grows with the size of the app (generated apps).
func exploreCases(rounds: Int, root: String, quick: Bool) throws -> [BenchResult] {
    let scripts = ["scripts/app.lua"] + ["tabs", "notes", "ab-picker", "multi-select", "catalog", "launch", "shop"].map { "examples/\($0).lua" }
    var steps = 0, states = 0
    // The rate over every script's exploration, time measured around the explorations only; the best round.
    var bestRate = 0.0
    for _ in 0..<rounds {
        var total = 0.0, taken = 0, found = 0
        for script in scripts {
            var options = Explorer.Options()
            options.depth = 60
            options.maxStates = quick ? 50 : 100_000
            let explorer = try Explorer(options: options) {
                let runtime = try ScriptRuntime(imageable: true)
                runtime.lua.tracebacks = false
                try Explorer.prepare(runtime)
                try runtime.load(script: root + "/" + script)
                return runtime
            }
            let start = now()
            let report = try explorer.run()
            total += Double(now() - start)
            taken += report.steps
            found += report.states.count
        }
        bestRate = max(bestRate, Double(taken) / (total / 1e9))
        (steps, states) = (taken, found)
    }
    var results = [BenchResult(name: "explore the app and 7 examples to their fixed points", value: bestRate, unit: "transitions/s",
                               target: 20_000, targetIsRatio: false, targetIsMinimum: true,
                               note: "\(states) states, \(steps) transitions")]
    results.append(try shopCase(rounds: rounds, root: root, quick: quick))
    // Generated apps: a home screen with one output per flow; each flow four screens deep.
    var costs: [(flows: Int, ns: Double)] = []
    for flows in quick ? [2, 5] : [10, 50] {
        let explorer = try Explorer {
            let runtime = try ScriptRuntime(imageable: true)
            runtime.lua.tracebacks = false
            try Explorer.prepare(runtime)
            try runtime.run(generatedApp(flows: flows, depth: 4), name: "generated")
            return runtime
        }
        var taken = 0
        let ns = try best(rounds: rounds, operations: 1) {
            let report = try explorer.run()
            taken = report.steps
        }
        costs.append((flows, ns / Double(max(taken, 1))))
    }
    if let small = costs.first, let large = costs.last {
        results.append(BenchResult(name: "explore a generated app: \(large.flows) flows, \(large.flows * 4) screen types",
                                   value: large.ns / 1000, unit: "us/transition",
                                   floor: small.ns / 1000, floorName: "\(small.flows) flows, \(small.flows * 4) screen types", target: 1.5,
                                   note: "growth from \(small.flows) to \(large.flows) flows"))
    }
    return results
}

/// Lua for an app with a home screen whose outputs open `flows` flows, each `depth` screens deep (one
/// screen type each), with `next` forward and Back.
func generatedApp(flows: Int, depth: Int) -> String {
    var lua = "local flow = require 'coordinator'\n"
    lua += "flow.screen 'Home' { outputs = { " + (1...flows).map { "'open\($0)'" }.joined(separator: ", ") + " } }\n"
    for f in 1...flows {
        for d in 1...depth {
            lua += "flow.screen 'F\(f)S\(d)' { inputs = { 'n' }, outputs = { " + (d < depth ? "'next'" : "'done'") + " } }\n"
        }
        lua += """
            local F\(f) = flow.coordinator 'F\(f)'
            function F\(f):start()
              local function show(d)
                local s = self:push('F\(f)S' .. d, { n = d })
                if d < \(depth) then s.onNext = function() show(d + 1) end else s.onDone = function() self:finish() end end
              end
              show(1)
            end

            """
    }
    lua += "local App = flow.coordinator 'App'\nfunction App:start()\n  local home = self:push('Home')\n"
    for f in 1...flows { lua += "  home.onOpen\(f) = function() self:run(F\(f)) end\n" }
    lua += "end\nflow.app(App)\n"
    return lua
}

/// The shop to depth 60 in one process, in transitions per CPU second: each action taken in a branch the
/// runtime comes back from (what `coordrun explore` does) and after a replay of its path (`--replay`, the
/// reference), alternating, best of each. The two must find the same states and transitions (the note says
/// whether they did; if not, the case fails).
func shopCase(rounds: Int, root: String, quick: Bool) throws -> BenchResult {
    func explore(replay: Bool) throws -> (rate: Double, report: ExploreReport) {
        var options = Explorer.Options()
        options.depth = quick ? 8 : 60
        options.replay = replay
        let explorer = try Explorer(options: options) {
            let runtime = try ScriptRuntime(imageable: true)
            runtime.lua.tracebacks = false
            try Explorer.prepare(runtime)
            try runtime.load(script: root + "/examples/shop.lua")
            return runtime
        }
        let start = cpuNow()
        let report = try explorer.run()
        return (Double(report.steps) / (Double(cpuNow() - start) / 1e9), report)
    }
    var branched = 0.0, replayed = 0.0
    var same = true, states = 0, transitions = 0
    // Alternating rounds, the best of each: one round is at the mercy of this machine's speed of the moment.
    for _ in 0..<max(1, rounds) {
        let a = try explore(replay: false), b = try explore(replay: true)
        branched = max(branched, a.rate)
        replayed = max(replayed, b.rate)
        same = same && a.report.states.map(\.key) == b.report.states.map(\.key)
            && a.report.transitions.map { [$0.from, $0.to] } == b.report.transitions.map { [$0.from, $0.to] }
        (states, transitions) = (a.report.states.count, a.report.transitions.count)
    }
    let ratio = (branched / replayed * 100).rounded() / 100
    return BenchResult(name: "explore examples/shop.lua to depth \(quick ? 8 : 60), one process, CPU time", value: same ? branched : 0,
                       unit: "transitions/s", target: 4_500, targetIsRatio: false, targetIsMinimum: true,
                       note: "\(states) states, \(transitions) transitions; by replay (--replay): \(Int(replayed)) transitions/s (\(ratio)×); "
                           + (same ? "the same states and transitions" : "OTHER STATES OR TRANSITIONS than by replay"))
}
