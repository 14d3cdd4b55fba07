/// The app's random draws (``Application/draw(in:)``): choices the user cannot make, made while a step runs,
/// and recorded with it (``UserStep/drawn(_:values:)``), so that a replay of the steps draws the same.
///
/// A draw takes the first value given for it (a flow test's `random(k)`, a recorded step's draws), else,
/// when draws are ``live`` (run mode, the REPL, the preview), a value from the system's generator; with
/// neither it fails, noting the range it needed (exploration takes each of its values as a branch).
package final class RandomDraws {
    /// The most values one draw chooses among: exploration takes each as a branch.
    package static let mostValues = 64

    /// Whether a draw with no value given takes one from the system's generator.
    package var live = true
    /// The values given for the next draws, first first.
    package private(set) var given: [Int] = []
    /// The values drawn in the step running now, in order (recorded with it).
    private(set) var taken: [Int] = []
    /// The range of the last draw of the running step that failed for want of a value given.
    package private(set) var needed: ClosedRange<Int>?
    /// How deep in steps the app is (a step may take others: a link's taps).
    private var stepDepth = 0
    /// Hears every value drawn (a REPL keeps each line's draws, for time travel to give them again).
    package var observer: ((Int) -> Void)?

    init() {}

    /// Gives `values` to the next draws, after those given already.
    package func give(_ values: [Int]) { given.append(contentsOf: values) }

    /// Forgets the values given and not drawn.
    package func forgetGiven() { given.removeAll() }

    /// A value from `range`: the first given, else (``live``) a random one.
    func draw(in range: ClosedRange<Int>) throws -> Int {
        guard stepDepth > 0 else {
            throw NavigationError(.badDraw, """
                a random draw is made in a step the user takes (a handler, a timer, an answer), not while the app \
                starts or between steps
                """)
        }
        let (span, overflow) = range.upperBound.subtractingReportingOverflow(range.lowerBound)
        guard !overflow, span < Self.mostValues else {
            throw NavigationError(.badDraw, """
                a random draw chooses among at most \(Self.mostValues) values, not \
                \(overflow ? "more" : String(span + 1)) (\(range.lowerBound) to \(range.upperBound)): exploration \
                takes each as a branch
                """)
        }
        let value: Int
        if !given.isEmpty {
            value = given.removeFirst()
            guard range.contains(value) else {
                throw NavigationError(.badDraw, "random(\(value)) was given for a draw from \(range.lowerBound) to \(range.upperBound)")
            }
        } else if live {
            value = Int.random(in: range)
        } else {
            needed = range
            throw NavigationError(.badDraw, """
                a random draw from \(range.lowerBound) to \(range.upperBound) with no value given: give it with \
                random(k) before the step
                """)
        }
        taken.append(value)
        observer?(value)
        return value
    }

    /// Runs a step: the draws it makes are noted for its record (``taken``), and what it needed is fresh.
    func duringStep<T>(_ body: () throws -> T) rethrows -> T {
        if stepDepth == 0 { (taken, needed) = ([], nil) }
        stepDepth += 1
        defer { stepDepth -= 1 }
        return try body()
    }

    /// Runs `body` with exactly `values` given to its draws: it must draw them all (a recorded step drew
    /// them). The values given before come back after it.
    func giving<T>(_ values: [Int], _ body: () throws -> T) throws -> T {
        let before = given
        given = values
        defer { given = before }
        let result = try body()
        guard given.isEmpty else {
            throw NavigationError(.badDraw, "the step drew \(values.count - given.count) of the \(values.count) random values recorded with it")
        }
        return result
    }
}
