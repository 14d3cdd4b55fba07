#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CoordinatorScript
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A test a test file declares: `test("login, then pick a city", function() ... end)`.
public struct FlowTest: Sendable, Equatable {
    /// Its name: as written, or with its place among the tests of that name after it when the file
    /// declares several (`login [2]`, `login [3]`: tests declared in a loop; the first keeps the name), so
    /// that every report names each test apart.
    public let name: String
    /// Its name as written in `test(...)`.
    package let declaredName: String
    /// The test file.
    public let file: String
    /// The line its function starts on.
    public let line: Int
    /// Declared with `skip(...)` instead of `test(...)`: listed, not run.
    public let isSkipped: Bool
    /// Its place among the file's tests, from 0: tests of one name declared on one line (in a loop) are
    /// told apart by it.
    package let index: Int

    /// The `index`-th test of `file`, named `name` (declared as `declaredName`, when that differs), declared
    /// at `line` (skipped when `isSkipped`).
    package init(name: String, declaredName: String? = nil, file: String, line: Int, isSkipped: Bool, index: Int = 0) {
        (self.name, self.file, self.line, self.isSkipped, self.index) = (name, file, line, isSkipped, index)
        self.declaredName = declaredName ?? name
    }

    /// The tests of `file` as `declared` lists them, each with a name of its own (``name``).
    static func named(_ declared: [(name: String, line: Int, skipped: Bool)], file: String) -> [FlowTest] {
        var taken = Set(declared.map(\.name)), seen: [String: Int] = [:]
        return declared.enumerated().map { i, test in
            seen[test.name, default: 0] += 1
            var name = test.name
            if let count = seen[test.name], count > 1 {
                var place = count
                while taken.contains("\(test.name) [\(place)]") { place += 1 }
                name = "\(test.name) [\(place)]"
                taken.insert(name)
            }
            return FlowTest(name: name, declaredName: test.name, file: file, line: test.line, isSkipped: test.skipped, index: i)
        }
    }
}

/// What running a test gave.
public struct FlowTestResult: Sendable {
    /// How it ended.
    public enum Outcome: Sendable, Equatable {
        /// Every step and expectation held, and the lifecycle oracle found nothing.
        case passed
        /// An expectation did not hold (or the lifecycle oracle found something): the message, with the
        /// place in the test file it points to (`app_test.lua:12`) when known.
        case failed(message: String, location: String?)
        /// The test stopped on an error that is no expectation's (a Lua error in its body or in the app's
        /// handler, a step the app refused, a time limit): the message with its traceback, and the place.
        case error(message: String, location: String?)
        /// Declared with `skip(...)`: not run.
        case skipped

        /// The message and place of a test that did not pass (``failed(message:location:)`` or
        /// ``error(message:location:)``), else nil.
        public var failure: (message: String, location: String?)? {
            switch self {
            case .failed(let message, let location), .error(let message, let location): (message, location)
            case .passed, .skipped: nil
            }
        }
    }

    /// The test.
    public let test: FlowTest
    /// How it ended.
    public let outcome: Outcome
    /// How long it ran, in seconds (its app's load and start included).
    public let seconds: Double
    /// What it reached of its app (nil when it did not run, or its app did not load).
    package var coverage: FlowCoverage? = nil
    /// What it printed with `print` (its app's handlers included), at most ``FlowTests/maximumOutput``
    /// bytes.
    public var output: String = ""
}

/// Headless flow tests: test files (`*_test.lua`) that name the app they drive (`app "app.lua"`) and
/// declare tests (`test(name, function() ... end)`), whose steps drive the app (`tap`, `back`, `tab`) and
/// check it (`expect.screen`, `expect.stack`, ...). docs/Testing.md is the guide; `coordrun test` runs them.
///
/// Each test starts from a fresh app: the file is loaded again in a new runtime, so nothing leaks from one
/// test to the next. Driving is strict: a tap that no handler hears, an output the screen does not have and
/// a screen that does not render fail the test.
///
/// ```swift
/// let results = try FlowTests.run("scripts/app_test.lua") { result in print(result.test.name, result.outcome) }
/// ```
public enum FlowTests {
    /// The tests `file` declares (its app is loaded and started once to read them).
    public static func list(_ file: String) throws -> [FlowTest] { try list(file, prepare: nil) }

