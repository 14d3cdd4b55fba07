import CoordinatorScript

/// How far and how wide it goes, and where it starts.
public struct ExploreOptions {
    /// The most steps from the start (states further away are not expanded).
    public var depth = 12
    /// The most states; exploration stops there (the report says it was cut short).
    public var maxStates = 10_000
    /// The most seconds the whole search may take (nil: no limit); the report says it was cut short.
    public var timeLimit: Double?
    /// Where exploration starts: the app's start, a link, or a snapshot (its JSON).
    public var base: Base = .start
    /// The most seconds one action may run (its handlers and the rendering after it); a step that runs
    /// longer stops with "timed out", is undone, and is reported as an error. nil: no limit.
    public var stepTimeLimit: Double? = 5
    /// The most windows open at once (`--max-windows`): the user opens another while fewer are open,
    /// chooses and closes them; 1, the default, explores one window.
    public var maxWindows = 1
    /// The most requests of one kind pending at once (`--max-pending`): a step that would start more is
    /// not followed, and the report says the search was cut there.
    public var maxPending = 2
    /// Every how many expanded states ``Explorer/progress`` hears how far the search has come.
    package var progressEvery = 500
    /// A state the search looks for, told from the app in it: the search stops once it found one (the
    /// report then says it was cut there), which is the first found, by a shortest path. nil: none.
    package var stopAt: ((Application) -> Bool)?
    /// Whether every action is taken after a replay of its path from the base (`--replay`), the
    /// reference: otherwise a runtime made `imageable` takes them in branches (``Explorer``), reaching
    /// the same states.
    public var replay = false
    /// Whether the runtime's state after every branch is checked against the state it branched from, by
    /// a full identity, and every step that left something that its branch found left nothing alive is
    /// taken for real to check that (on in debug builds): a branch that does not come back exactly, or
    /// that missed what the step left alive, is an ``ExploreFailure``.
    package var checksBranches = Self.isDebugBuild
    #if DEBUG
    static let isDebugBuild = true
    #else
    static let isDebugBuild = false
    #endif
    /// The secrets a snapshot's restore needs (``Base/snapshot(_:)``: a snapshot never holds them), by
    /// name; one not here is read from `COORDRUN_SECRET_NAME` in the environment.
    public var secrets: [String: FlowValue] = [:]

    /// Where exploration starts.
    public enum Base {
        /// The app's start.
        case start
        /// A link the app declares (`ScriptRuntime.open(_:)`).
        case link(String)
        /// A snapshot's JSON (`ScriptRuntime.restore(_:)`).
        case snapshot(String)
    }

    /// Defaults: 12 steps deep, 10,000 states, from the app's start.
    public init() {}
}

/// How far a search has come, for a progress line.
package struct ExploreProgress {
    /// States found.
    package let states: Int
    /// Actions taken.
    package let transitions: Int
    /// States found and not expanded yet.
    package let frontier: Int
    /// Seconds since the search began.
    package let seconds: Double
}
