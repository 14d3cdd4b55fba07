import CoordinatorCore
import CoordinatorLua

/// The methods of every coordinator instance in Lua (`self:push(...)`, `self.router:push(...)`,
/// `self:run(...)`, `self:finish(...)`, ...): one function each, registered on the coordinator's handle
/// userdata, whose methods an instance table calls directly (the prelude's instances keep their handle in
/// `__handle`: see `LuaClassBuilder.standIn(field:)`).
///
/// Each takes the runtime, the coordinator and the call; its arguments start at 1 (after `self`).
enum CoordinatorMethods {
    typealias Method = @Sendable (ScriptRuntime, Coordinator, borrowing LuaCall) throws -> Void

    /// Every method, by its Lua name.
    static let all: [(name: String, body: Method)] = [
        ("push", push), ("present", present), ("setRoot", setRoot), ("pop", pop), ("popToRoot", popToRoot),
        ("dismiss", dismiss), ("selectTab", selectTab), ("alert", alert), ("run", run), ("setTabs", setTabs),
        ("finish", finish), ("update", update), ("send", send), ("onSignal", onSignal), ("onEvent", onEvent),
        ("after", after), ("every", every), ("later", later), ("request", request),
        ("screens", screens), ("children", children), ("child", child), ("setBadge", setBadge),
        ("setPages", setPages), ("selectPage", selectPage), ("setSplit", setSplit), ("showDetail", showDetail),
    ]

    /// `self:push(name [, inputs [, { animated = bool, transition = "name" }]])`: pushes a new screen;
    /// returns it.
    static func push(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let screen = try runtime.screens.make(call, for: coordinator)
        let options = try call.options(3, of: "push", known: ["animated", "transition"])
        try coordinator.push(screen, animated: options?.get("animated", as: Bool?.self) ?? true,
                             animation: transition(from: options))
        try call.pushResult(LuaObject(new: screen)) // made above: Lua has not seen it
    }

    /// `self:present(name [, inputs [, { animated = bool, transition = "name", presentation = ... }]])`:
    /// presents a new screen modally; returns it.
    static func present(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let screen = try runtime.screens.make(call, for: coordinator)
        let options = try call.options(3, of: "present", known: ["animated", "transition"] + presentationOptions)
        try coordinator.present(screen, animated: options?.get("animated", as: Bool?.self) ?? true,
                                presentation: presentation(from: options, of: call) ?? Presentation(),
                                animation: transition(from: options))
        try call.pushResult(LuaObject(new: screen))
    }

    /// `self:setRoot(name [, inputs [, { hideBar = bool, animated = bool }]])`: replaces the stack with a
    /// new screen; returns it.
    static func setRoot(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let screen = try runtime.screens.make(call, for: coordinator)
        let options = try call.options(3, of: "setRoot", known: ["hideBar", "animated"])
        try coordinator.setRoot(screen, hideBar: options?.get("hideBar", as: Bool?.self) ?? false,
                                animated: options?.get("animated", as: Bool?.self) ?? true)
        try call.pushResult(LuaObject(new: screen))
    }

    /// The custom animation an options table names (`transition = "zoom"`): data for the host's router,
    /// shown in the event log.
    static func transition(from options: CallOptions?) throws -> String? {
        guard let name = try options?.get("transition", as: String?.self) else { return nil }
        guard !name.isEmpty, !name.contains(where: \.isNewline) else {
            throw LuaError(.runtime, "a transition is named by a non-empty one-line string (transition = \"zoom\")")
        }
        return name
    }

    /// The options that say how a modal is presented.
    static let presentationOptions = ["presentation", "dismissable", "detents"]

    /// The presentation an options table asks for (`presentation = "fullScreen"`, `dismissable = false`,
    /// `detents = { "medium", "large" }`), or nil when it names none of them.
    static func presentation(from options: CallOptions?, of call: borrowing LuaCall) throws -> Presentation? {
        guard let options else { return nil }
        let styleName = try options.get("presentation", as: String?.self)
        let dismissable = try options.get("dismissable", as: Bool?.self)
        let detents = try options.get("detents", as: [String]?.self)
        guard styleName != nil || dismissable != nil || detents != nil else { return nil }
        var presentation = Presentation(dismissable: dismissable ?? true, detents: detents ?? [])
        if let styleName {
            guard let style = Presentation.Style(rawValue: styleName) else {
                throw LuaError(.runtime, """
                    no presentation '\(styleName)' (presentations: \
                    \(Presentation.Style.allCases.map(\.rawValue).joined(separator: ", ")))
                    """)
            }
            presentation.style = style
        }
        if !presentation.detents.isEmpty, presentation.style != .pageSheet, presentation.style != .formSheet {
            throw LuaError(.runtime, "detents are a sheet's (pageSheet, formSheet), not a \(presentation.style.rawValue)'s")
        }
        if let bad = presentation.detents.first(where: { $0 != "medium" && $0 != "large" }) {
            throw LuaError(.runtime, "no detent '\(bad)' (detents: medium, large)")
        }
        return presentation
    }

