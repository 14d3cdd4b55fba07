import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import PropertyBased
import CoordinatorScript
@testable import CoordinatorTools
import TestSupport

/// What the tools write for other programs escapes scalar by scalar, never by Character (a quote with a
/// combining accent is one Character and still a quote): the graph's DOT and Mermaid labels, JUnit's XML,
/// the findings' Lua.
@Suite struct WriterEscapingTests {
    /// Text built from what breaks writers: quotes (alone and with a combining accent), backslashes, CRLF,
    /// control characters, entity-looking text, XML's forbidden scalars, non-ASCII.
    static let awkward = Gen.int(in: 0...15).array(of: 0...6).map { parts in
        parts.map { ["\"", "\"\u{301}", "\\", "\r\n", "\n", "\0", "#35;", "<a>", "|", "\u{FFFE}", "\u{FFFF}", "é", "🙂", "a", " ", "&"][$0] }.joined()
    }

    /// What a label shows: control characters as spaces, U+FFFE and U+FFFF as U+FFFD.
    static func shown(_ text: String) -> String {
        text.replacingScalars { scalar in
            switch scalar {
            case "\u{FFFE}", "\u{FFFF}": "\u{FFFD}"
            default: scalar.value < 32 || scalar.value == 127 ? " " : nil
            }
        }
    }

    @Test func dotLabelsKeepEveryQuoteEscapedAndReadBack() async {
        await checkProperty(count: 400, input: Self.awkward) { text in
            let escaped = FlowGraph.dotEscaped(text)
            // Read back as dot reads a quoted string: a backslash takes the next scalar as it is.
            var read = "", pendingBackslash = false
            for scalar in escaped.unicodeScalars {
                if pendingBackslash { read.unicodeScalars.append(scalar); pendingBackslash = false; continue }
                if scalar == "\\" { pendingBackslash = true; continue }
                #expect(scalar != "\"", "an unescaped quote in \(escaped.debugDescription)")
                #expect(scalar.value >= 32, "a control character in \(escaped.debugDescription)")
                read.unicodeScalars.append(scalar)
            }
            #expect(!pendingBackslash)
            #expect(read.unicodeScalars.elementsEqual(Self.shown(text).unicodeScalars))
        }
    }

    @Test func mermaidLabelsHoldNoQuoteAndReadBack() async {
        let entities = ["#quot;": "\"", "#35;": "#", "#lt;": "<", "#gt;": ">", "#124;": "|"]
        await checkProperty(count: 400, input: Self.awkward) { text in
            let escaped = FlowGraph.mermaidEscaped(text)
            for scalar in escaped.unicodeScalars {
                #expect(!["\"", "<", ">", "|"].contains(scalar) && scalar.value >= 32, "\(escaped.debugDescription)")
            }
            // Entities read back left to right (every `#` starts one), scalar by scalar.
            var read = String.UnicodeScalarView(), rest = Array(escaped.unicodeScalars)[...]
            while let first = rest.first {
                guard first == "#" else { read.append(first); rest = rest.dropFirst(); continue }
                let entity = try #require(entities.keys.first { rest.starts(with: $0.unicodeScalars) })
                read.append(contentsOf: (entities[entity] ?? "").unicodeScalars)
                rest = rest.dropFirst(entity.unicodeScalars.count)
            }
            let readBack = String(read)
            #expect(readBack.unicodeScalars.elementsEqual(Self.shown(text).unicodeScalars))
        }
    }

    /// Graphviz's dot (which scripts/ensure-deps installs) takes every label and writes SVG.
    @Test func dotRendersAwkwardLabels() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/dot"), "graphviz's dot is not installed")
        let labels = ["\"\u{301}] [label=x", "a\\", "\r\n\u{FFFE}", "<a xlink:href=\"x\">", "#35;|"]
        let dot = "digraph g {\n" + labels.enumerated().map { "  n\($0) [label=\"\(FlowGraph.dotEscaped($1))\"];" }.joined(separator: "\n") + "\n}\n"
        let outcome = try Programs.run("/usr/bin/dot", ["-Tsvg"], input: dot)
        #expect(outcome.status == 0, "\(outcome.err)")
        #expect(!outcome.out.contains("xlink:href=\"x\""), "\(outcome.out)")
        #expect(outcome.out.components(separatedBy: "<text").count == labels.count + 1)
    }

    @Test func junitHoldsOnlyWhatXMLAllows() throws {
        let test = FlowTest(name: "a\u{FFFE}b\u{FFFF}\u{1}\"<&", file: "x_test.lua", line: 1, isSkipped: false)
        let xml = JUnitReport.xml([FlowTestResult(test: test, outcome: .failed(message: "m\u{FFFF}", location: nil), seconds: 0)])
        #expect(!xml.unicodeScalars.contains { $0 == "\u{FFFE}" || $0 == "\u{FFFF}" || $0.value == 1 })
        #expect(xml.contains("name=\"a?b??&quot;&lt;&amp;\""), "\(xml)")
    }

    /// The findings' test file loads whatever the messages and payloads hold (and a snapshot base with
    /// CRLF line ends).
    @Test func theFindingsTestFileAlwaysLoads() async throws {
        let runtime = try ScriptRuntime()
        await checkProperty(count: 200, input: zip(Self.awkward, Self.awkward)) { message, payload in
            var report = ExploreReport(script: "app.lua", base: Explorer.StateSeen(key: "k", viewed: false, screen: "S", title: nil, owner: "", modal: nil, tab: nil, gateway: "authorization", shownTypes: []), limits: Explorer.Options())
            report.addError(message + "\r\nmore", path: [.tap(payload, payload: .string(payload)), .open(payload)])
            for base: Explorer.Options.Base in [.start, .snapshot("{\r\n\"x\": \"" + payload + "\"\r\n}")] {
                let source = report.testFile(app: "/tmp/app\"\u{301}.lua", base: base, preamble: ["X = " + LuaSyntax.quoted(payload)])
                _ = try runtime.lua.load(source, name: "=findings")
            }
        }
    }
}

