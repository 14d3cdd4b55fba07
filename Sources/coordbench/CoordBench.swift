import ArgumentParser
import CCoordinatorLua
import CCoordinatorLuaGlue
import Foundation
import CoordinatorCore
import CoordinatorTools
import CoordinatorLua
#if canImport(Glibc)
import Glibc
#endif

/// `swift run -c release --static-swift-stdlib coordbench [--json] [--quick]`: the bridge against the raw C API, journeys
/// against native Swift and plain Lua, signals, memory, leaks and reload, each comparison measured in the
/// same run.
@main
struct CoordBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordbench",
        abstract: "Measure the coordinator runtime against its floors, in one run.",
        discussion: "Build in release mode: swift run -c release --static-swift-stdlib coordbench. Figures are the best of several rounds."
    )

    @Flag(help: "Print the figures as JSON.")
    var json = false

    @Flag(help: "Tiny counts: checks that every case runs (figures are meaningless).")
    var quick = false

    @Option(help: """
        Run only these groups (comma-separated): bridge (or one of closure, method, output), patterns, journey, signal, links, explore, \
        image, cancel, runtime, memory, leak, reload, scaling, tests.
        """)
    var only: String?

    @Option(help: "Multiply the operation counts by this (a profiler run wants fewer).")
    var scale: Double?

    @Flag(help: """
        Run every group in this process. By default each group runs in a fresh process, so that the heap \
        one group leaves behind (millions of calls, thousands of coordinators) does not slow the next.
        """)
    var inProcess = false

    /// The groups in the order they run, with the cases each one answers to in `--only`.
    static let groups: [(name: String, cases: [String])] = [
        ("bridge", ["bridge", "closure", "method", "output"]), ("patterns", ["patterns"]), ("coroutines", ["coroutines"]),
        ("journey", ["journey"]), ("signal", ["signal"]),
        ("memory", ["memory"]), ("leak", ["leak"]), ("reload", ["reload"]), ("scaling", ["scaling"]),
        ("tests", ["tests"]), ("links", ["links"]), ("explore", ["explore"]), ("image", ["image"]), ("cancel", ["cancel"]), ("runtime", ["runtime"]),
    ]

    func validate() throws {
        if let scale, !(scale > 0 && scale <= 1000) {
            throw ValidationError("--scale must be a number above 0 and at most 1000 (got \(scale))")
        }
        let known = Self.groups.flatMap(\.cases)
        if let only {
            let unknown = only.split(separator: ",").map(String.init).filter { !known.contains($0) }
            if !unknown.isEmpty {
                throw ValidationError("unknown case \(unknown.joined(separator: ", ")) in --only (cases: \(known.joined(separator: ", ")))")
            }
        }
    }

    func run() throws {
        let requested = only.map { $0.split(separator: ",").map(String.init) }
        // One fresh process per group: the `--only` each runs with, in order.
        let runs = Self.groups.compactMap { group -> String? in
            let cases = requested.map { $0.filter(group.cases.contains) } ?? [group.name]
            return cases.isEmpty ? nil : cases.joined(separator: ",")
        }
        let results = inProcess || runs.count <= 1 ? try measure() : try runs.flatMap(measureInChild)
        if json {
            print("[\n" + results.map(\.json).joined(separator: ",\n") + "\n]")
        } else {
            print(BenchResult.table(results))
        }
        if results.contains(where: { $0.passed == false }) && !quick { throw ExitCode(2) }
    }

    /// Runs `coordbench --only cases --json --in-process` (with this run's counts) and reads its figures.
    func measureInChild(_ cases: String) throws -> [BenchResult] {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        child.arguments = ["--only", cases, "--json", "--in-process"] + (quick ? ["--quick"] : []) + (scale.map { ["--scale", String($0)] } ?? [])
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        // Exit 2 means a target was missed: the figures are still there.
        guard child.terminationStatus == 0 || child.terminationStatus == 2 else {
            throw BenchError("coordbench --only \(cases) failed (exit \(child.terminationStatus))")
        }
        return try JSONDecoder().decode([BenchResult].self, from: data)
    }

    /// Runs the requested groups here.
    func measure() throws -> [BenchResult] {
        let factor = scale ?? (quick ? 0.001 : 1.0)
        func count(_ n: Int) -> Int { max(10, Int(Double(n) * factor)) }
        let rounds = quick ? 1 : 5
        var results: [BenchResult] = []
        let root = repositoryRoot()
        let groups = only.map { Set($0.split(separator: ",").map(String.init)) }
        func wanted(_ group: String) -> Bool { groups?.contains(group) ?? true }
        let bridge = ["closure", "method", "output"]
        if wanted("bridge") || bridge.contains(where: wanted) {
            results += try bridgeCases(calls: count(5_000_000), rounds: rounds) { wanted("bridge") || wanted($0) }
        }
        if wanted("patterns") { results += try patternCase(iterations: count(100_000), rounds: rounds) }
        if wanted("coroutines") { results += try coroutineCase(pingPongs: count(1_000_000), rounds: rounds) }
        if wanted("journey") { results += try journeyCases(journeys: count(50_000), rounds: rounds, root: root) }
        // A round of the signal case is under a millisecond: ten times the rounds, so that one stall of the
        // machine (a preemption, a slower clock) cannot cover them all.
        if wanted("signal") { results += try signalCase(nodes: quick ? 100 : 10_000, rounds: rounds * 10) }
        if wanted("memory") { results += try memoryCase(coordinators: quick ? 100 : 10_000) }
        if wanted("leak") { results += try leakCase(cycles: count(100_000)) }
        if wanted("reload") { results += try reloadCase(lines: quick ? 200 : 2_000, rounds: rounds, root: root) }
        if wanted("scaling") { results += try scalingCases(quick: quick, rounds: rounds) }
        if wanted("tests") {
            results += try flowTestsCase(tests: quick ? 10 : 100, rounds: rounds, root: root)
            results.append(try emptyTestsCurve(sizes: quick ? [50, 200] : [2_500, 20_000], root: root))
        }
        if wanted("links") { results += try linkCases(rounds: rounds, repeats: quick ? 2 : 200, root: root) }
        if wanted("explore") { results += try exploreCases(rounds: quick ? 1 : 3, root: root, quick: quick) }
        if wanted("image") { results += try imageCase(operations: count(20_000), rounds: rounds) }
        if wanted("cancel") { results += try cancelCase(rounds: quick ? 2 : 50) }
        if wanted("runtime") {
            results += try runtimeCase(count: quick ? 5 : 200, rounds: rounds, root: root)
            results += try chatHostCase(users: quick ? 20 : 1_000, messages: quick ? 100 : 20_000, pool: quick ? 4 : 64)
        }
        return results
    }

    /// The repository's root: the folder holding scripts/app.lua, from the working directory up.
    func repositoryRoot() -> String {
        var path = String(cString: getcwd(nil, 0))
        while !path.isEmpty {
            if access(path + "/scripts/app.lua", R_OK) == 0 { return path }
            guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { break }
            path = String(path[..<slash])
        }
        return "."
    }
}