    /// `self:pop()`.
    static func pop(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        try coordinator.pop()
    }

    /// `self:popToRoot()`.
    static func popToRoot(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        try coordinator.popToRoot()
    }

    /// `self:dismiss()`.
    static func dismiss(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        try coordinator.dismiss()
    }

    /// `self:selectTab(n)` (tabs counted from 1, as Lua counts) or `self:selectTab("Title")`: by the
    /// coordinator that set the tabs, or a flow in one of them.
    static func selectTab(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        if call.type(1) == .string { return try coordinator.selectTab(titled: call.string(1)) }
        try coordinator.selectTab(call.integer(1).subtractingReportingOverflow(1).partialValue)
    }

    /// `self:setBadge(tab, value)`: the badge of a tab (its number from 1, or its title) of the tabs it set
    /// or shows in, as the tab bar shows it beside the title (`Cart (3)`); nil clears it.
    static func setBadge(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let value = try call.optional(2, as: FlowValue.self)
        if call.type(1) == .string {
            let title = try call.string(1)
            guard let index = coordinator.tabs?.index(ofTitle: title) else {
                throw NavigationError(
                    .badTab,
                    "there is no tab titled '\(title)'" + (coordinator.tabs.map { " (tabs: \($0.titles.joined(separator: ", ")))" } ?? "")
                )
            }
            return try coordinator.setBadge(value, onTab: index)
        }
        try coordinator.setBadge(value, onTab: call.integer(1).subtractingReportingOverflow(1).partialValue)
    }

    /// `self:screens()`: the screens it shows, in the order it showed them.
    static func screens(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        try call.pushResult(coordinator.screens.map { LuaObject($0) })
    }

    /// `self:children()`: its running child flows' instances (a Swift coordinator's handle), oldest first.
    static func children(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let name = try childClassName(runtime, call, required: false)
        let list = try runtime.lua.newTable()
        var count = 0
        for child in coordinator.children where child.status == .running && (name == nil || child.name == name) {
            count += 1
            try list.set(count, value(of: child))
        }
        try call.pushResult(list)
    }

    /// `self:child(Class)`: its newest running direct child of that class (the class or its name), or nil:
    /// the "already open" guard (`if self:child(Settings) then return end`).
    static func child(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let name = try childClassName(runtime, call, required: true)
        guard let child = coordinator.children.last(where: { $0.status == .running && $0.name == name }) else { return }
        try call.pushResult(value(of: child))
    }

    /// The class argument 1 names (a class, `flow.coordinator "Name"`'s value, or its name); nil when there is
    /// none and none is `required`.
    private static func childClassName(_ runtime: ScriptRuntime, _ call: borrowing LuaCall, required: Bool) throws -> String? {
        switch call.type(1) {
        case .string: return try call.string(1)
        case .table: return try runtime.classes.class(at: 1, of: call).name
        case .none where !required, .nil where !required: return nil
        default: throw call.badArgument(1, "expected a coordinator class or its name")
        }
    }

    /// A child as Lua sees it: a scripted flow's instance (its `self`), a Swift coordinator's handle.
    private static func value(of child: Coordinator) -> any LuaPushable {
        if let scripted = child as? ScriptedCoordinator { return scripted.instance.map(LuaValue.table) ?? LuaValue.nil }
        return LuaObject(child)
    }

