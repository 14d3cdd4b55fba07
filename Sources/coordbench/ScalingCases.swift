import CoordinatorCore
import CoordinatorTools
import Foundation
import CoordinatorLua

/// Costs that must not grow with the size of the app, printed as curves: the cost per operation at each
/// size and the growth factor from the smallest size to the largest (the target: at most 1.5x).
func scalingCases(quick: Bool, rounds: Int) throws -> [BenchResult] {
    var results: [BenchResult] = []
    results += try pushPopCurve(depths: quick ? [10, 100] : [10, 1_000, 10_000], operations: quick ? 100 : 20_000, rounds: rounds)
    results += try childrenCurve(sizes: quick ? [100, 1_000] : [1_000, 10_000, 100_000])
    results += try deliveryCurve(sizes: quick ? [100, 1_000] : [1_000, 100_000], rounds: rounds)
    results.append(try oneLineLoop(cycles: quick ? 1_000 : 100_000))
    results += try replLineCurves(depths: quick ? [10, 100] : [10, 10_000], sizes: quick ? [100, 1_000] : [100, 100_000],
                                  lines: quick ? 20 : 300, rounds: rounds)
    results.append(try sessionMemory(lines: quick ? [1_000, 2_000] : [200_000, 1_000_000]))
    return results
}

/// One line of a curve: the cost at each size, and the growth factor between the smallest and largest.
private func curve(_ name: String, unit: String, sizes: [Int], costs: [Double], target: Double = 1.5, note: String = "") -> BenchResult {
    let points = zip(sizes, costs).map { "\($0): \(BenchResult.format($1))" }.joined(separator: ", ")
    let growth = (costs.last ?? .nan) / (costs.first ?? .nan)
    return BenchResult(name: name + " (growth)", value: growth, unit: "x", target: target, targetIsRatio: false,
                       note: "\(unit) at " + points + (note.isEmpty ? "" : "; " + note))
}

/// A Swift coordinator whose start shows `depth` screens: the stack the curve pushes and pops on.
private final class Filler: Coordinator {
    let depth: Int
    init(depth: Int) { self.depth = depth; super.init(name: "Filler") }
    override func start(_ args: FlowValue?) throws {
        for _ in 0..<depth { try push("Page") }
    }
}

/// Push + pop as two separate operations on a stack `depth` deep (the native core).
private func pushPopCurve(depths: [Int], operations: Int, rounds: Int) throws -> [BenchResult] {
    var costs: [Double] = []
    for depth in depths {
        let app = Application(state: .main)
        app.catalog.register(ScreenType("Page", inputs: ["n"], outputs: [OutputSpec("next")]))
        let root = Filler(depth: depth)
        try app.start(root)
        guard app.window.visibleStack.count == depth else { throw BenchError("the stack is not \(depth) deep") }
        costs.append(try best(rounds: rounds, operations: operations) {
            for _ in 0..<operations / 2 {
                try root.push("Page")
                try root.pop()
            }
        })
    }
    return [curve("push + pop, stack depth \(depths.map(String.init).joined(separator: "/"))", unit: "ns/op", sizes: depths, costs: costs)]
}

