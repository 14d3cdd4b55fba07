import Foundation
import Testing
import TestSupport
import CoordinatorTools

/// `coordrun explore`: the report, the JSON, the graph coloured by coverage, worker processes.
@Suite struct ExploreCommandTests {
    @Test func exploreOnTheCommandLine() throws {
        let folder = try TemporaryDirectory()
        let outcome = try Programs.run(["explore", "scripts/app.lua", "--json", folder.path + "/r.json", "--graph", folder.path + "/g.mmd"], input: "")
        #expect(outcome.status == 0, "\(outcome.err)")
        #expect(outcome.out.hasPrefix("explored scripts/app.lua: 52 states, 193 transitions"))
        #expect(outcome.out.contains("graph: \(folder.path)/g.mmd ("))
        let report = try FlowValue(json: String(contentsOfFile: folder.path + "/r.json", encoding: .utf8))
        #expect(report["states"] == 52 && report["fixedPoint"] == true && report["errors"] == [])
        // The flow tests' coverage colours the graph: what they reached, and what they did not.
        let coverage = folder.path + "/coverage.json"
        _ = try Programs.run(["test", "--coverage-json", coverage, "examples/ab-picker_test.lua"], input: "")
        let coloured = try Programs.run(["explore", "examples/ab-picker.lua", "--graph", folder.path + "/g.dot", "--coverage", coverage], input: "")
        #expect(coloured.status == 0, "\(coloured.err)")
        let dot = try String(contentsOfFile: folder.path + "/g.dot", encoding: .utf8)
        #expect(dot.contains("fillcolor=\"#c8f7c5\""), "\(dot)") // reached by the tests
        // Worker processes share each level: the same report as one process.
        let shared = try Programs.run(["explore", "examples/multi-select.lua", "--depth", "60", "--workers", "2"], input: "")
        let alone = try Programs.run(["explore", "examples/multi-select.lua", "--depth", "60"], input: "")
        #expect(shared.status == 0 && alone.status == 0, "\(shared.err)")
        #expect(shared.out.split(separator: "\n").first == alone.out.split(separator: "\n").first)
        #expect(shared.out.hasPrefix("explored examples/multi-select.lua: 221 states, 788 transitions"), "\(shared.out)")
        let bad = try Programs.run(["explore", "scripts/app.lua", "--graph", folder.path + "/g.txt"], input: "")
        #expect(bad.status == 1 && bad.err.contains("must end in .mmd, .dot, .json, .svg or .png"))
    }
}
