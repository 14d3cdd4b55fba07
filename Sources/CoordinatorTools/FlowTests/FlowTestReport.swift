import CoordinatorScript

/// Flow test results as a summary line and as JSON (`coordrun test --json FILE`), for tools that read
/// neither text nor JUnit.
package enum FlowTestReport {
    /// The counts of a run: what `coordrun test` prints last (`3 passed, 1 failed, 1 skipped`).
    package struct Summary: Sendable, Equatable {
        /// Tests whose every step and expectation held.
        package var passed = 0
        /// Tests that did not pass: failed expectations, errors and files that did not load.
        package var failed = 0
        /// Of ``failed``, those that stopped on an error (and files that did not load).
        package var errors = 0
        /// Tests declared with `skip(...)`.
        package var skipped = 0

        /// The counts of `results`, with `loadFailures` files that did not load.
        package init(_ results: [FlowTestResult], loadFailures: Int = 0) {
            for result in results {
                switch result.outcome {
                case .passed: passed += 1
                case .failed: failed += 1
                case .error: (failed, errors) = (failed + 1, errors + 1)
                case .skipped: skipped += 1
                }
            }
            failed += loadFailures
            errors += loadFailures
        }

        /// `N passed, N failed` (with `, N skipped` when some were).
        package var text: String { "\(passed) passed, \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped" : "") }
    }

    /// The results as a JSON document (docs/schemas/coordrun-test.schema.json): `{"format": 1, "summary":
    /// {"passed", "failed", "errors", "skipped"}, "tests": [{"file", "line", "name", "outcome" ("passed",
    /// "failed", "error" or "skipped"), "message", "location", "seconds", "output"}, ...], "loadFailures":
    /// [{"file", "message"}, ...]}`. The summary's `failed` counts the tests whose expectations failed,
    /// `errors` those that stopped on an error and the files that did not load.
    package static func json(_ results: [FlowTestResult], loadFailures: [(file: String, message: String)] = []) -> String {
        let summary = Summary(results, loadFailures: loadFailures.count)
        let tests: [FlowValue] = results.map { result in
            var test: FlowRecord = [
                "file": .string(result.test.file), "line": .int(result.test.line), "name": .string(result.test.name),
                "seconds": .double(result.seconds), "output": .string(result.output),
            ]
            switch result.outcome {
            case .passed: test["outcome"] = "passed"
            case .skipped: test["outcome"] = "skipped"
            case .failed(let message, let location), .error(let message, let location):
                test["outcome"] = result.outcome == .failed(message: message, location: location) ? "failed" : "error"
                test["message"] = .string(message)
                if let location { test["location"] = .string(location) }
            }
            return .record(test)
        }
        let document: FlowValue = [
            "format": 1,
            "summary": ["passed": .int(summary.passed), "failed": .int(summary.failed - summary.errors), "errors": .int(summary.errors),
                        "skipped": .int(summary.skipped)],
            "tests": .list(tests),
            "loadFailures": .list(loadFailures.map { ["file": .string($0.file), "message": .string($0.message)] }),
        ]
        return document.prettyJSON + "\n"
    }
}
