/// Ownership and lifecycle: which coordinator owns which screen, running and finishing coordinators, the
/// rule that no flow outlives its screens (auto-finishing), and releasing everything when the application
/// goes.
///
/// A finished coordinator is released here: ``finish(_:result:reason:in:)`` finishes its children,
/// removes its screens, cuts it from its parent and drops it from the tree, so nothing of the app holds it
/// any more (whoever else kept it, a script's variable, may still read it; it refuses to navigate).
///
/// An application owns one; it keeps the lists the auto-finishing rule works on. Every method works on
/// the application it is given (its owner): the part holds no reference back to it.
final class Lifecycle {
    // The lists and counters below are touched by every operation.
    /// Coordinators that lost screens during the outermost operation, examined when it ends.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var lostScreens: [Coordinator] = []
    /// Coordinators that lost screens in the running navigation step, for the next settle.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    var candidates: [Coordinator] = []
    /// Numbers settles, to mark coordinators already examined in one.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private var settleRound = 0

    // MARK: Screens and owners

    /// `screen` is now shown on `stack` (nil: presented by itself) and owned by `owner`.
    func show(_ screen: Screen, on stack: NavigationStack?, by owner: Coordinator) {
        screen.place(owner: owner, stack: stack)
        owner.appendScreen(screen)
    }

    /// `screens` left the window: their owners lose them (and are examined by the next ``settle(actor:reason:)``
    /// and at the end of the operation), then hear about it. An alert that leaves lets go of its actions'
    /// handlers at once (an answer was taken before it went): what they hold (a script's functions) is
    /// not kept until the alert itself is released.
    func hide(_ screens: [Screen], bySystem: Bool = false, by actor: Coordinator?) throws {
        var left: [(owner: Coordinator, screen: Screen)] = []
        for screen in screens {
            if screen.dismissesOnOutput { screen.removeAllHandlers() }
            guard let owner = screen.owner else { continue }
            screen.place(owner: nil, stack: nil)
            owner.removeScreen(screen)
            candidates.append(owner)
            noteLostScreens(owner)
            left.append((owner, screen))
        }
        for (owner, screen) in left where owner.status == .running { try owner.screenDidLeave(screen, bySystem: bySystem) }
    }

    /// Remembers a coordinator to examine when the outermost operation ends (once).
    func noteLostScreens(_ coordinator: Coordinator) {
        guard !coordinator.isNotedLost else { return }
        // Coordinators that finished since they were noted need no look: dropped whenever the list is full,
        // so a loop inside one operation keeps a short list (at a constant cost per note).
        if lostScreens.count >= 16, lostScreens.count == lostScreens.capacity {
            lostScreens.removeAll { coordinator in
                guard coordinator.status == .finished else { return false }
                coordinator.isNotedLost = false
                return true
            }
        }
        coordinator.isNotedLost = true
        lostScreens.append(coordinator)
    }

    // MARK: Auto-finishing

    /// An operation failed (its changes were undone): the candidates it noted go, and the coordinators it
    /// noted as having lost screens too when it was the outermost one.
    func operationFailed(outermost: Bool) {
        candidates.removeAll(keepingCapacity: true)
        guard outermost else { return }
        for coordinator in lostScreens { coordinator.isNotedLost = false }
        lostScreens.removeAll(keepingCapacity: true)
    }

    /// At the end of an outermost operation: no coordinator that lost its screens during it may stay alive
    /// without any, not even the one that removed them itself.
    func settleOperation(in app: Application) throws {
        while !lostScreens.isEmpty {
            candidates += lostScreens
            for coordinator in lostScreens { coordinator.isNotedLost = false }
            lostScreens.removeAll(keepingCapacity: true)
            try settle(actor: nil, reason: .screensRemoved, in: app)
        }
    }

