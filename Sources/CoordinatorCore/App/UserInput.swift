/// What the user does, taken (owned by ``Application``, whose ``Application/perform(_:)`` hands it each
/// step): each ``UserStep`` as the one operation it is, undone entirely if anything in it fails, noted in
/// the step log as it may be kept (the parts declared secret hidden).
package final class UserInput {
    /// How many taps ``Application/perform(_:)`` was asked for (those that failed too): a REPL says when one
    /// changed nothing visible.
    package private(set) var tapsTaken = 0
    /// How many steps carried a secret (a payload part an output declares secret, ``OutputSpec/secret``; an
    /// answer's part its request declares secret; a storage secret's value): what shows a line typed one,
    /// so that its text is never shown or written again.
    package private(set) var secretsTaken = 0
    /// How many timers the last ``Application/advance(by:)`` fired.
    package private(set) var lastFirings = 0
    /// How many handlers the last event sent reached (``Application/send(event:payload:)``).
    package private(set) var lastEventReceivers = 0

    /// Takes `step` in `app`.
    func take(_ step: UserStep, in app: Application) throws {
        switch step {
        case let .tap(output, payload):
            tapsTaken &+= 1
            try app.atomically {
                let screen = try app.window.tapTarget(for: output)
                try screen.emit(output, payload: payload)
                let spec = screen.type.output(named: output)
                record(step, in: app, declared: spec.flatMap { $0.secret == .nothing ? nil : .tap(output, payload: $0.recorded(payload)) })
            }
        case .back:
            try app.atomically {
                try app.navigator.systemBack()
                app.stepLog.note(step)
            }
        case .dismiss:
            try app.atomically {
                try app.navigator.swipeDown()
                app.stepLog.note(step)
            }
        case .selectTab(let index):
            try app.atomically {
                guard let tabs = app.visibleTabs else { throw NavigationError(.badTab, "no tab bar is showing") }
                try app.navigator.select(index, of: tabs, bySystem: true)
                app.stepLog.note(step)
            }
        case .sizeClass(let sizeClass):
            try app.atomically {
                guard sizeClass != app.window.sizeClass else { return }
                app.window.setSizeClass(sizeClass)
                app.emit(.sizeClassChanged(sizeClass))
                app.stepLog.note(step)
            }
        case .swipeTo(let index):
            try app.atomically {
                guard let pages = app.window.visiblePages else { throw NavigationError(.badTab, "no pages are showing") }
                try app.navigator.select(index, of: pages, bySystem: true)
                app.stepLog.note(step)
            }
        case let .answer(kind, nth, outcome, value):
            try app.atomically {
                try app.requests.deliverAnswer(kind, nth: nth, outcome: outcome, value: value, in: app)
                let request = app.requests.declarations[kind]
                let declared = request.flatMap { $0.secret == .nothing ? nil : UserStep.answer(kind, nth: nth, outcome: outcome, value: $0.recorded(value)) }
                record(step, in: app, declared: declared)
            }
        case .advance(let seconds):
            try app.atomically {
                lastFirings = try app.clock.advance(by: seconds, in: app)
                app.emit(.clockAdvanced(seconds))
                app.stepLog.note(step)
            }
        case let .event(name, payload):
            try app.atomically {
                lastEventReceivers = try app.eventCatalog.deliver(name, payload: payload, in: app)
                record(step, in: app, declared: nil)
            }
        case .openWindow:
            try app.atomically {
                try app.lifecycle.openWindow(in: app)
                app.stepLog.note(step)
            }
        case .selectWindow(let number):
            try app.atomically {
                let window = try app.windows.existing(number)
                guard window !== app.window else { return }
                app.windows.choose(window)
                app.emit(.windowSelected(number))
                app.stepLog.note(step)
            }
        case .closeWindow(let number):
            try app.atomically {
                try app.lifecycle.close(try app.windows.existing(number), in: app)
                app.stepLog.note(step)
            }
        case .relaunch:
            guard let relauncher = app.scripting.relaunch else {
                throw NavigationError(.noRouter, "this app cannot relaunch: a app.scripting layer runs its scripts again")
            }
            try app.atomically { try relauncher() } // it begins the steps again
        case let .drawn(step, values):
            try app.atomically { try app.draws.giving(values) { try take(step, in: app) } } // one that draws fewer is undone
        case .open(let link):
            guard let linkOpener = app.scripting.openLink else {
                throw NavigationError(.noRouter, "this app opens no links (\(link)): a app.scripting layer routes them")
            }
            try linkOpener(link) // it records the link itself
        }
    }

    /// Records `step` in ``Application/steps`` as `declared` (the step with the parts its output or request
    /// declares secret replaced by markers; nil when it declares none), with every string equal to one of the
    /// storage's secret values hidden too (``AppStorage/hidingSecrets(in:)``): never a secret itself. A step
    /// recorded otherwise than it was taken counts in ``secretsTaken``. A step with nothing to hide is
    /// recorded as it is, without a look at its value.
    private func record(_ step: UserStep, in app: Application, declared: UserStep?) {
        let hidden = app.storage.hidingSecrets(in: declared ?? step)
        guard let kept = hidden ?? declared else { return app.stepLog.note(step) }
        if kept != step { secretsTaken &+= 1 }
        app.stepLog.note(kept)
    }
}
