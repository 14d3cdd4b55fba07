import CoordinatorCore
import CoordinatorLua

/// The driver functions a script or a REPL line uses to act as the user: `tap`, `back`, `dismiss`, `open`,
/// `tab`, `swipeTo`, `swipe`, `sizeClass`, `event`, `advance`, `answer`, `relaunch`, `openWindow`, `window`,
/// `closeWindow` (each a ``UserStep`` taken with
/// `Application.perform(_:)`), and to look: `top`, `stack`, `tree`,
/// `snapshot`; and `restore`, `reload`. Globals of the Lua state, installed only when asked for (a REPL, a
/// test, a script that walks the app): an embedded runtime's scripts cannot tap on the user's behalf.
package final class DriverFunctions {
    /// Whether they are installed.
    private(set) var installed = false
    /// Whether `flow.app` installs them (``ScriptRuntime/installDriverFunctionsWhenAppDeclared()``).
    var whenAppDeclared = false
    /// How the driver functions take a step (its label, such as `tap("login") at app_test.lua:12`, and the
    /// step): nil, as it is; flow tests drive strictly (a tap no handler hears, a screen that does not
    /// render, fail the step) and let the lifecycle oracle follow each step.
    package var stepDriver: ((_ label: String, _ step: () throws -> Void) throws -> Void)?

    /// Installs the driver functions as globals, once: `tap(output [, payload])`, `back()`, `dismiss()` (the
    /// swipe-down of the whole top modal), `open(url)` (a deep link: ``open(_:)``), `top()` (the visible
    /// screen), `tab(n)` or `tab("Title")`, `swipeTo(n)` or `swipeTo("Title")` and `swipe("left" | "right")`
    /// (the pages' next or previous one), `sizeClass([width])` (the window's width, or a rotation),
    /// `event(name [, payload])` (the outside world sends an event; whether a flow heard it),
    /// `advance(seconds)` (time passes: the timers due fire), `answer(request or kind, outcome [, value])` (the
    /// outside answers a request), `random(k)` (the next random draw takes k), `pending([kind])` (the requests waiting), `relaunch()` (the app closes and
    /// launches again: only its storage and clock carry over), `openWindow()`, `window(n)`, `closeWindow(n)` and
    /// `windows()` (an iPad's windows: ``Application/windows``), `stack()` (the visible stack's screen names), `tree()` (the
    /// coordinator tree), `snapshot()` and `restore(json)` (``snapshot()``, ``restore(_:)``) and
    /// `reload(...)` (``reload(fresh:)``).
    func install(in runtime: ScriptRuntime) throws {
        guard !installed else { return }
        let lua = runtime.lua
        for (name, body) in Self.functions { try lua.globals.set(name, lua.function(name: name, holding: runtime, body)) }
        installed = true
    }

    /// The driver functions' names (`tap`, `back`, ...): an output of the same name hides one at run mode's
    /// prompt, which says so.
    package static var names: [String] { functions.map(\.name) }

    private static let functions: [(name: String, body: @Sendable (ScriptRuntime, borrowing LuaCall) throws -> Void)] = [
        ("tap", { runtime, call in
            try runtime.driverFunctions.drive(.tap(call.string(1), payload: call.optional(2, as: FlowValue.self)), call, in: runtime.app)
        }),
        ("back", { runtime, call in try runtime.driverFunctions.drive(.back, call, in: runtime.app) }),
        ("dismiss", { runtime, call in try runtime.driverFunctions.drive(.dismiss, call, in: runtime.app) }),
        ("open", { runtime, call in
            // open(url): nothing, or "held" for a link whose route requires another gateway state (it waits).
            let url = try call.string(1)
            var outcome = LinkOutcome.opened
            try runtime.driverFunctions.drive(UserStep.open(url).luaSource, call) { outcome = try runtime.open(url) }
            if outcome == .held { try call.pushResult(outcome.rawValue) }
        }),
        ("tab", { runtime, call in
            let index = call.type(1) == .string ? try runtime.app.tabIndex(titled: call.string(1))
                : try call.integer(1).subtractingReportingOverflow(1).partialValue
            try runtime.driverFunctions.drive(.selectTab(index), call, in: runtime.app)
        }),
        ("swipeTo", { runtime, call in
            let index = call.type(1) == .string ? try runtime.app.pageIndex(titled: call.string(1))
                : try call.integer(1).subtractingReportingOverflow(1).partialValue
            try runtime.driverFunctions.drive(.swipeTo(index), call, in: runtime.app)
        }),
        ("swipe", { runtime, call in
            // A finger moving left brings the next page, moving right the previous one.
            let direction = try call.string(1)
            guard direction == "left" || direction == "right" else {
                throw call.badArgument(1, "\"left\" (the next page) or \"right\" (the previous one) expected, got '\(direction)'")
            }
            guard let pages = runtime.app.window.visiblePages else { throw NavigationError(.badTab, "no pages are showing") }
            let index = pages.selectedIndex + (direction == "left" ? 1 : -1)
            guard pages.titles.indices.contains(index) else {
                throw NavigationError(.badTab, """
                    there is no page \(direction == "left" ? "after" : "before") \(pages.titles[pages.selectedIndex]) \
                    (pages: \(pages.titles.joined(separator: ", ")))
                    """)
            }
            try runtime.driverFunctions.drive(.swipeTo(index), call, in: runtime.app)
        }),
        ("event", { runtime, call in
            // event(name [, payload]): the outside world sends it; returns whether any flow heard it.
            let step = UserStep.event(try call.string(1), payload: try call.optional(2, as: FlowValue.self))
            try runtime.driverFunctions.drive(step, call, in: runtime.app)
            try call.pushResult(runtime.app.input.lastEventReceivers > 0)
        }),
        ("advance", { runtime, call in
            // advance(seconds): time passes; every timer due by then fires. Returns how many fired.
            try runtime.driverFunctions.drive(.advance(try call.number(1)), call, in: runtime.app)
            try call.pushResult(runtime.app.input.lastFirings)
        }),
        ("answer", { runtime, call in
            // answer(request or kind, outcome [, value]): the outside answers a pending request (with a
            // kind, the oldest of it); value defaults to the outcome's example.
            let app = runtime.app
            let kind: String, nth: Int
            if call.type(1) == .string {
                (kind, nth) = (try call.string(1), 0)
            } else {
                let request = try call.object(1, as: PendingRequest.self)
                guard let index = app.pendingRequests.filter({ $0.kind == request.kind }).firstIndex(where: { $0 === request }) else {
                    throw NavigationError(.unknownRequest, "request \(request.kind)#\(request.id) is not pending: it was answered or cancelled")
                }
                (kind, nth) = (request.kind, index)
            }
            let step = UserStep.answer(kind, nth: nth, outcome: try call.string(2), value: try call.optional(3, as: FlowValue.self))
            try runtime.driverFunctions.drive(step, call, in: app)
        }),
        ("pending", { runtime, call in
            // pending([kind]): the requests waiting for an answer (of that kind), oldest first.
            let kind = call.type(1).rawValue > LuaType.nil.rawValue ? try call.string(1) : nil
            try call.pushResult(runtime.app.pendingRequests.filter { kind == nil || $0.kind == kind }.map { LuaObject($0) })
        }),
        ("relaunch", { runtime, call in
            // relaunch(): the app closes and launches again as a new process would; only flow.storage and
            // the clock carry over.
            try runtime.driverFunctions.drive(.relaunch, call, in: runtime.app)
        }),
        ("openWindow", { runtime, call in
            // openWindow(): another window of the app (an iPad's scene) with its own root flow; it becomes
            // the one the driver functions act on.
            try runtime.driverFunctions.drive(.openWindow, call, in: runtime.app)
        }),
        ("window", { runtime, call in
            // window(n): window n becomes the one the driver functions act on; window(): its number.
            guard call.type(1).rawValue > LuaType.nil.rawValue else { return try call.pushResult(runtime.app.window.number) }
            try runtime.driverFunctions.drive(.selectWindow(try windowNumber(call)), call, in: runtime.app)
        }),
        ("closeWindow", { runtime, call in
            // closeWindow(n): window n closes, its flows finish (not the last one open).
            try runtime.driverFunctions.drive(.closeWindow(try windowNumber(call)), call, in: runtime.app)
        }),
        ("windows", { runtime, call in
            // windows(): the numbers of the windows open, in opening order.
            try call.pushResult(runtime.app.windows.all.map(\.number))
        }),
        ("random", { runtime, call in
            // random(k): the next random draw takes k (a flow test gives each draw this way, before its step).
            guard call.type(1) == .number else { throw call.badArgument(1, "an integer expected: the value the next random draw takes") }
            runtime.app.draws.give([try call.integer(1)])
        }),
        ("snapshot", { runtime, call in try call.pushResult(runtime.snapshot()) }),
        ("restore", { runtime, call in
            // restore(json [, secrets]): secrets by name ({ password = "..." }) or a function(name, step).
            let json = try call.string(1)
            var secrets: ((SnapshotSecret) throws -> FlowValue)?
            switch call.type(2) {
            case .nil, .none: break
            case .table:
                let table = try call.argument(2, as: LuaTable.self)
                // Names the snapshot does not ask for are a mistake (a misspelt secret), said before anything runs.
                let needed = AppSnapshot.secretNames(in: json)
                try table.checkKeys(needed, of: "restore's secrets",
                                    taking: needed.isEmpty ? "none: this snapshot needs no secret" : needed.joined(separator: ", "))
                secrets = { secret in
                    guard let value = try table.get(secret.name, as: FlowValue?.self) else {
                        throw LuaError(.runtime, "restore's secrets have no '\(secret.name)'")
                    }
                    return value
                }
            case .function:
                let function = try call.argument(2, as: LuaFunction.self)
                secrets = { secret in try function.call(secret.name, secret.step, as: FlowValue.self) }
            default:
                throw LuaError(.runtime, "bad argument #2 to 'restore' (a table of secrets by name, or a function(name, step), expected)")
            }
            // Returns the warning of a snapshot of scripts whose code changed (restored: its steps build the
            // same app), or nothing.
            var warning: RestoreWarning?
            try runtime.driverFunctions.drive("restore(...)", call) {
                warning = if let secrets { try runtime.restore(json, secrets: secrets) } else { try runtime.restore(json) }
            }
            if let warning { try call.pushResult(warning.message) }
        }),
        ("top", { runtime, call in
            // top() is the visible screen; top("primary"), top("supplementary"), top("secondary") a split's
            // column's top screen.
            guard call.type(1).rawValue > LuaType.nil.rawValue else {
                if let screen = runtime.app.window.visibleScreen { try call.pushResult(LuaObject(screen)) }
                return
            }
            let name = try call.string(1)
            guard let column = SplitContainer.Column(rawValue: name) else {
                throw call.badArgument(1, "a split's column (primary, supplementary, secondary) expected, got '\(name)'")
            }
            guard let split = runtime.app.window.shownSplit else {
                throw NavigationError(.containerNotShown, "no split is showing")
            }
            guard let stack = split.stack(column) else { throw NavigationError(.containerNotShown, "the split has no \(name) column") }
            if let screen = stack.visibleScreen { try call.pushResult(LuaObject(screen)) }
        }),
        ("sizeClass", { runtime, call in
            // sizeClass() is the window's width; sizeClass("compact") or sizeClass("regular") changes it.
            guard call.type(1).rawValue > LuaType.nil.rawValue else { return try call.pushResult(runtime.app.window.sizeClass.rawValue) }
            let name = try call.string(1)
            guard let sizeClass = SizeClass(rawValue: name) else {
                throw call.badArgument(1, "\"compact\" or \"regular\" expected, got '\(name)'")
            }
            try runtime.driverFunctions.drive(.sizeClass(sizeClass), call, in: runtime.app)
        }),
        ("stack", { runtime, call in try call.pushResult(runtime.app.window.visibleStack.map(\.name)) }),
        ("reload", { runtime, call in
            // reload("cities", "visits") or reload { "cities" }: those file-level locals take their new value.
            var fresh: Set<String> = []
            for n in stride(from: 1, through: call.count, by: 1) where call.type(n) != .nil {
                if call.type(n) == .table { fresh.formUnion(try call.argument(n, as: [String].self)) } else { fresh.insert(try call.string(n)) }
            }
            try call.pushResult(runtime.reload(fresh: fresh).description)
        }),
        ("tree", { runtime, call in
            if let root = runtime.app.root { try call.pushResult(CoordinatorTree(root: root)) }
        }),
    ]

    /// A window's number, argument 1 (an integer from 1).
    private static func windowNumber(_ call: borrowing LuaCall) throws -> Int {
        guard call.type(1) == .number, let number = try? call.integer(1), number >= 1 else {
            throw call.badArgument(1, "a window's number (1, 2, ...) expected")
        }
        return number
    }

    /// Takes a step of the user for a driver function (``stepDriver`` decides how: strictly, in flow tests).
    func drive(_ step: UserStep, _ call: borrowing LuaCall, in app: Application) throws {
        try drive(step.luaSource, call) { try app.perform(step) }
    }

    /// Runs `body`, a driver function's action, as ``stepDriver`` says (`label` and the caller's place name
    /// it), or as it is.
    func drive(_ label: @autoclosure () -> String, _ call: borrowing LuaCall, _ body: () throws -> Void) throws {
        guard let stepDriver else { return try body() }
        try stepDriver(label() + (call.callerLocation.map { " at " + $0 } ?? ""), body)
    }
}