/// One line of the report.
struct BenchResult: Decodable {
    var name: String
    var value: Double
    var unit: String
    /// The floor it is compared with, when there is one.
    var floor: Double?
    var floorName: String?
    /// The target: value / floor at most this (ratio), or value at most this (absolute).
    var target: Double?
    var targetIsRatio = true
    var note = ""
    /// For the leak check: live counts that did not come back fail it whatever the heap did.
    var countsDiffer = false
    /// An absolute target the value must reach (a throughput), rather than stay under.
    var targetIsMinimum = false

    init(name: String, value: Double, unit: String, floor: Double? = nil, floorName: String? = nil,
         target: Double? = nil, targetIsRatio: Bool = true, targetIsMinimum: Bool = false, note: String = "") {
        (self.name, self.value, self.unit, self.floor, self.floorName) = (name, value, unit, floor, floorName)
        (self.target, self.targetIsRatio, self.targetIsMinimum, self.note) = (target, targetIsRatio, targetIsMinimum, note)
    }

    enum CodingKeys: String, CodingKey {
        case name = "case", value, unit, floor, floorName, target, targetIsRatio, targetIsMinimum, note, countsDiffer
    }

    /// Reads what ``json`` writes (a group measured in a child process).
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(name: try c.decode(String.self, forKey: .name), value: try c.decodeIfPresent(Double.self, forKey: .value) ?? .nan,
                  unit: try c.decode(String.self, forKey: .unit), floor: try c.decodeIfPresent(Double.self, forKey: .floor),
                  floorName: try c.decodeIfPresent(String.self, forKey: .floorName),
                  target: try c.decodeIfPresent(Double.self, forKey: .target),
                  targetIsRatio: try c.decodeIfPresent(Bool.self, forKey: .targetIsRatio) ?? true,
                  targetIsMinimum: try c.decodeIfPresent(Bool.self, forKey: .targetIsMinimum) ?? false,
                  note: try c.decodeIfPresent(String.self, forKey: .note) ?? "")
        countsDiffer = try c.decodeIfPresent(Bool.self, forKey: .countsDiffer) ?? false
    }

    var ratio: Double? { floor.map { value / $0 } }
    var passed: Bool? {
        guard let target else { return nil }
        if countsDiffer { return false }
        if targetIsRatio { return ratio.map { $0 <= target } }
        return targetIsMinimum ? value >= target : value <= target
    }

    static func format(_ x: Double) -> String {
        guard x.isFinite else { return x.isNaN ? "n/a" : (x > 0 ? "inf" : "-inf") }
        if x >= 100 { return String(Int(x.rounded())) }
        let scaled = (x * 100).rounded() / 100
        return "\(scaled)"
    }

    static func table(_ results: [BenchResult]) -> String {
        var lines = ["case                                              value          floor                      ratio   target  ok"]
        for r in results {
            let value = (format(r.value) + " " + r.unit).padded(14)
            let floor = r.floor.map { (format($0) + " " + r.unit + " " + (r.floorName ?? "")).padded(26) } ?? "".padded(26)
            let ratio = r.ratio.map { (format($0) + "x").padded(7) } ?? "".padded(7)
            let target = r.target.map { ((r.targetIsMinimum ? ">=" : "<=") + format($0) + (r.targetIsRatio ? "x" : "")).padded(7) } ?? "".padded(7)
            let ok = r.passed.map { $0 ? "yes" : "NO" } ?? ""
            lines.append(r.name.padded(49) + " " + value + " " + floor + " " + ratio + " " + target + " " + ok + (r.note.isEmpty ? "" : "  " + r.note))
        }
        return lines.joined(separator: "\n")
    }

    var json: String {
        // JSON has no infinity or NaN: a figure that is not finite is written as null.
        func number(_ x: Double) -> String { x.isFinite ? "\(x)" : "null" }
        var fields = ["\"case\": \(quote(name))", "\"value\": \(number(value))", "\"unit\": \(quote(unit))"]
        if let floor { fields.append("\"floor\": \(number(floor))") }
        if let floorName { fields.append("\"floorName\": \(quote(floorName))") }
        if let ratio { fields.append("\"ratio\": \(number(ratio))") }
        if let target {
            fields.append("\"target\": \(target)")
            fields.append("\"targetIsRatio\": \(targetIsRatio)")
            if targetIsMinimum { fields.append("\"targetIsMinimum\": true") }
        }
        if let passed { fields.append("\"passed\": \(passed)") }
        if !note.isEmpty { fields.append("\"note\": \(quote(note))") }
        if countsDiffer { fields.append("\"countsDiffer\": true") }
        return "  { " + fields.joined(separator: ", ") + " }"
    }

    func quote(_ s: String) -> String {
        "\"" + s.replacingAll("\\", "\\\\").replacingAll("\"", "\\\"") + "\""
    }
}

extension String {
    func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
    func replacingAll(_ a: String, _ b: String) -> String { split(separator: a, omittingEmptySubsequences: false).joined(separator: b) }
}