    /// Finishes every coordinator whose whole subtree lost its screens, deepest first, except the root and
    /// the coordinator that acted (and its ancestors): the user going back (actor nil) or another
    /// coordinator's navigation can never leave a flow alive without screens.
    ///
    /// Walks up from each candidate until a coordinator that still shows a screen in its subtree (whose
    /// ancestors all do too): the cost is the coordinators that just lost their screens, not the tree. Each
    /// round finishes every coordinator it found, deepest first (each with its own reason, so a parent is
    /// never finished before a child that lost its screens too), checking each again just before (an
    /// `onFinish` run by an earlier one may have shown a screen); their parents are the next round's
    /// candidates. Linear in the coordinators finished, plus a sort: a chain of N nested flows that lose
    /// their screens at once finishes in one round.
    func settle(actor: Coordinator?, reason: FinishReason? = nil, in app: Application) throws {
        var targets: [Coordinator] = []
        while !candidates.isEmpty {
            settleRound &+= 1
            var exemptMarked = false
            for start in candidates {
                var node: Coordinator? = start
                while let current = node, current.settleMark != settleRound {
                    current.settleMark = settleRound
                    // One that is finishing takes its subtree with it, and one that shows a screen has
                    // ancestors that show it too: nothing above either needs looking at from here.
                    if current.status != .running || current.isShowingSubtree { break }
                    if current !== app.root, current.context === app.context, current.hasShownScreens {
                        if let actor, !exemptMarked { markExempt(actor); exemptMarked = true }
                        if !exemptMarked || current.exemptMark != settleRound {
                            targets.append(current) // the first one on the way up: the deepest of this path
                            break
                        }
                    }
                    node = current.parent
                }
            }
            candidates.removeAll(keepingCapacity: true)
            targets.sort { $0.depth > $1.depth }
            for coordinator in targets where coordinator.status == .running && !coordinator.isShowingSubtree {
                let parent = coordinator.parent
                try finish(coordinator, result: nil, reason: reason ?? (actor == nil ? .systemBack : .screensRemoved), in: app)
                if let parent { candidates.append(parent) } // it may have lost its last flow
            }
            targets.removeAll(keepingCapacity: true)
        }
    }

    /// Marks the coordinator that acted and its ancestors for this settle round: they are spared.
    private func markExempt(_ actor: Coordinator) {
        var node: Coordinator? = actor
        while let current = node {
            current.exemptMark = settleRound
            node = current.parent
        }
    }

    // MARK: Coordinators

    /// Makes `coordinator` part of this app (once): its context, id and the live count.
    func attach(_ coordinator: Coordinator, to app: Application) {
        guard coordinator.context == nil else { return }
        let context = app.context
        coordinator.context = context
        coordinator.id = context.nextID()
        coordinator.born = context.journal.markNew()
        coordinator.madeIndex = context.journal.noteMade(coordinator)
        context.tracker?.add(coordinator)
        context.live.coordinators += 1
    }

    /// Runs `child` under `parent`: on the parent's stack, or (`modal`) on a new stack the parent's router
    /// presents, so that a host's router sees the presentation as a transition.
    func run(_ child: Coordinator, under parent: Coordinator, args: FlowValue?,
             modal: (presentation: Presentation, animation: String?)?, in app: Application) throws {
        attach(child, to: app)
        guard child.context === app.context else {
            throw NavigationError(.alreadyStarted, "\(child.name) belongs to another app")
        }
        if child.status != .idle {
            throw NavigationError(child.status == .running ? .alreadyStarted : .alreadyFinished,
                                  "\(child.name) has \(child.status == .running ? "already started" : "finished"); create a new coordinator")
        }
        try parent.addChild(child)
        child.windowNumber = parent.windowNumber // a flow shows in its parent's window
        if let modal {
            let router = try parent.activeRouter()
            let stack = NavigationStack(context: app.context)
            stack.presentation = modal.presentation.adapted(to: app.idiom)
            try router.perform(.present(stack, animation: modal.animation), for: parent, animated: true)
            child.setRouter(router.router(on: stack))
            child.markShownScreens()
        } else if child.router == nil {
            child.setRouter(try parent.activeRouter()) // the parent's stack: the same router
        } // else: it was given a router of its own (a tab's)
        child.setStatus(.running)
        app.emit(.started(child.info, parent: parent.info))
        try child.start(args)
        if child.hasShownScreens { noteLostScreens(child) } // a modal flow that shows nothing
    }

    func finish(_ coordinator: Coordinator, result: FlowValue?, reason: FinishReason, in app: Application) throws {
        switch coordinator.status {
        case .running: break
        case .idle: throw NavigationError(.notRunning, "\(coordinator.name) has not started, so it cannot finish")
        case .finishing, .finished: throw NavigationError(.alreadyFinished, "\(coordinator.name) has already finished")
        }
        coordinator.setStatus(.finishing)
        try complete(coordinator, result: result, reason: reason, in: app)
    }

