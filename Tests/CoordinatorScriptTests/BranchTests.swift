import Testing
import CoordinatorCore
import CoordinatorScript
import CoordinatorLua
import TestSupport

/// Branches (``ScriptRuntime/branch(from:_:)``): a runtime made `imageable` tries steps and comes back exactly
/// where it was, the app by its journal and the scripts' heap by an image; each operation in a branch is an
/// outermost one, with its events and the flows that lost their screens finishing.
@Suite struct BranchTests {
    /// Home opens Detail and runs a Child flow in a modal; `bump` counts in `self` and in a file-level local;
    /// the Child's `done` finishes it, and Main notes the result in a global.
    static let app = """
        local flow = require "coordinator"
        flow.screen "Home" { outputs = { "open", "bump", "child", "rewire" } }
        flow.screen "Detail" { outputs = { "done" } }
        flow.screen "Ask" { outputs = { "done" } }
        local bumped = 0
        local Child = flow.coordinator "Child"
        function Child:start()
          self.asked = true
          self:present("Ask").onDone = function() self:finish("answered") end
        end
        local Main = flow.coordinator "Main"
        function Main:start()
          self.bumps = 0
          local home = self:push("Home")
          home.onOpen = function()
            local detail = self:push("Detail")
            detail.onDone = function() self:pop() end
          end
          home.onBump = function() self.bumps = self.bumps + 1; bumped = bumped + 1; history = { bumped, {} } end
          home.onRewire = function() home.onBump = function() self.bumps = self.bumps + 10 end end
          home.onChild = function()
            local child = self:run(Child)
            child.onFinish = function(result) finishedWith = result end
          end
        end
        flow.app { authorization = Main }
        """

    static func runtime(in folder: TemporaryDirectory) throws -> ScriptRuntime {
        let runtime = try ScriptRuntime(imageable: true)
        try runtime.load(script: folder.write("app.lua", app))
        try runtime.start()
        return runtime
    }

    @Test func aBranchComesBackToTheAppAndTheHeapItBeganAt() throws {
        let folder = try TemporaryDirectory()
        let runtime = try Self.runtime(in: folder)
        try runtime.app.perform(.tap("bump", payload: nil))
        let (snapshot, identity) = (try runtime.snapshot(), try runtime.stateIdentity())
        let point = try runtime.branchPoint()
        // Each path, and whether it leads elsewhere (a Child swiped away finishes with no result: back home).
        let paths: [(steps: [UserStep], moves: Bool)] = [
            ([.tap("open", payload: nil)], true), ([.tap("bump", payload: nil), .tap("bump", payload: nil)], true),
            ([.tap("open", payload: nil), .tap("done", payload: nil), .tap("child", payload: nil), .tap("done", payload: nil)], true),
            ([.tap("child", payload: nil), .dismiss], false), ([.tap("open", payload: nil), .back, .tap("open", payload: nil)], true),
        ]
        for _ in 0..<3 {
            for (path, moves) in paths {
                let reached = try runtime.branch(from: point) {
                    for step in path { try runtime.app.atomically { try runtime.app.perform(step) } }
                    return try runtime.stateIdentity()
                }
                #expect((reached != identity) == moves, "\(path)")
                #expect(point.changedLines == 0, "\(path): the heap is the image's")
                #expect(try runtime.snapshot() == snapshot, "\(path)")
                #expect(try runtime.stateIdentity() == identity, "\(path)")
            }
        }
        // The runtime goes on as if no branch had run: the same step gives the same state as in a runtime
        // that never branched.
        let plain = try Self.runtime(in: folder)
        try plain.app.perform(.tap("bump", payload: nil))
        for target in [runtime, plain] {
            try target.app.perform(.tap("bump", payload: nil))
            try target.app.perform(.tap("child", payload: nil))
        }
        // (Lua seeds each state's random generator differently: its state is left out here.)
        #expect(try runtime.stateIdentity(randomState: false) == plain.stateIdentity(randomState: false))
        #expect(try runtime.lua.evaluate("return history[1]", as: Int.self) == 2)
        #expect(try runtime.snapshot() == plain.snapshot())
    }

