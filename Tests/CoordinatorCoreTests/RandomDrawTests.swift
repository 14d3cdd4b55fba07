import Testing
import CoordinatorCore

/// Random draws (`Application.draw(in:)`): made in a step, recorded with it, given back by a replay.
@Suite struct RandomDrawTests {
    @Test func aLiveDrawIsRecordedWithItsStepAndAReplayDrawsTheSame() throws {
        let (app, root) = try Application.simple()
        var drawn: [Int] = []
        try root.push("A").on("next") { [unowned app] _ in drawn.append(try app.draw(in: 1...6)) }
        for _ in 1...30 { try app.tap("next") }
        #expect(drawn.allSatisfy { (1...6).contains($0) })
        #expect(Set(drawn).count > 1, "30 draws from 1 to 6 are not all one value")
        #expect(app.steps == drawn.map { UserStep.drawn(.tap("next", payload: nil), values: [$0]) })
        // The recorded steps give their values back.
        let (again, root2) = try Application.simple()
        var replayed: [Int] = []
        try root2.push("A").on("next") { [unowned again] _ in replayed.append(try again.draw(in: 1...6)) }
        for step in app.steps { try again.perform(step) }
        #expect(replayed == drawn)
        #expect(again.steps == app.steps)
    }

    @Test func withDrawsNotLiveAValueMustBeGivenAndEachIsCheckedAgainstItsRange() throws {
        let (app, root) = try Application.simple()
        app.draws.live = false
        try root.push("A").on("next") { [unowned app, unowned root] _ in _ = try root.push("B", inputs: ["value": .int(try app.draw(in: 2...4))]) }
        let missing = navigationError { try app.tap("next") }
        #expect(missing?.code == .badDraw && missing?.message.contains("no value given") == true)
        #expect(app.draws.needed == 2...4)
        #expect(app.names == ["A"] && app.steps.isEmpty) // the step was undone
        app.draws.give([5])
        #expect(navigationError { try app.tap("next") }?.message == "random(5) was given for a draw from 2 to 4")
        app.draws.give([3])
        try app.tap("next")
        #expect(app.names == ["A", "B"])
        #expect(app.steps == [.drawn(.tap("next", payload: nil), values: [3])])
    }

    @Test func aDrawOutsideAStepOrAmongMoreThan64ValuesIsAnError() throws {
        let (app, root) = try Application.simple()
        #expect(navigationError { _ = try app.draw(in: 1...6) }?.message.contains("in a step the user takes") == true)
        let screen = try root.push("A")
        try screen.on("next") { [unowned app] _ in _ = try app.draw(in: 1...65) }
        try screen.on("done") { [unowned app] _ in _ = try app.draw(in: Int.min...Int.max) }
        #expect(navigationError { try app.tap("next") }?.message.contains("at most 64 values, not 65") == true)
        let huge = navigationError { try app.tap("done", payload: 1) }
        #expect(huge?.message.contains("at most 64 values, not more") == true, "\(String(describing: huge))")
        #expect(app.steps.isEmpty)
    }

    /// A recorded step must draw every value recorded with it: one that draws fewer (its code changed) fails,
    /// and the app is as before.
    @Test func aRecordedStepThatDrawsFewerValuesFails() throws {
        let (app, root) = try Application.simple()
        try root.push("A").on("next") { [unowned app] _ in _ = try app.draw(in: 1...6) }
        let error = navigationError { try app.perform(.drawn(.tap("next", payload: nil), values: [2, 5])) }
        #expect(error?.message == "the step drew 1 of the 2 random values recorded with it")
        #expect(app.steps.isEmpty && app.draws.given.isEmpty)
    }
}
