import CoordinatorScript

/// The lifecycle oracle of flow tests: after a test (and after every step with `--strict-lifecycle`),
/// once everything unreachable is collected, no coordinator that finished and no screen that left may
/// still be alive, and every running coordinator must show a screen somewhere in its subtree unless its
/// class declares it has no UI (`Storage.ui = false`). The top complaint about coordinator libraries is a
/// flow kept alive after Back or a swipe-down: every test checks it for free.
///
/// A violation names the object and the step that left it (`tap("citySelected") at app_test.lua:33`).
final class LifecycleOracle {
    let tracker: ObjectTracker
    /// The step that finished a coordinator or took a screen out of the window, by object id.
    private var leftAt: [Int: String] = [:]
    /// The screens shown after the last step.
    private var shown: Set<Int> = []
    private var observer: NavigationObservation?
    private let app: Application
    /// The step running now (what ``afterStep(_:)`` will record).
    private var step = "starting the app"
    /// Whether only what it heard of counts (exploration: a flow a replayed path finished again was looked
    /// for when its step was first taken; found again in a replay, it would be reported twice, the second
    /// time with no step).
    private let onlyHeard: Bool
    /// Whether a step finished a coordinator or took a screen away since ``newlyLeftAlive(collecting:)``
    /// last looked: only then can a collection find something new.
    private var leftSinceLastLook = false

    /// An oracle over `app`; with `listening` false it hears of finishes only between ``listen()`` and
    /// ``stopListening()`` (exploration listens during the steps it takes, not while it replays a path:
    /// nobody observing, the app builds no events at all).
    init(app: Application, listening: Bool = true) {
        self.app = app
        onlyHeard = !listening
        tracker = app.trackObjects()
        if listening { listen() }
        shown = Set(app.window.allScreens.map(\.id))
    }

    deinit { stopListening() }

    /// Hears of coordinators finishing, to name the step that finished each; the screens shown now are the
    /// ones the next step may leave (a path replayed unheard may have shown others since the last step).
    func listen() {
        shown = Set(app.window.allScreens.map(\.id))
        guard observer == nil else { return }
        observer = app.observe { [weak self] event in
            guard let self else { return }
            if case let .finished(info, _, _) = event {
                self.leftAt[info.id] = self.step
                self.leftSinceLastLook = true
            }
        }
    }

    /// Stops hearing of finishes.
    func stopListening() {
        observer?.cancel()
        observer = nil
    }

    /// A step is about to run (`tap("login") at app_test.lua:12`).
    func beforeStep(_ label: String) { step = label }

    /// A step ran: the screens it took out of the window are noted as left by it.
    func afterStep() {
        let now = Set(app.window.allScreens.map(\.id))
        for id in shown.subtracting(now) where leftAt[id] == nil {
            leftAt[id] = step
            leftSinceLastLook = true
        }
        shown = now
    }

    /// Whether a step finished a flow or took a screen away since a collection last looked
    /// (``newlyLeftAlive(collecting:)``): only then can one find something new.
    var heardSinceLastLook: Bool { leftSinceLastLook }

    /// Runs `body`, a step taken in a branch the runtime comes back from (``ScriptRuntime/branch(from:_:)``),
    /// and forgets what it heard there: the objects it saw finish or leave are back. Returns `body`'s
    /// result and whether the step finished a flow or took a screen away (only then can a collection after
    /// it, taken for real, find something it left alive).
    func hearingBranch<T>(_ body: () throws -> T) rethrows -> (result: T, left: Bool) {
        let (heard, before) = (leftAt, leftSinceLastLook)
        leftSinceLastLook = false
        defer { (leftAt, leftSinceLastLook) = (heard, before) }
        let result = try body()
        return (result, leftSinceLastLook)
    }

    /// Whether the step just taken in a branch (inside ``hearingBranch(_:)``, before the branch comes back)
    /// may have left alive a finished flow or a screen that left, not reported yet: after a collection of
    /// the heap as the step's commit would leave it (``BranchCollections/asCommitted()``), Lua still holds
    /// the userdata of one. Only then must the step be taken for real, for the collection that decides
    /// (``leftByLastSteps(collecting:)``): otherwise nothing but the branch's log holds what it left, and
    /// that collection finds nothing new.
    ///
    /// What Swift objects alone would hold is not looked for: the app's objects let go of a flow as it
    /// finishes and of a screen as it leaves. Debug builds check it: their explorations take every step
    /// that left something for real as well (``Explorer/Options/checksBranches``).
    func mayHaveLeftAlive(in lua: LuaState) throws -> Bool {
        guard leftSinceLastLook else { return false }
        try lua.branchCollections.asCommitted()
        tracker.compactIfGrown()
        return tracker.containsCoordinator { c in
            (c.status == .finished || c.status == .finishing) && (!onlyHeard || leftAt[c.id] != nil) && !reported.contains(c.id)
                && lua.branchCollections.holdsUserdata(of: c)
        } || tracker.containsScreen { s in
            !s.isShown && leftAt[s.id] != nil && !reported.contains(s.id) && lua.branchCollections.holdsUserdata(of: s)
        }
    }

