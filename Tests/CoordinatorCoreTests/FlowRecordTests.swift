import Testing
import PropertyBased
import TestSupport
import CoordinatorCore

/// Records keep their fields as a sorted array: they must behave exactly like a dictionary.
@Suite struct FlowRecordTests {
    /// Random edits (set, replace, remove) applied to a record and to a dictionary give the same fields,
    /// in sorted order, and records with the same fields are equal and hash alike whatever the edit order.
    @Test func behavesLikeADictionary() async {
        // Few distinct keys (some longer than a small string), so edits hit existing fields often.
        let key = Gen.int(in: 0...11).map { i in i < 6 ? "k\(i)" : "a-longer-key-number-\(i)" }
        let edit = zip(key, Gen.int(in: -3...3))
        await checkProperty(count: 300, input: edit.array(of: 0...40)) { edits in
            var record = FlowRecord()
            var model: [String: FlowValue] = [:]
            for (key, n) in edits {
                let value: FlowValue? = n < 0 ? nil : .int(n)
                record[key] = value
                model[key] = value
            }
            #expect(record.keys == model.keys.sorted())
            for (key, value) in model { #expect(record[key] == value) }
            #expect(record.count == model.count)
            #expect(record["absent"] == nil)

            let rebuilt = FlowRecord(model.shuffled().map { ($0.key, $0.value) })
            #expect(rebuilt == record)
            #expect(rebuilt.hashValue == record.hashValue)
            #expect(FlowValue.record(rebuilt) == FlowValue.record(FlowRecord(model)))
        }
    }

    @Test func repeatedNamesKeepTheLastValue() {
        var builder = FlowRecord.Builder()
        for (key, value) in [("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)] { builder.add(key, .int(value)) }
        let record = builder.finish()
        #expect(record.keys == ["a", "b", "c"])
        #expect(record["a"] == 5 && record["b"] == 3 && record["c"] == 4)
        #expect(FlowRecord([("x", 1), ("x", 2)]) == ["x": 2])
    }

    @Test func largeRecordsAreSearchedToo() {
        // More fields than the linear search handles: the binary search finds every one and every gap.
        var record = FlowRecord()
        for i in stride(from: 0, to: 100, by: 2) { record["f\(1000 + i)"] = .int(i) }
        for i in 0..<100 {
            #expect(record["f\(1000 + i)"] == (i % 2 == 0 ? .int(i) : nil))
        }
        record["f1001"] = "odd"
        #expect(record.keys.firstIndex(of: "f1001") == 1)
        #expect(record.description.hasPrefix(#"["f1000": 0, "f1001": "odd", "f1002": 2"#))
    }

    /// The example of FlowRecord's documentation and docs/Core.md, as written.
    @Test func documentedExample() {
        var user: FlowRecord = ["name": "Ann", "city": ["name": "Moscow"]]
        #expect(user["city"]?["name"]?.stringValue == "Moscow")
        user["age"] = 30
        #expect(user.map(\.key) == ["age", "city", "name"])
        user["age"] = nil
        #expect(FlowValue.record(user).description == #"["city": ["name": "Moscow"], "name": "Ann"]"#)
        #expect(FlowValue.list([]).description == "[]" && FlowValue.record([:]).description == "[:]")
    }
}

/// What a host meets first: accessors, interpolation, files by URL.
@Suite struct HostConvenienceTests {
    @Test func interpolatedTextIsAFlowValueAndAnEmptyScreenTypeIsNotAmbiguous() {
        let n = 3
        let reply: FlowValue = "saved #\(n)"
        #expect(reply == .string("saved #3"))
        let bare = ScreenType("X", inputs: [], outputs: [])
        let named = ScreenType("Y", inputs: ["user"])
        #expect(bare.inputs.isEmpty && named.inputs == [InputSpec("user")])
        // An output without payload says `.nothing`, which no Optional has (`.none` compared with nil).
        let spec: OutputSpec? = OutputSpec("selectCity")
        #expect(spec?.payload == .nothing)
    }

    /// A record reads as its `label` field, else its `name`, else as data: an item an output chooses shows
    /// its label by default.
    @Test func aRecordReadsAsItsLabelElseItsName() {
        #expect(FlowValue.record(["label": "Shirts", "name": "shirts"]).displayText == "Shirts")
        #expect(FlowValue.record(["name": "shirts", "id": 3]).displayText == "shirts")
        #expect(FlowValue.record(["id": 3]).displayText == FlowValue.record(["id": 3]).description)
    }
}