    /// `self:alert { title = ..., message = ..., actions = { "OK", { "Delete", function() ... end, style =
    /// "destructive" }, { "Cancel", style = "cancel" } } }`: shows an alert; returns its screen.
    static func alert(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let spec = try call.argument(1, as: LuaTable.self)
        try spec.checkKeys(["title", "message", "actions", "style"], of: "an alert's fields")
        let title = try spec.get("title", as: String?.self) ?? ""
        let styleName = try spec.get("style", as: String?.self) ?? "alert"
        guard let style = AlertStyle(rawValue: styleName) else {
            throw LuaError(.runtime, "no alert style '\(styleName)' (styles: alert, actionSheet)")
        }
        let message = try spec.get("message", as: String?.self)
        var actions: [(title: String, handler: (() throws -> Void)?)] = []
        var roles: [String: AlertActionRole] = [:]
        var callbacks: [LuaCallback] = []
        for item in try spec.get("actions", as: [LuaValue]?.self) ?? ["OK"] {
            if let name = item.stringValue {
                actions.append((name, nil))
            } else if let pair = item.tableValue, let name = try pair.rawGet(1, as: String?.self) {
                let callback = try pair.rawGet(2, as: LuaFunction?.self).map(LuaCallback.init)
                callbacks += callback.map { [$0] } ?? []
                actions.append((name, callback.map { f in { try f.call() } }))
                // What the action does, as UIKit's action styles say: drawn bold and apart, or in red.
                if let roleName = try pair.rawGet("style", as: String?.self) {
                    guard let role = AlertActionRole(rawValue: roleName) else {
                        throw LuaError(.runtime, "no action style '\(roleName)' (styles: default, cancel, destructive)")
                    }
                    roles[name] = role
                }
            } else {
                throw call.badArgument(1, "actions are names or { name, function, style = ... }")
            }
        }
        let alert = try coordinator.alert(title: title, message: message, style: style, actions: actions, roles: roles)
        // An action's function is part of the app while its alert is up (``LuaCallback/isKept``).
        for callback in callbacks { callback.isKept = { [weak alert] in alert?.isShown == true } }
        try call.pushResult(LuaObject(alert))
    }

    /// `self:run(Class [, args [, { modal = bool, onFinish = function(result, reason) ... end }]])`: runs a
    /// child coordinator; returns its instance (a Swift coordinator's handle).
    static func run(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let type = try runtime.classes.class(at: 1, of: call)
        let args = try call.optional(2, as: FlowValue.self)
        let options = try call.options(3, of: "run", known: ["modal", "onFinish", "transition"] + presentationOptions)
        let modal = try options?.get("modal", as: Bool?.self) ?? false
        let presentation = try presentation(from: options, of: call)
        let animation = try transition(from: options)
        if presentation != nil || animation != nil, !modal {
            throw LuaError(.runtime, "run's presentation and transition options are for a modal flow: add modal = true")
        }
        let onFinish = try options?.get("onFinish", as: LuaValue.self).functionValue
        let (child, scripted) = runtime.classes.make(type, onFinish: onFinish, in: runtime)
        try coordinator.run(child, with: args, modal: modal, presentation: presentation ?? Presentation(), animation: animation)
        if let scripted {
            try call.pushResult(scripted.instance.map(LuaValue.table) ?? .nil)
        } else {
            try call.pushResult(LuaObject(child)) // a Swift coordinator: its handle
        }
    }

    /// `self:setTabs { { "Title", Class [, args] }, { "Compose", action = function() ... end }, ... }`: one
    /// tab per entry, each flow with its own navigation stack and a child coordinator started on it, each
    /// action a button in the tab bar; returns the flows' instances, in order.
    static func setTabs(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        enum Entry { case flow(title: String, type: LuaTable, args: FlowValue?), action(title: String, LuaFunction) }
        var entries: [Entry] = []
        for item in try call.argument(1, as: [LuaTable].self) {
            try item.checkKeys(["action"], positions: 3, of: "a tab's entries",
                               taking: "\"Title\", Class [, args], in that order; or \"Title\", action = function")
            guard let title = try item.rawGet(1, as: String?.self) else {
                throw call.badArgument(1, "tabs are { \"Title\", CoordinatorClass [, args] } or { \"Title\", action = function() ... end }")
            }
            switch try item.rawGet("action", as: LuaValue.self) {
            case .nil:
                guard let type = try item.rawGet(2, as: LuaTable?.self), try type.rawGet("__name", as: String?.self) != nil else {
                    throw call.badArgument(1, "tabs are { \"Title\", CoordinatorClass [, args] } or { \"Title\", action = function() ... end }")
                }
                entries.append(.flow(title: title, type: type, args: try item.rawGet(3, as: FlowValue?.self)))
            case .function(let action):
                guard try item.rawGet(2, as: LuaValue.self) == .nil else {
                    throw call.badArgument(1, "tab '\(title)' is an action: it takes no coordinator class")
                }
                entries.append(.action(title: title, action))
            default:
                throw call.badArgument(1, "tab '\(title)': action is a function")
            }
        }
        var items: [TabBarItem] = []
        var flows: [(ScriptedCoordinator, FlowValue?)] = []
        for entry in entries {
            switch entry {
            case let .flow(title, type, args):
                let child = ScriptedCoordinator(runtime: runtime, type: type)
                flows.append((child, args))
                items.append(.flow(title: title, child))
            case let .action(title, function):
                // Part of the app while the coordinator that set the tabs runs (``LuaCallback/isKept``).
                let action = try LuaCallback(function)
                action.isKept = { [weak coordinator] in coordinator?.isRunning == true }
                items.append(.action(title: title) { try action.call() })
            }
        }
        try runtime.app.atomically {
            try coordinator.setTabs(items)
            for (child, args) in flows { try coordinator.run(child, with: args) }
        }
        try call.pushResult(flows.map { $0.0.instance.map(LuaValue.table) ?? .nil })
    }