    /// The state a branch reaches has the identity of the same state reached for good, though the branch's
    /// log still keeps what its steps replaced or took away to put it back (a screen's handlers before one
    /// changed, a finished flow's instance): the identity leaves out what only an undo entry keeps
    /// (`LuaUndoHold`).
    @Test func aStateReachedInABranchHasTheIdentityOfTheSameStateReachedForGood() throws {
        let folder = try TemporaryDirectory()
        // From Home, and from a Child running before the branch (its finish in the branch is logged).
        for base in [[], [UserStep.tap("child", payload: nil)]] {
            let runtime = try Self.runtime(in: folder)
            for step in base { try runtime.app.perform(step) }
            try expectBranchesMatch(runtime, base: base, in: folder, paths: base.isEmpty ? Self.fromHome : [[.tap("done", payload: nil)], [.dismiss]])
        }
    }

    static let fromHome: [[UserStep]] = [
            [.tap("open", payload: nil), .tap("done", payload: nil)], [.tap("open", payload: nil), .back],
            [.tap("child", payload: nil), .tap("done", payload: nil)], [.tap("child", payload: nil), .dismiss],
            [.tap("bump", payload: nil), .tap("open", payload: nil), .back, .tap("child", payload: nil), .tap("done", payload: nil)],
            [.tap("rewire", payload: nil)], [.tap("rewire", payload: nil), .tap("bump", payload: nil)],
    ]

    /// Each path taken in a branch of `runtime` (at `base`) reaches the identity a runtime that takes `base`
    /// and the path for good reaches.
    func expectBranchesMatch(_ runtime: ScriptRuntime, base: [UserStep], in folder: TemporaryDirectory, paths: [[UserStep]]) throws {
        let point = try runtime.branchPoint()
        for path in paths {
            let inBranch = try runtime.branch(from: point) {
                for step in path { try runtime.app.perform(step) }
                return try runtime.stateIdentity(randomState: false)
            }
            let forGood = try Self.runtime(in: folder)
            for step in base + path { try forGood.app.perform(step) }
            #expect(inBranch == (try forGood.stateIdentity(randomState: false)), "\(base + path)")
        }
    }

    /// Each operation in a branch is an outermost one: its events are reported, the flow it finishes runs
    /// its `onFinish`; all of it is undone after the branch.
    @Test func eachOperationInABranchIsAnOutermostOne() throws {
        let folder = try TemporaryDirectory()
        let runtime = try Self.runtime(in: folder)
        var finished: [String] = []
        let observation = runtime.app.observe { event in
            if case let .finished(info, _, _) = event { finished.append(info.name) }
        }
        defer { observation.cancel() }
        let point = try runtime.branchPoint()
        let inBranch = try runtime.branch(from: point) {
            try runtime.app.atomically { try runtime.app.perform(.tap("child", payload: nil)) }
            try runtime.app.atomically { try runtime.app.perform(.tap("done", payload: nil)) }
            #expect(finished == ["Child"])
            return try runtime.lua.evaluate("return finishedWith", as: String?.self)
        }
        #expect(inBranch == "answered")
        #expect(try runtime.lua.evaluate("return finishedWith", as: String?.self) == nil)
        #expect(runtime.app.window.visibleScreen?.name == "Home")
    }

    /// A step that fails in a branch leaves the app as it was; a branch does not begin inside an operation.
    @Test func aFailureInABranchAndABranchInsideAnOperation() throws {
        let folder = try TemporaryDirectory()
        let runtime = try Self.runtime(in: folder)
        let snapshot = try runtime.snapshot()
        let point = try runtime.branchPoint()
        #expect(throws: (any Error).self) {
            try runtime.branch(from: point) {
                try runtime.app.atomically { try runtime.app.perform(.tap("open", payload: nil)) }
                try runtime.app.atomically { try runtime.app.perform(.tap("nothing", payload: nil)) }
            }
        }
        #expect(try runtime.snapshot() == snapshot)
        #expect(throws: NavigationError.self) {
            try runtime.app.atomically { try runtime.app.branch {} }
        }
        #expect(try runtime.snapshot() == snapshot)
    }
}
