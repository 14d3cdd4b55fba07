import CoordinatorScript

/// Flow test results as JUnit XML, which CI systems read (`coordrun test --junit FILE`).
public enum JUnitReport {
    /// One `<testsuite>` per test file, one `<testcase>` per test (a `<failure>` with the message and its
    /// place, or `<skipped/>`); `loadFailures` are files that could not be loaded, each reported as a failed
    /// test case named after the file.
    public static func xml(_ results: [FlowTestResult], loadFailures: [(file: String, message: String)] = []) -> String {
        var files: [String] = []
        var byFile: [String: [FlowTestResult]] = [:]
        for result in results {
            if byFile[result.test.file] == nil { files.append(result.test.file) }
            byFile[result.test.file, default: []].append(result)
        }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
        for file in files {
            let cases = byFile[file] ?? []
            let failures = cases.filter { if case .failed = $0.outcome { true } else { false } }.count
            let skipped = cases.filter { $0.outcome == .skipped }.count
            let time = cases.reduce(0) { $0 + $1.seconds }
            xml += "  <testsuite name=\"\(attribute(file))\" tests=\"\(cases.count)\" failures=\"\(failures)\" skipped=\"\(skipped)\" time=\"\(seconds(time))\">\n"
            for result in cases {
                xml += "    <testcase name=\"\(attribute(result.test.name))\" classname=\"\(attribute(file))\" file=\"\(attribute(file))\" line=\"\(result.test.line)\" time=\"\(seconds(result.seconds))\""
                switch result.outcome {
                case .passed: xml += "/>\n"
                case .skipped: xml += ">\n      <skipped/>\n    </testcase>\n"
                case .failed(let message, let location):
                    let first = message.firstLine
                    xml += ">\n      <failure message=\"\(attribute(first))\">\(escape((location.map { $0 + ": " } ?? "") + message))</failure>\n    </testcase>\n"
                }
            }
            xml += "  </testsuite>\n"
        }
        for failure in loadFailures {
            xml += "  <testsuite name=\"\(attribute(failure.file))\" tests=\"1\" failures=\"1\" skipped=\"0\">\n"
            xml += "    <testcase name=\"(loading the file)\" classname=\"\(attribute(failure.file))\">\n"
            xml += "      <failure message=\"\(attribute(failure.message.firstLine))\">\(escape(failure.message))</failure>\n"
            xml += "    </testcase>\n  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    static func seconds(_ value: Double) -> String {
        let milliseconds = Int((value * 1000).rounded())
        return "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - String(milliseconds % 1000).count))\(milliseconds % 1000)"
    }

    /// Text for XML content, scalar by scalar: the special characters escaped, a carriage return as a
    /// reference (a parser would turn CRLF into LF), the scalars XML 1.0 cannot hold (control characters,
    /// U+FFFE, U+FFFF) as `?`. A parser reads back the text, those scalars as `?`.
    static func escape(_ text: String) -> String { escape(text, attribute: false) }

    /// Text for an XML attribute's value: as ``escape(_:)``, and line feeds and tabs as references (a
    /// parser turns them into spaces in an attribute).
    static func attribute(_ text: String) -> String { escape(text, attribute: true) }

    private static func escape(_ text: String, attribute: Bool) -> String {
        text.replacingScalars { scalar in
            switch scalar {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\"": "&quot;"
            case "'": "&apos;"
            case "\r": "&#13;"
            case "\n": attribute ? "&#10;" : nil
            case "\t": attribute ? "&#9;" : nil
            case "\u{FFFE}", "\u{FFFF}": "?"
            default: scalar.value < 32 ? "?" : nil
            }
        }
    }
}

extension String {
    /// Its first line that is not empty, to its line feed (by scalars: a CRLF is one Character, which
    /// Character-wise splitting would not cut): what a report shows as a message's summary.
    var firstLine: String {
        String(String.UnicodeScalarView(unicodeScalars.drop { $0 == "\n" }.prefix { $0 != "\n" }))
    }

    /// The text with each scalar that `replacement` gives text for replaced by it (the others kept).
    func replacingScalars(_ replacement: (Unicode.Scalar) -> String?) -> String {
        var out = ""
        for scalar in unicodeScalars {
            if let text = replacement(scalar) { out += text } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }
}
