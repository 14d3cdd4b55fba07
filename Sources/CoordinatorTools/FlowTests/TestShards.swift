import CoordinatorScript

/// A suite split across machines (`coordrun test --shard K/N`): every test in exactly one shard, the same
/// split on every machine that asks. Without durations the tests are dealt in turn, in the order of their
/// files and of their declarations; with the durations of an earlier run (``durations(fromJSON:)``), the longest test goes
/// first to the shard with the least time so far, so the shards end together.
package enum TestShards {
    /// The key a test's duration is found by: its file and name.
    static func key(_ test: FlowTest) -> String { test.file + "\u{0}" + test.name }

    /// `tests` split into `count` shards (each in the tests' own order); `seconds` by each test's file and name.
    package static func assign(_ tests: [FlowTest], into count: Int, seconds: [String: Double] = [:]) -> [[FlowTest]] {
        guard count > 0 else { return [] }
        let ordered = tests.enumerated().sorted { ($0.element.file, $0.element.index, $0.offset) < ($1.element.file, $1.element.index, $1.offset) }
        var shardOf = [Int](repeating: 0, count: tests.count)
        let known = ordered.compactMap { seconds[key($0.element)] }.sorted()
        if known.isEmpty {
            for (position, entry) in ordered.enumerated() { shardOf[entry.offset] = position % count }
        } else {
            let typical = known[known.count / 2] // a test with no recorded time counts as the median one
            let longestFirst = ordered.map { (index: $0.offset, seconds: seconds[key($0.element)] ?? typical) }
                .enumerated().sorted { ($1.element.seconds, $0.offset) < ($0.element.seconds, $1.offset) }.map(\.element)
            var load = [Double](repeating: 0, count: count)
            for test in longestFirst {
                let lightest = load.indices.min { (load[$0], $0) < (load[$1], $1) } ?? 0
                shardOf[test.index] = lightest
                load[lightest] += test.seconds
            }
        }
        var shards = [[FlowTest]](repeating: [], count: count)
        for (index, test) in tests.enumerated() { shards[shardOf[index]].append(test) }
        return shards
    }

    /// The tests' durations in a `coordrun test --json` report, by each test's file and name.
    package static func durations(fromJSON json: String) throws -> [String: Double] {
        var result: [String: Double] = [:]
        for test in try FlowValue(json: json)["tests"]?.listValue ?? [] {
            guard let file = test["file"]?.stringValue, let name = test["name"]?.stringValue else { continue }
            result[file + "\u{0}" + name] = test["seconds"]?.doubleValue ?? test["seconds"]?.intValue.map(Double.init)
        }
        return result
    }

    /// `K/N` (1 ≤ K ≤ N) as (K, N), or nil.
    package static func parse(_ text: String) -> (index: Int, count: Int)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, count <= 10_000, index >= 1, index <= count else {
            return nil
        }
        return (index, count)
    }
}
