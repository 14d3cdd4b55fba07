import Foundation
import Testing
import TestSupport

/// The README's limits (`--sandbox --memory-limit --instruction-limit --timeout`) hold wherever the user's
/// code runs: a plain script, an `-e` chunk, a message handler, an error object's `__tostring`.
@Suite struct LimitsCommandTests {
    static let sandboxed = ["--sandbox", "--memory-limit", "64000000", "--instruction-limit", "10000000", "--timeout", "2"]

    @Test func eachRunawayLineEndsWithAnError() throws {
        let folder = try TemporaryDirectory()
        let spin = try folder.write("spin.lua", "while true do end\n")
        let tostring = try folder.write("tostring.lua", "error(setmetatable({}, { __tostring = function() while true do end end }))\n")
        let cases: [(arguments: [String], message: String)] = [
            (["--timeout", "1", spin], "spin.lua:1: timed out"),
            (["--sandbox", "--timeout", "1", "-e", "while true do end"], "(command line):1: timed out"),
            (Self.sandboxed + ["-e", "xpcall(error, function() while true do end end)"], "instruction budget of 10000000 instructions exhausted"),
            (["--timeout", "1", "-e", "xpcall(error, function() while true do end end)"], "timed out"),
            (Self.sandboxed + [tostring], "__tostring failed"),
            ([tostring], "__tostring failed"),
        ]
        for (arguments, message) in cases {
            let outcome = try Programs.run(arguments, input: "")
            #expect(outcome.status == 1 && outcome.err.contains(message), "\(arguments): \(outcome.status) \(outcome.err)")
        }
        let nan = try Programs.run(["--timeout", "nan", "-e", "print(1)"], input: "")
        #expect(nan.status == 1 && nan.err.contains("--timeout takes a number of seconds"), "\(nan.err)")
    }

    /// A line that ends by a limit in its error's `__tostring` leaves no deadline behind: the next line runs.
    @Test func theNextLineRunsAfterALimitedOne() throws {
        let outcome = try Programs.run(["--timeout", "1", "scripts/app.lua"],
                                       input: "error(setmetatable({}, { __tostring = function() while true do end end }))\n=20 + 22\n")
        #expect(outcome.out.contains("42"), "\(outcome.out)\(outcome.err)")
    }
}
