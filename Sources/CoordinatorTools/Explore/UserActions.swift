import CoordinatorScript

/// What the user can do at a state, as exploration tries it: every way on the user, the world outside and
/// time have there (``Explorer`` takes each).
enum UserActions {
    /// What the user can do now: the visible screen's outputs offered now (each item of a choice, each example of a
    /// value output), Back (when there is somewhere to go back to), the swipe-down of a modal that is not an
    /// alert, every other tab of the tab bar and a swipe to each page beside the one shown, when no modal
    /// covers them; every event the app declares with each example, its own lifecycle events where a flow
    /// listens; each pending request answered with each outcome; the time until the next timer fires; a
    /// rotation where a split shows; a window opened (up to `maxWindows`), chosen or closed.
    static func available(in app: Application, maxWindows: Int = 1) throws -> [UserStep] {
        var actions: [UserStep] = []
        // The visible screen's outputs, or those of each column's top screen of a split side by side (an
        // output two columns share cannot be told apart by name: tapping it is an error, so it is not tried).
        let screens = app.window.tappableScreens
        var shared: Set<String> = []
        if screens.count > 1 {
            var seen: Set<String> = []
            for screen in screens { for output in try screen.offeredOutputs() where !seen.insert(output.name).inserted { shared.insert(output.name) } }
        }
        for screen in screens {
            for output in try screen.offeredOutputs() where !shared.contains(output.name) { // one whose `when` is false is not there
                switch output.payload {
                case .nothing: actions.append(.tap(output.name, payload: nil))
                case .choice(let from):
                    for item in screen[from]?.listValue ?? [] { actions.append(.tap(output.name, payload: unshared(item))) }
                case .value:
                    for example in screen.type.examples[output.name] ?? [] { actions.append(.tap(output.name, payload: unshared(example))) }
                }
            }
        }
        let alert = (app.window.modals.last as? Screen)?.dismissesOnOutput == true
        if !alert {
            if let top = app.window.modals.last {
                if app.window.canGoBack(in: top) { actions.append(.back) }
                if top.presentation.isSwipeable { actions.append(.dismiss) } // what the user cannot do is never tried
            } else if app.window.canGoBack(in: app.window.root) {
                actions.append(.back)
            }
            if let tabs = app.visibleTabs {
                for i in tabs.titles.indices where i != tabs.selectedIndex { actions.append(.selectTab(i)) }
            }
            if let pages = app.window.visiblePages { // a swipe reaches the page beside the one shown
                for i in [pages.selectedIndex - 1, pages.selectedIndex + 1] where pages.titles.indices.contains(i) { actions.append(.swipeTo(i)) }
            }
        }
        // Every event the app declares, with each example payload; the app's own (background, foreground)
        // where some flow listens to them.
        let listened = Set(app.roots.flatMap(\.subtree).filter { $0.status == .running }.flatMap(\.eventNames))
        for event in app.eventDeclarations.values.sorted(by: { $0.name < $1.name }) where !event.isBuiltIn || listened.contains(event.name) {
            for payload in event.payloads { actions.append(.event(event.name, payload: payload.map(unshared))) }
        }
        // Each pending request answered with each outcome its kind declares (so "Back while loading" and
        // "an answer after its flow finished" are states too).
        var seenKinds: [String: Int] = [:]
        for request in app.pendingRequests {
            let nth = seenKinds[request.kind, default: 0]
            seenKinds[request.kind] = nth + 1
            for outcome in app.requestDeclarations[request.kind]?.outcomes ?? [] {
                actions.append(.answer(request.kind, nth: nth, outcome: outcome.name, value: nil))
            }
        }
        // Time passing until the next timer fires, when one is pending.
        if let next = app.clock.untilNext { actions.append(.advance(next)) }
        // A rotation, where a split shows: it collapses or expands.
        if app.window.flowContainers.contains(where: { $0 is SplitContainer }) {
            actions.append(.sizeClass(app.window.sizeClass == .regular ? .compact : .regular))
        }
        // Windows: another opened while fewer than `maxWindows` are open, each other one chosen, each closed
        // while another stays.
        let windows = app.windows.all
        if windows.count < maxWindows, app.idiom == .pad, app.makeRootAgain != nil, app.root != nil { actions.append(.openWindow) }
        if windows.count > 1 {
            for window in windows where window !== app.window { actions.append(.selectWindow(window.number)) }
            for window in windows { actions.append(.closeWindow(window.number)) }
        }
        return actions
    }

    /// `value` in storage of its own. A payload the app gave (an item of a screen's list) is, to Lua, the
    /// very table the app holds (frozen data comes back as itself); the same payload written in a test, or
    /// replayed in a fresh runtime, is a new table. A step the explorer takes must be the step its
    /// reproduction takes: a new table every time.
    static func unshared(_ value: FlowValue) -> FlowValue {
        switch value {
        case .list(let items): .list(items.map(unshared))
        case .record(let record): .record(FlowRecord(record.fields.map { ($0.key, unshared($0.value)) }))
        default: value
        }
    }
}
