import Testing
import CoordinatorCore

/// FlowValue as JSON (what snapshots are written in).
@Suite struct JSONTests {
    @Test func valuesRoundTrip() throws {
        let value: FlowValue = ["name": "Ann \"A\"\n\\ é 😀", "visits": [1, 2.5, -3, 1e300, true, false], "empty": [:], "none": [],
                                "control": "\u{1}\t", "nested": [["a": [[1]]]], "whole": 2.0]
        #expect(try FlowValue(json: value.json) == value)
        #expect(try FlowValue(json: value.prettyJSON) == value)
        #expect(try FlowValue(json: FlowValue.double(.infinity).json) == .double(.infinity))
        #expect(try FlowValue(json: #"{"$double": "-inf"}"#) == .double(-.infinity))
        #expect(try FlowValue(json: FlowValue.double(.nan).json).doubleValue?.isNaN == true)
        #expect(FlowValue.double(2).json == "2.0" && FlowValue.int(2).json == "2")
        #expect(try FlowValue(json: #" "\u00e9\ud83d\ude00\/" "#) == "é😀/")
    }

    @Test func mistakesAreErrorsWithTheirPlace() {
        for (text, message) in [
            ("", "JSON 1:1: a value is missing"),
            ("[1,\n 2", "JSON 2:3: the array is not closed"),
            (#"{"a": 1, "a": 2}"#, #"the key "a" appears twice"#),
            ("null", "null has no value here"),
            ("[1] 2", "unexpected text after the value"),
            (#""\x""#, "unknown escape"),
            ("\"\u{1}\"", "a control character inside a string"),
            ("-", "unexpected character"),
            (String(repeating: "[", count: 201) + String(repeating: "]", count: 201), "nested deeper than 200 levels"),
        ] {
            #expect(throws: JSONError.self) { _ = try FlowValue(json: text) }
            do { _ = try FlowValue(json: text) } catch { #expect(error.message.contains(message), "\(text): \(error.message)") }
        }
        #expect(throws: Never.self) { _ = try FlowValue(json: String(repeating: "[", count: 200) + String(repeating: "]", count: 200)) }
    }
}