    static func list(_ file: String, prepare: ((ScriptRuntime) throws -> Void)?) throws -> [FlowTest] {
        FlowTest.named(try TestHarness(file: file, prepare: prepare).declared.map { ($0.name, $0.line, $0.skipped) }, file: file)
    }

    /// Runs the tests of `file` that `include` selects, in the order written, each as in a fresh runtime
    /// (the runtime is used again while a test leaves no trace in its state, its app started again);
    /// `report` hears each result as it comes. With `failFast`, stops after the first failure. Throws when
    /// the file itself cannot be loaded (a syntax error, its app failing to start).
    ///
    /// After each test the lifecycle oracle checks that no finished coordinator and no screen that left is
    /// still alive, and that running coordinators show a screen (`LifecycleOracle`); with
    /// `strictLifecycle`, after every step too.
    ///
    /// A test that runs longer than `timeLimit` seconds (its steps; `nil`: no limit) fails with "timed out";
    /// a file whose top level (its app's load and start included) runs longer does not load.
    ///
    /// Each test's runtime runs under `limits` (the sandbox, memory and instruction limits).
    @discardableResult
    public static func run(_ file: String, include: (FlowTest) -> Bool = { _ in true }, failFast: Bool = false,
                           strictLifecycle: Bool = false, timeLimit: Double? = nil, limits: RuntimeLimits = RuntimeLimits(),
                           report: (FlowTestResult) -> Void = { _ in }) throws -> [FlowTestResult] {
        try run(file, include: include, failFast: failFast, strictLifecycle: strictLifecycle, timeLimit: timeLimit, limits: limits,
                prepare: nil, report: report)
    }

    /// ``run(_:include:failFast:strictLifecycle:timeLimit:limits:report:)`` with each test's runtime readied by
    /// `prepare` before anything runs in it (exploration's reproductions run silent, as it explored).
    static func run(_ file: String, include: (FlowTest) -> Bool = { _ in true }, failFast: Bool = false,
                    strictLifecycle: Bool = false, timeLimit: Double? = nil, limits: RuntimeLimits = RuntimeLimits(),
                    prepare: ((ScriptRuntime) throws -> Void)?,
                    report: (FlowTestResult) -> Void = { _ in }) throws -> [FlowTestResult] {
        // The harness that lists the tests is a fresh app no test has touched: the first test runs in it, and
        // the next ones too while each test leaves no trace in its state (else a new harness loads the file).
        let listed = Clock.now()
        let listing = try TestHarness(file: file, strictLifecycle: strictLifecycle, timeLimit: timeLimit, limits: limits, prepare: prepare)
        let tests = FlowTest.named(listing.declared.map { ($0.name, $0.line, $0.skipped) }, file: file)
        let harnesses = FreshHosts(make: {
            try TestHarness(file: file, strictLifecycle: strictLifecycle, timeLimit: timeLimit, limits: limits, prepare: prepare)
        }, runtime: { $0.runtime }, identity: { try $0.identity() }, reset: { try $0.restart() })
        try harnesses.adopt(listing)
        defer { harnesses.close() }
        var first = true
        var results: [FlowTestResult] = []
        for (index, test) in tests.enumerated() where include(test) {
            let result: FlowTestResult
            if test.isSkipped {
                result = FlowTestResult(test: test, outcome: .skipped, seconds: 0)
            } else {
                let start = first ? listed : Clock.now()
                first = false
                var outcome = FlowTestResult.Outcome.passed
                var harness: TestHarness?
                do {
                    harness = try harnesses.next()
                    try harness?.run(index, named: test.declaredName, timeLimit: timeLimit)
                } catch {
                    outcome = self.outcome(of: error, in: file, test: test, harness: harness)
                }
                result = FlowTestResult(test: test, outcome: outcome, seconds: Clock.now() - start, coverage: harness?.coverage,
                                        output: harness?.output ?? "")
                if let harness { harnesses.done(harness) }
            }
            results.append(result)
            report(result)
            if failFast, result.outcome.failure != nil { break }
        }
        return results
    }