    /// `self:setSplit { primary = { Class [, args] }, secondary = { Class [, args] } [, supplementary = ...] }`:
    /// a split in place of its container, each column with its own navigation stack and a child
    /// coordinator started on it; returns `{ primary = child, secondary = child, supplementary = child }`.
    static func setSplit(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let spec = try call.argument(1, as: LuaTable.self)
        try spec.checkKeys(["primary", "secondary", "supplementary"], of: "a split's columns")
        var columns: [(SplitContainer.Column, ScriptedCoordinator, FlowValue?)] = []
        for column in [SplitContainer.Column.primary, .supplementary, .secondary] {
            guard let entry = try spec.rawGet(column.rawValue, as: LuaTable?.self) else {
                if column == .supplementary { continue }
                throw call.badArgument(1, "a split needs a \(column.rawValue) column: { \(column.rawValue) = { Class [, args] } }")
            }
            try entry.checkKeys([], positions: 2, of: "a split's \(column.rawValue) column's entries", taking: "Class [, args], in that order")
            guard let type = try entry.rawGet(1, as: LuaTable?.self), try type.rawGet("__name", as: String?.self) != nil else {
                throw call.badArgument(1, "a split's \(column.rawValue) column is { CoordinatorClass [, args] }")
            }
            columns.append((column, ScriptedCoordinator(runtime: runtime, type: type), try entry.rawGet(2, as: FlowValue?.self)))
        }
        func child(_ column: SplitContainer.Column) -> ScriptedCoordinator? { columns.first { $0.0 == column }?.1 }
        guard let primary = child(.primary), let secondary = child(.secondary) else { return }
        try runtime.app.atomically {
            try coordinator.setSplit(primary: primary, secondary: secondary, supplementary: child(.supplementary))
            for (_, child, args) in columns { try coordinator.run(child, with: args) }
        }
        let result = try runtime.lua.newTable()
        for (column, child, _) in columns { try result.set(column.rawValue, child.instance.map(LuaValue.table) ?? .nil) }
        try call.pushResult(result)
    }

    /// `self:showDetail(name [, inputs])`: a new screen as the secondary column of the split this
    /// coordinator is in (or set), in place of that column's stack; returns it. The screen is this
    /// coordinator's.
    static func showDetail(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let screen = try runtime.screens.make(call, for: coordinator)
        try coordinator.showDetail(screen)
        try call.pushResult(LuaObject(new: screen))
    }

    /// `self:setPages { { "Title", Class [, args] }, ... }`: pages in place of its container, each with its
    /// own navigation stack and a child coordinator started on it; returns the children's instances.
    static func setPages(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        var pages: [(title: String, type: LuaTable, args: FlowValue?)] = []
        for item in try call.argument(1, as: [LuaTable].self) {
            try item.checkKeys([], positions: 3, of: "a page's entries", taking: "\"Title\", Class [, args], in that order")
            guard let title = try item.rawGet(1, as: String?.self), let type = try item.rawGet(2, as: LuaTable?.self),
                  try type.rawGet("__name", as: String?.self) != nil
            else { throw call.badArgument(1, "pages are { \"Title\", CoordinatorClass [, args] }") }
            pages.append((title, type, try item.rawGet(3, as: FlowValue?.self)))
        }
        let children = pages.map { ScriptedCoordinator(runtime: runtime, type: $0.type) }
        try runtime.app.atomically {
            try coordinator.setPages(pages.map(\.title), for: children)
            for (child, page) in zip(children, pages) { try coordinator.run(child, with: page.args) }
        }
        try call.pushResult(children.map { $0.instance.map(LuaValue.table) ?? .nil })
    }

    /// `self:selectPage(n)` (from 1) or `self:selectPage("Title")`: by the coordinator that set the pages,
    /// or a page's flow.
    static func selectPage(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        if call.type(1) == .string {
            let title = try call.string(1)
            guard let pages = coordinator.pages else { throw NavigationError(.badTab, "\(coordinator.name) shows no pages") }
            guard let index = pages.index(ofTitle: title) else {
                throw NavigationError(.badTab, "there is no page titled '\(title)' (pages: \(pages.titles.joined(separator: ", ")))")
            }
            return try coordinator.selectPage(index)
        }
        try coordinator.selectPage(call.integer(1).subtractingReportingOverflow(1).partialValue)
    }

