import Testing
import CoordinatorCore

/// Navigation events as an AsyncSequence.
@Suite struct NavigationEventsTests {
    @Test func eventsArriveInOrderAndTheStreamEndsWithTheApp() async throws {
        var events: AsyncStream<NavigationEvent>
        do {
            let (app, root) = try Application.simple()
            events = app.navigationEvents()
            try root.push("A")
            try root.push("B")
            try app.back()
            struct Refused: Error {}
            _ = try? app.atomically { try root.push("C"); throw Refused() } // undone: never reported
        } // the app goes: its stream ends
        var seen: [String] = []
        for await event in events { seen.append(event.description) }
        #expect(seen.count == 3, "\(seen)")
        #expect(seen.first?.hasPrefix("push A#") == true && seen.last?.hasPrefix("system back: pop B#") == true, "\(seen)")
    }
}

extension NavigationEventsTests {
    /// A consumer that stops (leaves its loop) is dropped at the next event; the app goes on.
    @Test func aConsumerThatStopsIsDropped() async throws {
        let (app, root) = try Application.simple()
        let events = app.navigationEvents()
        try root.push("A")
        for await event in events {
            #expect(event.description.hasPrefix("push A#"))
            break
        }
        try root.push("B") // the observer sees that the stream ended and removes itself
        try root.push("C")
        #expect(app.window.visibleScreen?.name == "C")
    }
}

extension NavigationEventsTests {
    /// `observe` gives an observation to cancel, not a number to hand back; it does
    /// not keep the app alive, and cancelling again or after the app went does nothing.
    @Test func anObservationStopsWhenCancelled() throws {
        var seen: [String] = []
        let observation: NavigationObservation
        weak var gone: Application?
        do {
            let (app, root) = try Application.simple()
            gone = app
            observation = app.observe { seen.append($0.description) }
            try root.push("A")
            observation.cancel()
            try root.push("B")
            observation.cancel()
        }
        #expect(seen.count == 1 && seen.first?.hasPrefix("push A#") == true, "\(seen)")
        #expect(gone == nil)
        observation.cancel()
    }
}