    /// The rest of finishing a coordinator marked `finishing`: its subtree, its screens, its parent, the
    /// handlers.
    private func complete(_ coordinator: Coordinator, result: FlowValue?, reason: FinishReason, in app: Application) throws {
        try clear(coordinator, in: app)
        let navigator = app.navigator(for: coordinator) // its own window's
        navigator.restoreContainers(setBy: coordinator)
        if let modalStack = coordinator.router?.stack, modalStack !== coordinator.parent?.router?.stack,
           modalStack.screens.isEmpty, let index = navigator.window.modalIndex(of: modalStack)
        {
            try navigator.removeModals(from: index, by: coordinator) // the empty modal stack it was given
        }
        let parent = coordinator.parent
        if let parent {
            parent.removeChild(coordinator)
            noteLostScreens(parent) // examined when the operation ends
        }
        coordinator.setStatus(.finished)
        app.clock.cancelTimers(of: coordinator) // a finished flow's timers never fire, their actions released
        app.laters.cancelLaters(of: coordinator) // nor its laters
        app.requests.cancelRequests(of: coordinator) // nor is it answered: a late answer is dropped
        app.emit(.finished(coordinator.info, reason: reason, result: result))
        coordinator.didFinish(result, reason: reason)
        guard reason != .parentFinished else { return }
        try coordinator.reportFinish(result, reason: reason)
        try parent?.childDidFinish(coordinator, result: result, reason: reason)
        if parent == nil, app.root === coordinator, reason == .finished, let again = app.makeRootAgain {
            try startRoot(again(), with: result, router: coordinator.router, in: app) // the root flow starts again
        }
    }

    /// Starts `coordinator` as the app's root, on the window's empty navigation stack (inside an operation).
    func startRoot(_ coordinator: Coordinator, with args: FlowValue?, router: (any Router)?, in app: Application) throws {
        guard let stack = app.window.root as? NavigationStack, stack.screens.isEmpty, app.window.modals.isEmpty else {
            throw NavigationError(.alreadyStarted, "the window already shows screens")
        }
        attach(coordinator, to: app)
        if coordinator.parent != nil || coordinator.status != .idle {
            throw NavigationError(.alreadyStarted, "\(coordinator.name) already runs")
        }
        app.setRoot(coordinator)
        coordinator.setRouter(router ?? HeadlessRouter(stack: stack))
        coordinator.setStatus(.running)
        app.emit(.started(coordinator.info, parent: nil))
        try coordinator.start(args)
    }

    func restart(_ coordinator: Coordinator, args: FlowValue?, in app: Application) throws {
        try clear(coordinator, in: app)
        app.navigator(for: coordinator).restoreContainers(setBy: coordinator)
        app.emit(.started(coordinator.info, parent: coordinator.parent?.info))
        try coordinator.start(args)
    }

    /// Finishes a coordinator's descendants (children before their parents, newest first) and removes its
    /// screens (newest first: off the top of their stacks, at no cost per screen below).
    ///
    /// The descendants are walked with a list, not by recursion, and all marked `finishing` first; each
    /// is completed after its own children, so a chain of any depth finishes in linear time.
    private func clear(_ coordinator: Coordinator, in app: Application) throws {
        // Running descendants, parents before children, oldest child first: reversed, children come before
        // their parents and the newest child first.
        var order: [Coordinator] = []
        var pending = coordinator.children.reversed().filter { $0.status == .running }
        while let node = pending.popLast() {
            order.append(node)
            pending += node.children.reversed().filter { $0.status == .running }
        }
        for node in order { node.setStatus(.finishing) } // none of them is settled on its own any more
        for node in order.reversed() { try complete(node, result: nil, reason: .parentFinished, in: app) }
        while let screen = coordinator.screens.last {
            try app.navigator(for: coordinator).remove(screen, by: coordinator)
            if coordinator.screens.last === screen { coordinator.removeScreen(screen) } // not shown any more
        }
    }

