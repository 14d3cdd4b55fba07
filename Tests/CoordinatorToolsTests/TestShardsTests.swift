import Testing
import TestSupport
import CoordinatorTools

/// The suite split across machines: every test in exactly one shard, whatever the count; with durations,
/// the shards' times as even as the longest-first rule makes them.
@Suite struct TestShardsTests {
    /// 37 tests in 5 files, and 3 more declared in a loop: one name, one line, told apart by their place.
    static let tests: [FlowTest] = (0..<37).map { i in
        FlowTest(name: "test \(i)", file: "f\(i % 5)_test.lua", line: 10 + i, isSkipped: i % 11 == 0, index: i / 5)
    } + (0..<3).map { i in FlowTest(name: "looped", file: "loop_test.lua", line: 4, isSkipped: false, index: i) }

    @Test func everyTestIsInExactlyOneShard() {
        for count in 1...12 {
            let shards = TestShards.assign(Self.tests, into: count)
            #expect(shards.count == count)
            let all = shards.flatMap { $0 }
            #expect(all.count == Self.tests.count && Set(all.map { "\($0.file) \($0.index)" }).count == Self.tests.count, "\(count) shards")
            #expect(shards.map(\.count).max()! - shards.map(\.count).min()! <= 1, "dealt in turn: \(shards.map(\.count))")
            #expect(TestShards.assign(Self.tests.reversed(), into: count).map { Set($0.map { "\($0.file) \($0.index)" }) } == shards.map { Set($0.map { "\($0.file) \($0.index)" }) },
                    "the split does not depend on the order the tests were found in")
        }
    }

    @Test func durationsBalanceTheShards() throws {
        // One long test and many short ones: dealt in turn, one shard would carry the long one and its share.
        var seconds: [String: Double] = [:]
        for (i, test) in Self.tests.enumerated() { seconds[test.file + "\u{0}" + test.name] = i == 0 ? 30 : 1 }
        let json = "{\"tests\": [" + Self.tests.map { test in
            "{\"file\": \"\(test.file)\", \"name\": \"\(test.name)\", \"seconds\": \(seconds[test.file + "\u{0}" + test.name] ?? 0)}"
        }.joined(separator: ", ") + "]}"
        let read = try TestShards.durations(fromJSON: json)
        #expect(read == seconds)
        let shards = TestShards.assign(Self.tests, into: 3, seconds: read)
        let times = shards.map { $0.reduce(0) { $0 + (seconds[$1.file + "\u{0}" + $1.name] ?? 0) } }
        #expect(shards.flatMap { $0 }.count == Self.tests.count)
        #expect(times.sorted() == [19, 20, 30], "the long test alone, the rest split evenly: \(times)")
        #expect(shards.first { $0.contains { $0.name == "test 0" } }?.count == 1, "the long test has a shard of its own")
    }

    @Test func aShardIsKOfN() {
        #expect(TestShards.parse("2/3")! == (2, 3))
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", "1/2/3", ""] { #expect(TestShards.parse(bad) == nil, "\(bad)") }
    }
}