    /// `self:finish([result])`.
    static func finish(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        try coordinator.finish(call.optional(1, as: FlowValue.self))
    }

    /// `self:update("input", value)` or `self:update { input = value, ... }`: as `flow.update`.
    static func update(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        try call.pushResult(try runtime.update(call))
    }

    /// `self:send(name [, payload [, { windows = "all" }]])`: sends a signal up the tree (and through every
    /// window's, with `windows = "all"`); returns the replies.
    static func send(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        // self:send(name, payload, { windows = "all" }): through every window's tree too.
        var everyWindow = false
        if let options = try call.options(3, of: "send", known: ["windows"]), let windows = try options.get("windows", as: String?.self) {
            guard windows == "all" else { throw LuaError(.runtime, "send's option windows is \"all\" (every window's tree), not '\(windows)'") }
            everyWindow = true
        }
        let signal = try coordinator.send(call.string(1), payload: call.optional(2, as: FlowValue.self), everyWindow: everyWindow)
        try call.pushResult(signal.replies)
    }

    /// `self:after(seconds, function() ... end)`: a timer of the app's clock that fires once; returns it
    /// (`timer:cancel()`). It is this coordinator's: cancelled, its function released, when it finishes.
    static func after(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let seconds = try call.number(1)
        let callback = try call.argument(2, as: LuaCallback.self)
        try call.pushResult(LuaObject(kept(callback, by: try coordinator.after(seconds) { try callback.call() })))
    }

    /// `self:every(seconds, function() ... end)`: a timer that fires every `seconds`; returns it.
    static func every(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let seconds = try call.number(1)
        let callback = try call.argument(2, as: LuaCallback.self)
        try call.pushResult(LuaObject(kept(callback, by: try coordinator.every(seconds) { try callback.call() })))
    }

    /// `self:later(function() ... end)`: runs the function right after the running operation, in one of its
    /// own, as part of the same step and before any other (``Coordinator/later(_:)``); returns its handle
    /// (`pending`, `cancel()`). It is this coordinator's: cancelled when it finishes.
    static func later(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let callback = try call.argument(1, as: LuaCallback.self)
        let later = try coordinator.later { try callback.call() }
        callback.isKept = { [weak later] in later?.isPending == true }
        try call.pushResult(LuaObject(later))
    }

    /// `timer`, whose action calls `callback`: the callback is part of the app while the timer is pending
    /// (``LuaCallback/isKept``).
    private static func kept(_ callback: LuaCallback, by timer: AppTimer) -> AppTimer {
        callback.isKept = { [weak timer] in timer?.isPending == true }
        return timer
    }

    /// `self:request(kind [, payload])`: starts a request the outside answers later (`flow.request`);
    /// returns it (set `r.onResult = function(outcome, value) ... end`; `r:cancel()`). It is this
    /// coordinator's: cancelled when it finishes, its answer dropped.
    static func request(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let request = try coordinator.request(call.string(1), payload: call.optional(2, as: FlowValue.self))
        try call.pushResult(LuaObject(request))
    }

    /// `self:onEvent(name, function(payload, name) ... end)`: handles an event the outside world sends
    /// (`flow.event`, or the app's own `background` and `foreground`); one handler per name.
    static func onEvent(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let name = try call.string(1)
        let callback = try call.argument(2, as: LuaCallback.self)
        try coordinator.onEvent(name) { payload, name in try callback.call(payload, name) }
        // Part of the app while its coordinator runs with this handler for the name (``LuaCallback/isKept``).
        let serial = coordinator.handlerSerial(event: name)
        callback.isKept = { [weak coordinator] in coordinator.map { $0.isRunning && $0.handlerSerial(event: name) == serial } ?? false }
    }

    /// `self:onSignal(name, function(payload, name) ... end)`: handles a signal from below.
    static func onSignal(_ runtime: ScriptRuntime, _ coordinator: Coordinator, _ call: borrowing LuaCall) throws {
        let name = try call.string(1)
        let callback = try call.argument(2, as: LuaCallback.self)
        coordinator.onSignal(name, runtime.signalHandler(callback))
        // Part of the app while its coordinator runs with this handler for the name (``LuaCallback/isKept``).
        let serial = coordinator.handlerSerial(signal: name)
        callback.isKept = { [weak coordinator] in coordinator.map { $0.isRunning && $0.handlerSerial(signal: name) == serial } ?? false }
    }
}
