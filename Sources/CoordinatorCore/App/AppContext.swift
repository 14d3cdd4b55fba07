/// Counts of live objects, for leak checks.
public final class LiveObjects {
    /// Coordinators of the app that are still in memory (running, or held by someone after they finished).
    public internal(set) var coordinators = 0
    /// Screens of the app that are still in memory.
    public internal(set) var screens = 0
}

/// What every object of an app shares: the operation journal, the event stream, the ids, the live counts,
/// and a way back to the application while it exists.
///
/// **Ownership.** The application owns its window and its coordinator tree; every screen, container,
/// coordinator and router owns the context, and the context owns none of them. So nothing in the app keeps
/// the application alive, no object needs a weak reference to reach the journal (weak references give
/// their target a side table, which makes every retain and release of it slow), and a screen or a
/// coordinator kept after its application is gone still has a context that says so.
final class AppContext {
    /// The log of the running operation (see ``Journal``).
    let journal = Journal()
    /// Who observes the app's events.
    let events = EventBus()
    let live = LiveObjects()
    /// The outputs no handler heard (``Application/unheard``).
    var unheard = UnheardOutputs()
    var unheardSignals = UnheardSignals()
    /// Weak references to the objects made, when a lifecycle check asked for them.
    var tracker: ObjectTracker?
    /// How messages write data that has no name (``Application/dataNotation``).
    var notation: (FlowValue) -> String = \.description
    private var idCounter = 0

    /// The application, while it exists: read only through ``application``, which checks ``isAlive``.
    private unowned(unsafe) var app: Application? // SAFETY[app-alive]
    /// Whether the application still exists.
    private(set) var isAlive = false

    init() {}

    func attach(_ app: Application) {
        self.app = app
        isAlive = true
    }

    /// Called by `Application.deinit`: from now on ``application`` is nil.
    func applicationDidEnd() {
        isAlive = false
        app = nil
    }

    /// The application, or nil once it is gone.
    var application: Application? { isAlive ? app : nil }

    /// The application, or the error every operation on an object of a gone application gives.
    func liveApplication(_ what: @autoclosure () -> String) throws -> Application {
        guard isAlive, let app else { throw NavigationError(.notRunning, "\(what())'s app is gone") }
        return app
    }

    func nextID() -> Int {
        idCounter &+= 1
        return idCounter
    }
}

/// What tools must not let pass silently, counted with the last one (the REPL says so after the line, a
/// flow test's step fails): outputs no handler heard (``UnheardOutputs``: a tap that did nothing, no
/// handler set for it and no receiver that has one), signals no coordinator or screen but the sender
/// handles (``UnheardSignals``), laters that failed (``Application/failedLaters``). Not part of the app's
/// state (a line that fails does not take its count back).
package struct Tally<Item: Sendable>: Sendable {
    /// How many since the app was made.
    package private(set) var count = 0
    /// The last one.
    package private(set) var last: Item?

    mutating func note(_ item: Item) {
        count &+= 1
        last = item
    }
}

/// Outputs no handler heard: the screen and the output.
package typealias UnheardOutputs = Tally<(screen: ScreenInfo, output: String)>
/// Signals nothing heard: the signal's name and who sent it (`Cart#4`).
package typealias UnheardSignals = Tally<(signal: String, sender: String)>
