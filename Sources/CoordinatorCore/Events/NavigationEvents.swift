import Synchronization

extension Application {
    /// Every event from now on, as an `AsyncSequence`: for a host on Swift concurrency that follows the app
    /// (`for await event in app.navigationEvents() { ... }`). Events of an operation arrive once it has
    /// succeeded, in order. Up to `limit` events wait for the consumer (the newest are kept). When the
    /// consumer stops (it leaves the loop, or its task is cancelled), the app drops its observer at the
    /// next event, on the app's own thread; when the app goes, the stream ends.
    ///
    /// ```swift
    /// let events = app.navigationEvents()
    /// try app.tap("selectCity")
    /// for await event in events { print(event) }   // pushed Regions#9, ...
    /// ```
    public func navigationEvents(bufferingNewest limit: Int = 1_000) -> AsyncStream<NavigationEvent> {
        let (stream, continuation) = AsyncStream<NavigationEvent>.makeStream(bufferingPolicy: .bufferingNewest(max(limit, 1)))
        let ended = StreamEnd()
        // The termination handler may run on any thread: it only sets the flag; the app's thread reads it.
        continuation.onTermination = { _ in ended.flag.store(true, ordering: .relaxed) }
        var observation: NavigationObservation?
        observation = observe { event in
            guard !ended.flag.load(ordering: .relaxed) else {
                observation?.cancel()
                return
            }
            continuation.yield(event)
        }
        if let token = observation?.token { context.events.onEnd(of: token) { continuation.finish() } } // the app goes: the stream ends
        return stream
    }
}

/// An observer of an app's events (``Application/observe(_:)``): cancel it to stop the calls. It does not
/// keep the app alive, and cancelling twice, or after the app went, does nothing.
public final class NavigationObservation {
    private weak var app: Application?
    let token: Int

    init(app: Application, token: Int) {
        self.app = app
        self.token = token
    }

    /// Stops the observer: its handler is not called again (not even for events already queued by an
    /// operation still running).
    public func cancel() {
        app?.context.events.remove(token)
        app = nil
    }
}

/// Whether an event stream's consumer stopped: set from any thread, read on the app's.
private final class StreamEnd: Sendable {
    let flag = Atomic<Bool>(false)
}