/// Lua: running `n` children in one line, each showing a screen, then finishing their parent in one line.
private func childrenCurve(sizes: [Int]) throws -> [BenchResult] {
    var runCosts: [Double] = [], finishCosts: [Double] = []
    var memoryNote = ""
    var peakRatio = 0.0
    for n in sizes {
        let runtime = try benchApp("""
            local flow = require "coordinator"
            flow.screen "One" { inputs = { "value" } }
            flow.screen "Home" { outputs = { "open" } }
            local Holder = flow.coordinator "Holder"
            function Holder:start(i) self:push("One", { value = i }) end
            local Parent = flow.coordinator "Parent"
            function Parent:start() parent = self end
            function Parent:grow(n) for i = 1, n do self:run(Holder, i) end end
            local Root = flow.coordinator "Root"
            function Root:start() self:push("Home") self:run(Parent) end
            flow.app { bench = Root }
            """)
        runtime.lua.collectGarbage()
        let mallocBefore = mallocBytes()
        let peakBefore = peakResidentBytes()
        let residentBefore = residentBytes()
        let start = now()
        try runtime.run("parent:grow(\(n))", name: "bench")
        let grown = now()
        runtime.lua.collectGarbage()
        let live = mallocBytes() - mallocBefore
        let peakGrowth = peakResidentBytes() - max(peakBefore, residentBefore)
        guard runtime.app.live.coordinators >= n, runtime.app.live.screens >= n else { throw BenchError("the children were not kept") }
        let finishStart = now()
        try runtime.run("parent:finish()", name: "bench")
        let finished = now()
        guard runtime.app.root?.children.first?.children.isEmpty == true else { throw BenchError("the parent did not finish") }
        runCosts.append(Double(grown - start) / Double(n))
        finishCosts.append(Double(finished - finishStart) / Double(n))
        if n == sizes.last {
            peakRatio = Double(peakGrowth) / Double(max(live, 1))
            memoryNote = "\(n) children: live \(live / n) B each, peak RSS grew \(max(peakGrowth, 0) / 1_048_576) MB for \(live / 1_048_576) MB live"
        }
    }
    let label = sizes.map(String.init).joined(separator: "/")
    return [
        curve("run N children in one line, N = \(label)", unit: "ns/child", sizes: sizes, costs: runCosts),
        curve("finish a parent of N children, N = \(label)", unit: "ns/child", sizes: sizes, costs: finishCosts),
        BenchResult(name: "peak RSS / live memory, running \(sizes.last ?? 0) children", value: peakRatio, unit: "x",
                    target: 2, targetIsRatio: false, note: memoryNote),
    ]
}

/// A signal from the root, and `flow.update`, per node of trees of each size (Lua coordinators).
private func deliveryCurve(sizes: [Int], rounds: Int) throws -> [BenchResult] {
    var signalCosts: [Double] = [], updateCosts: [Double] = []
    for n in sizes {
        let runtime = try benchApp("""
            local flow = require "coordinator"
            flow.screen "One" { inputs = { "value" } }
            local Node = flow.coordinator "Node"
            function Node:start() self:push("One", { value = 0 }) end
            local Root = flow.coordinator "Root"
            \(treeBuilder(nodes: n))
            flow.app { bench = Root }
            """)
        guard let root = runtime.app.root else { throw BenchError("no root") }
        let repeats = max(1, 100_000 / n)
        signalCosts.append(try best(rounds: rounds, operations: n * repeats) {
            for _ in 0..<repeats { _ = try root.send("ping") }
        })
        var value = 0
        updateCosts.append(try best(rounds: rounds, operations: n * repeats) {
            for _ in 0..<repeats {
                value += 1
                guard try runtime.app.update("value", to: .int(value)) == n - 1 else { throw BenchError("update missed screens") }
            }
        })
    }
    let label = sizes.map(String.init).joined(separator: "/")
    return [
        curve("signal per node, N = \(label)", unit: "ns/node", sizes: sizes, costs: signalCosts),
        curve("update per screen, N = \(label)", unit: "ns/screen", sizes: sizes, costs: updateCosts),
    ]
}

