import CoordinatorLua

/// Counts live instances of ``Tracked`` for one test (tests run in parallel, so no global counter).
final class Tracker {
    var live = 0
}

/// An object whose lifetime a ``Tracker`` counts.
class Tracked {
    let tracker: Tracker
    var value: Int
    init(_ tracker: Tracker, value: Int = 0) {
        self.tracker = tracker
        self.value = value
        tracker.live += 1
    }
    deinit { tracker.live -= 1 }
}

final class TrackedChild: Tracked {}

struct Boom: Error, CustomStringConvertible, Equatable {
    var code: Int
    var description: String { "boom \(code)" }
}

func makeState(_ libraries: LuaLibraries = .all) throws -> LuaState {
    let lua = try LuaState(libraries: libraries)
    lua.onWarning { _ in }
    return lua
}