    /// Ends the running app as one step of the running operation, so that ``start(_:with:router:)`` can
    /// run again (a link that rebuilds the app from its start, a restore): the roots and all their flows
    /// finish (reason `parentFinished`: no `onFinish` runs), every screen leaves, and the app is back to
    /// one window, numbered 1, with an empty root stack. Undone with the operation.
    func tearDown(_ app: Application) throws {
        for window in app.windows.all { try clear(window, in: app) }
        app.windows.reset()
        app.stepLog.reset(to: [])
    }

    /// Ends what `window` shows: its root flow and all its flows finish (reason `parentFinished`), every
    /// screen leaves, and it gets an empty root stack.
    private func clear(_ window: Window, in app: Application) throws {
        if let root = window.coordinator, root.status == .running { try finish(root, result: nil, reason: .parentFinished, in: app) }
        let navigator = Navigator(app: app, window: window)
        if !window.modals.isEmpty { try navigator.removeModals(from: 0, by: nil) }
        if let stack = window.root as? NavigationStack, stack.screens.isEmpty {
            // already empty
        } else {
            let old = window.root
            window.setRoot(NavigationStack(context: app.context))
            for stack in Navigator.stacks(of: old) where !stack.screens.isEmpty {
                try hide(stack.screens, by: nil)
            }
        }
        window.setCoordinator(nil)
    }

    // MARK: Windows

    /// Opens a window (``UserStep/openWindow``) and makes it the current one: its own root flow (the app's
    /// ``Application/makeRootAgain``) starts there, under the gateway state the app is in. A pad's app only
    /// (``Idiom``): a phone shows one window.
    func openWindow(in app: Application) throws {
        guard app.root != nil else { throw NavigationError(.notRunning, "the app has not started: there is no window to open another beside") }
        guard app.idiom == .pad else {
            throw NavigationError(.badWindow, "a phone shows one window: run the app as a pad to open another (--idiom pad, app(script, { idiom = \"pad\" }))")
        }
        guard let make = app.makeRootAgain else {
            throw NavigationError(.badWindow, "this app cannot open another window: it has no way to make its root flow again (Application.makeRootAgain)")
        }
        let window = app.windows.open()
        app.emit(.windowOpened(window.number))
        try startRoot(make(), with: nil, router: nil, in: app)
    }

    /// Closes `window` (``UserStep/closeWindow(_:)``): its flows finish as a torn-down app's do, its
    /// screens leave; the last window open cannot close.
    func close(_ window: Window, in app: Application) throws {
        guard app.windows.all.count > 1 else {
            throw NavigationError(.badWindow, "window \(window.number) is the only one open: an app keeps one window")
        }
        try clear(window, in: app)
        app.windows.remove(window)
        app.emit(.windowClosed(window.number))
    }

    /// With several windows open, each root flow follows the gateway: one that runs the flow of another
    /// state than the gateway's restarts in it (the window where the user signed in restarts as its flow
    /// finishes; the others, here, at the end of the operation).
    func followGateway(in app: Application) throws {
        guard app.windows.all.count > 1 else { return }
        let state = app.gateway.state
        for window in app.windows.all {
            guard let root = window.coordinator as? ApplicationCoordinator, root.status == .running,
                  let running = root.runningState, running != state else { continue }
            try restart(root, args: nil, in: app)
        }
    }

    // MARK: The end

    /// Cuts every link of the app when it goes (`deinit`): parents and children, owners and screens,
    /// handlers. Walked with a list instead of recursion, so a tree or a stack of any depth is released
    /// without deep nesting of deinitializers.
    func releaseEverything(of app: Application) {
        var coordinators = app.roots
        for window in app.windows.all { window.coordinator = nil }
        while let coordinator = coordinators.popLast() {
            coordinators += coordinator.children
            coordinator.children = []
            coordinator.parent = nil
            coordinator.router = nil
            coordinator.handlers = Coordinator.Handlers()
            for screen in coordinator.screens { release(screen) }
            coordinator.screens = []
        }
        for window in app.windows.all {
            for container in [window.root] + window.modals {
                for stack in Navigator.stacks(of: container) {
                    for screen in stack.screens { release(screen) }
                    stack.screens = []
                }
                if let screen = container as? Screen { release(screen) }
            }
            window.modals = []
        }
    }

    private func release(_ screen: Screen) {
        screen.owner = nil
        screen.stack = nil
        screen.handlers.removeAll()
        screen.signalHandlers.removeAll()
    }
}