    /// The most a test's ``FlowTestResult/output`` keeps (1 MiB); past it, the rest is cut and it says so.
    package static let maximumOutput = 1 << 20

    /// How a test that threw ended: a failed expectation or a lifecycle violation is a failure, shown as
    /// its one line (`app_test.lua:12: visible screen: expected "Regions", got "Login"`); anything else
    /// is an error, with the traceback that leads to it.
    static func outcome(of error: any Error, in file: String, test: FlowTest, harness: TestHarness?) -> FlowTestResult.Outcome {
        if let violation = error as? LifecycleViolation {
            return .failed(message: violation.message, location: "\(file):\(test.line)")
        }
        let place = location(of: error, in: file, test: test)
        if let lua = error as? LuaError, harness?.isExpectationFailure(lua.message) == true {
            return .failed(message: message(lua.message, without: place, of: file), location: place)
        }
        return .error(message: message(REPL.message(for: error), without: place, of: file), location: place)
    }

    /// The place in the test file a failure points to: the innermost frame of the test file in the
    /// message and traceback (an expectation fails at its own line; an error in the app's handler is
    /// found through the traceback at the step that caused it), else the test's first line.
    /// (Lua shortens long chunk names to `.../end/of/path`, so the file is found by the end of its path.)
    static func location(of error: any Error, in file: String, test: FlowTest) -> String {
        let text = (error as? LuaError).map { [$0.message, $0.traceback ?? ""].joined(separator: "\n") } ?? "\(error)"
        let name = "/" + (file.split(separator: "/").last.map(String.init) ?? file) + ":"
        var rest = Substring(text)
        while let range = rest.firstRange(of: name) ?? rest.firstRange(of: String(name.dropFirst())) {
            let digits = rest[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty { return file + ":" + digits }
            rest = rest[range.upperBound...]
        }
        return "\(file):\(test.line)"
    }

    /// The message without its own `path:line: ` in front when that is the test file's `place` (it is
    /// shown beside the message already).
    static func message(_ message: String, without place: String, of file: String) -> String {
        guard let line = place.split(separator: ":").last else { return message }
        let name = (file.split(separator: "/").last.map(String.init) ?? file) + ":" + line + ": "
        let firstLine = message.prefix { $0 != "\n" }
        guard let range = firstLine.firstRange(of: name), !firstLine[..<range.lowerBound].contains(" ") else { return message }
        return String(message[range.upperBound...])
    }
}

/// Seconds on the monotonic clock: test durations, exploration's time limit and rate.
enum Clock {
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

extension FlowTests {
    /// The tests a test file declares (see ``list(_:)-(String)``).
    public static func list(_ url: URL) throws -> [FlowTest] { try list(ScriptRuntime.path(of: url)) }

    /// Runs a test file's tests (see ``run(_:include:failFast:strictLifecycle:timeLimit:limits:report:)``).
    @discardableResult
    public static func run(_ url: URL, include: (FlowTest) -> Bool = { _ in true }, failFast: Bool = false,
                           strictLifecycle: Bool = false, timeLimit: Double? = nil,
                           report: (FlowTestResult) -> Void = { _ in }) throws -> [FlowTestResult] {
        try run(ScriptRuntime.path(of: url), include: include, failFast: failFast, strictLifecycle: strictLifecycle,
                timeLimit: timeLimit, report: report)
    }
}
