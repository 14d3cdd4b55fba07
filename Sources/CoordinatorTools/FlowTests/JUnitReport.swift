import CoordinatorScript

/// Flow test results as JUnit XML, which CI systems read (`coordrun test --junit FILE`): the format Jenkins'
/// JUnit plugin and Maven Surefire read (every count a `<testsuite>` has: tests, failures, errors,
/// skipped, time).
public enum JUnitReport {
    /// One `<testsuite>` per test file, one `<testcase>` per test: a `<failure>` for an expectation that did
    /// not hold, an `<error>` for a Lua error, each with the message and its place, or `<skipped/>`; what
    /// the test printed in `<system-out>`. `loadFailures` are files that could not be loaded, each
    /// reported as an errored test case named after the file.
    public static func xml(_ results: [FlowTestResult], loadFailures: [(file: String, message: String)] = []) -> String {
        var files: [String] = []
        var byFile: [String: [FlowTestResult]] = [:]
        for result in results {
            if byFile[result.test.file] == nil { files.append(result.test.file) }
            byFile[result.test.file, default: []].append(result)
        }
        func count(_ cases: [FlowTestResult], _ kind: (FlowTestResult.Outcome) -> Bool) -> Int { cases.filter { kind($0.outcome) }.count }
        let failed = { (o: FlowTestResult.Outcome) in if case .failed = o { true } else { false } }
        let errored = { (o: FlowTestResult.Outcome) in if case .error = o { true } else { false } }
        var suites = ""
        for file in files {
            let cases = byFile[file] ?? []
            let time = cases.reduce(0) { $0 + $1.seconds }
            suites += """
                  <testsuite name=\"\(attribute(file))\" tests=\"\(cases.count)\" \
                failures=\"\(count(cases, failed))\" errors=\"\(count(cases, errored))\" \
                skipped=\"\(count(cases, { $0 == .skipped }))\" time=\"\(seconds(time))\">\n
                """
            for result in cases {
                suites += """
                        <testcase name=\"\(attribute(result.test.name))\" classname=\"\(attribute(file))\" \
                    file=\"\(attribute(file))\" line=\"\(result.test.line)\" time=\"\(seconds(result.seconds))\"
                    """
                var body = ""
                switch result.outcome {
                case .passed: break
                case .skipped: body += "      <skipped/>\n"
                case .failed(let message, let location): body += problem("failure", type: "expectation", message, at: location)
                case .error(let message, let location): body += problem("error", type: "error", message, at: location)
                }
                if !result.output.isEmpty { body += "      <system-out>\(escape(result.output))</system-out>\n" }
                suites += body.isEmpty ? "/>\n" : ">\n" + body + "    </testcase>\n"
            }
            suites += "  </testsuite>\n"
        }
        for failure in loadFailures {
            suites += "  <testsuite name=\"\(attribute(failure.file))\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n"
            suites += "    <testcase name=\"(loading the file)\" classname=\"\(attribute(failure.file))\" file=\"\(attribute(failure.file))\" time=\"0.000\">\n"
            suites += problem("error", type: "load", failure.message, at: nil)
            suites += "    </testcase>\n  </testsuite>\n"
        }
        let total = results.count + loadFailures.count
        let time = results.reduce(0) { $0 + $1.seconds }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + """
                <testsuites tests=\"\(total)\" failures=\"\(count(results, failed))\" \
                errors=\"\(count(results, errored) + loadFailures.count)\" \
                skipped=\"\(count(results, { $0 == .skipped }))\" time=\"\(seconds(time))\">\n
                """
            + suites + "</testsuites>\n"
    }

    /// A `<failure>` or `<error>` element: the message's first line as its attribute, the place and the whole
    /// message as its text.
    private static func problem(_ element: String, type: String, _ message: String, at location: String?) -> String {
        "      <\(element) message=\"\(attribute(message.firstLine))\" type=\"\(type)\">\(escape((location.map { $0 + ": " } ?? "") + message))</\(element)>\n"
    }

    static func seconds(_ value: Double) -> String {
        let milliseconds = Int((value * 1000).rounded())
        return "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - String(milliseconds % 1000).count))\(milliseconds % 1000)"
    }

    /// Text for XML content (``Markup/text(_:)``).
    static func escape(_ text: String) -> String { Markup.text(text) }

    /// Text for an XML attribute's value (``Markup/attribute(_:)``).
    static func attribute(_ text: String) -> String { Markup.attribute(text) }
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