/// One REPL line, `tap('next') back()`, on a stack `depth` deep and on an app of `size` coordinators: what
/// the REPL does around a line (deciding whether it changed the app, what to show, what time travel keeps)
/// must cost what the line changed, not what the app holds.
private func replLineCurves(depths: [Int], sizes: [Int], lines: Int, rounds: Int) throws -> [BenchResult] {
    func lineCost(_ runtime: ScriptRuntime) throws -> Double {
        let repl = try REPL(runtime: runtime, mode: .repl, output: REPL.Output(write: { _ in }, error: { _ in }))
        return best(rounds: rounds, operations: lines) {
            for _ in 0..<lines { repl.handle("tap('next') back()") }
        }
    }
    var depthCosts: [Double] = [], sizeCosts: [Double] = []
    for depth in depths {
        depthCosts.append(try lineCost(benchApp("""
            local flow = require "coordinator"
            flow.screen "Page" { outputs = { "next" } }
            local Root = flow.coordinator "Root"
            function Root:start()
              for i = 1, \(depth) do
                self:push("Page").onNext = function() self:push("Page") end
              end
            end
            flow.app { bench = Root }
            """)))
    }
    for size in sizes {
        sizeCosts.append(try lineCost(benchApp("""
            local flow = require "coordinator"
            flow.screen "Page" { outputs = { "next" } }
            local Node = flow.coordinator "Node"
            function Node:start() end
            local Root = flow.coordinator "Root"
            function Root:start()
              for i = 2, \(size) do self:run(Node) end
              self:push("Page").onNext = function() self:push("Page") end
            end
            flow.app { bench = Root }
            """)))
    }
    return [
        curve("a REPL line tap('next') back(), stack depth \(depths.map(String.init).joined(separator: "/"))", unit: "ns/line",
              sizes: depths, costs: depthCosts),
        curve("a REPL line tap('next') back(), coordinators \(sizes.map(String.init).joined(separator: "/"))", unit: "ns/line", sizes: sizes, costs: sizeCosts),
    ]
}

/// A REPL session driven line after line (as through a pipe, for a day): the process's resident memory
/// after each count of lines, past the time-travel history's bound (10,000 lines by default).
private func sessionMemory(lines counts: [Int]) throws -> BenchResult {
    let runtime = try benchApp("""
        local flow = require "coordinator"
        flow.screen "Page" { outputs = { "next" } }
        local Root = flow.coordinator "Root"
        function Root:start() self:push("Page").onNext = function() self:push("Page") end end
        flow.app { bench = Root }
        """)
    let repl = try REPL(runtime: runtime, mode: .repl, output: REPL.Output(write: { _ in }, error: { _ in }))
    var done = 0
    var resident: [Double] = []
    for count in counts {
        while done < count {
            repl.handle(done % 2 == 0 ? "x = \(done)" : "tap('next') back()")
            done += 1
        }
        resident.append(Double(residentBytes()))
    }
    return curve("resident memory of a REPL session, lines \(counts.map(String.init).joined(separator: "/"))", unit: "bytes",
                 sizes: counts, costs: resident, target: 1.1, note: "half Lua lines, half taps")
}

/// The source app's journey back and forth `cycles` times inside one line: the Lua heap after a full
/// collection, against one cycle.
private func oneLineLoop(cycles: Int) throws -> BenchResult {
    let runtime = try ScriptRuntime(state: .main, driverFunctions: true)
    runtime.lua.tracebacks = false
    let root = CoordBench().repositoryRoot()
    try runtime.load(script: root + "/scripts/app.lua")
    try runtime.start()
    let loop = "for i = 1, %d do tap('selectCity'); tap('regionSelected', top().regions[1]); back(); back() end"
    try runtime.run(String(format: loop, 1), name: "bench")
    runtime.lua.collectGarbage()
    let before = runtime.lua.memoryUsed, mallocBefore = mallocBytes()
    try runtime.run(String(format: loop, cycles), name: "bench")
    runtime.lua.collectGarbage()
    let held = runtime.lua.memoryUsed - before, mallocHeld = mallocBytes() - mallocBefore
    return BenchResult(name: "one line of \(cycles) journeys there and back: memory held", value: Double(held) / Double(cycles),
                       unit: "B/cycle", target: 0.05, targetIsRatio: false,
                       note: "Lua heap \(before) → \(before + held) B; all allocations \(mallocHeld >= 0 ? "+" : "")\(mallocHeld) B")
}

/// The process's peak resident memory (VmHWM), in bytes.
func peakResidentBytes() -> Int { statusField("VmHWM:") }
/// The process's resident memory now (VmRSS), in bytes.
func residentBytes() -> Int { statusField("VmRSS:") }

private func statusField(_ name: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(name) {
        let digits = line.dropFirst(name.count).filter(\.isNumber)
        return (Int(digits) ?? 0) * 1024
    }
    return 0
}