/// The writers' output read back by independent parsers (Foundation's XML and JSON readers): it parses, and
/// it holds the same text, whatever the text.
@Suite struct WriterReadBackTests {
    /// Awkward text, and any scalars at all.
    static let text = zip(WriterEscapingTests.awkward, Gen.int(in: 0...0x10FFFF).array(of: 0...8)).map { awkward, codes in
        awkward + String(String.UnicodeScalarView(codes.map { Unicode.Scalar(UInt32($0)) ?? "\u{FFFD}" }))
    }

    /// XML 1.0 holds every scalar but the control characters other than tab, LF and CR, and U+FFFE, U+FFFF.
    static func xmlText(_ text: String) -> String {
        text.replacingScalars { scalar in
            (scalar.value < 32 && !["\t", "\n", "\r"].contains(scalar)) || scalar == "\u{FFFE}" || scalar == "\u{FFFF}" ? "?" : nil
        }
    }

    /// The attributes and text of every element, as a parser reads them.
    final class Reader: NSObject, XMLParserDelegate {
        var elements: [(name: String, attributes: [String: String], text: String)] = []
        var open: [Int] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            open.append(elements.count)
            elements.append((name, attributes, ""))
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) { open.removeLast() }
        func parser(_ parser: XMLParser, foundCharacters string: String) { if let i = open.last { elements[i].text += string } }
    }

    @Test func junitParsesAndReadsBackEveryNameAndMessage() async throws {
        await checkProperty(count: 300, input: zip(Self.text, Self.text, Self.text)) { name, message, file in
            let test = FlowTest(name: name, file: file + "_test.lua", line: 3, isSkipped: false)
            let results = [FlowTestResult(test: test, outcome: .failed(message: message + "\r\nsecond line", location: "x_test.lua:3"), seconds: 0.5)]
            let xml = JUnitReport.xml(results, loadFailures: [(file: file, message: message)])
            let reader = Reader()
            let parser = XMLParser(data: Data(xml.utf8))
            parser.delegate = reader
            #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "") in \(xml.debugDescription)")
            let cases = reader.elements.filter { $0.name == "testcase" }, failures = reader.elements.filter { $0.name == "failure" }
            let errors = reader.elements.filter { $0.name == "error" }
            #expect(cases.first?.attributes["name"] == Self.xmlText(name))
            #expect(cases.first?.attributes["file"] == Self.xmlText(file + "_test.lua"))
            #expect(failures.first?.text == Self.xmlText("x_test.lua:3: " + message + "\r\nsecond line"))
            #expect(failures.first?.attributes["message"] == Self.xmlText((message + "\r\nsecond line").firstLine))
            #expect(errors.last?.text == Self.xmlText(message)) // a file that did not load is an error
            #expect(reader.elements.filter { $0.name == "testsuite" }.last?.attributes["name"] == Self.xmlText(file))
        }
    }

    @Test func jsonParsesAndReadsBackEveryString() async throws {
        await checkProperty(count: 300, input: zip(Self.text, Self.text)) { key, value in
            let document: FlowValue = [key: [.string(value), .double(0.1), .int(-7)], "x": .string(key)]
            for text in [document.json, document.prettyJSON] {
                let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                #expect((parsed[key] as? [Any])?.first as? String == value, "\(text.debugDescription)")
                #expect(parsed["x"] as? String == key)
                #expect(try FlowValue(json: text) == document)
            }
        }
    }

    @Test func sarifParsesAndReadsBackEveryMessage() async throws {
        await checkProperty(count: 200, input: zip(Self.text, Self.text)) { message, payload in
            var report = ExploreReport(script: "app.lua", base: Explorer.StateSeen(key: "k", viewed: false, screen: "S", title: nil, owner: "", modal: nil, tab: nil, gateway: "authorization", shownTypes: []), limits: Explorer.Options())
            report.addError(message, path: [.tap("go", payload: .string(payload))])
            let text = ExploreSARIF.document(report, script: "app.lua", folder: "/tmp").prettyJSON
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let runs = try #require(parsed["runs"] as? [[String: Any]])
            let results = try #require(runs.first?["results"] as? [[String: Any]])
            let shown = try #require((results.first?["message"] as? [String: Any])?["text"] as? String)
            #expect(shown == message.firstLine + "\nafter: " + UserStep.tap("go", payload: .string(payload)).luaSource, "\(shown.debugDescription)")
        }
    }
}