    /// What breaks the rules now, after collecting garbage (Lua's, which releases what only Lua held). A
    /// second collection runs only when the first leaves something that breaks them: finalizers release
    /// Swift objects, and what those held goes in the second cycle (no collection can make a violation).
    func violations(collecting lua: LuaState) -> [String] { leftAlive(collecting: lua).map(\.violation) + cheapViolations() }

    /// The finished flows and left screens still alive after collecting garbage (``violations(collecting:)``
    /// without the cheap rule).
    private func leftAlive(collecting lua: LuaState) -> [LeftAlive] {
        lua.collectGarbage(compacting: false)
        guard !collectedViolations().isEmpty else { return [] }
        lua.collectGarbage(compacting: false)
        return collectedViolations()
    }

    /// What ``leftAlive(collecting:)`` finds that no earlier call of this one reported: each object once, at
    /// the first collection that finds it alive, whatever ran in the runtime since (exploration); each with
    /// the step that left it, when a step did.
    func newlyLeftAlive(collecting lua: LuaState) -> [LeftAlive] {
        leftSinceLastLook = false
        return leftAlive(collecting: lua).filter { reported.insert($0.object).inserted }
    }

    /// What the steps since the last look left alive (``newlyLeftAlive(collecting:)``'s violations), looked
    /// for only when one of them finished a flow or took a screen away: a collection costs the heap.
    func leftByLastSteps(collecting lua: LuaState) -> [String] {
        leftSinceLastLook ? newlyLeftAlive(collecting: lua).map(\.violation) : []
    }

    /// A finished flow or a left screen still alive: the object's id, the step that left it, the violation.
    struct LeftAlive {
        let object: Int
        let step: String?
        let violation: String
    }

    /// The objects ``newlyLeftAlive(collecting:)`` reported, by id.
    private var reported: Set<Int> = []

    /// The finished coordinators and left screens still alive, as the tracker holds them now.
    private func collectedViolations() -> [LeftAlive] {
        tracker.compact()
        var found: [LeftAlive] = []
        for entry in tracker.coordinators {
            guard let c = entry.object, c.status == .finished || c.status == .finishing else { continue }
            let step = leftAt[c.id]
            if onlyHeard, step == nil { continue }
            let finished = "coordinator \("\(c.info)".controlsEscaped) finished" + (step.map { " at \($0)" } ?? "")
            found.append(LeftAlive(object: c.id, step: step, violation: finished + " but is still alive (something still holds it)"))
        }
        for entry in tracker.screens {
            guard let s = entry.object, !s.isShown, let step = leftAt[s.id] else { continue }
            found.append(LeftAlive(
                object: s.id,
                step: step,
                violation: "screen \("\(s.info)".controlsEscaped) left at \(step) but is still alive (something still holds it)"
            ))
        }
        return found
    }

    /// The rule that needs no collection: a running coordinator that shows nothing in its subtree and does
    /// not say it has no UI (a flow left behind).
    func cheapViolations() -> [String] {
        var found: [String] = []
        var pending = app.roots // every window's
        while let c = pending.popLast() {
            pending += c.children
            guard c.status == .running, let scripted = c as? ScriptedCoordinator, !scripted.declaresNoUI,
                  !Self.showsAScreen(c) else { continue }
            found.append("""
                coordinator \("\(c.info)".controlsEscaped) runs but shows no screen (a flow left behind; a service \
                says so with \(c.name.controlsEscaped).ui = false)
                """)
        }
        return found
    }

    /// Whether the coordinator or a running descendant shows a screen.
    static func showsAScreen(_ coordinator: Coordinator) -> Bool {
        var pending = [coordinator]
        while let c = pending.popLast() {
            if c.screens.contains(where: \.isShown) { return true }
            pending += c.children.filter { $0.status == .running }
        }
        return false
    }
}

extension ScriptedCoordinator {
    /// Its class says it has no UI (`Storage.ui = false`): a service, which the lifecycle oracle does not
    /// expect to show a screen.
    var declaresNoUI: Bool {
        (try? type.get("ui", as: LuaValue.self)) == .boolean(false)
    }
}
