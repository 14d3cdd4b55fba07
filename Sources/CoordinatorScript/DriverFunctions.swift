import CoordinatorCore
import CoordinatorLua

/// The driver functions a script or a REPL line uses to act as the user: `tap`, `back`, `dismiss`, `open`,
/// `top`, `tab`, `stack`, `reload`, `tree`, `snapshot`, `restore`. Globals of the Lua state, installed only when asked for (a REPL, a test, a
/// script that walks the app): an embedded runtime's scripts cannot tap on the user's behalf.
extension ScriptRuntime {
    /// Installs the driver functions as globals, once: `tap(output [, payload])`, `back()`, `dismiss()` (the
    /// swipe-down of the whole top modal), `open(url)` (a deep link: ``open(_:)``), `top()` (the visible
    /// screen), `tab(n)` or `tab("Title")`, `stack()` (the visible stack's screen names), `tree()` (the
    /// coordinator tree), `snapshot()` and `restore(json)` (``snapshot()``, ``restore(_:)``) and
    /// `reload(...)` (``reload(fresh:)``).
    public func installDriverFunctions() throws {
        guard !hasDriverFunctions else { return }
        try defineDriverFunctions()
        hasDriverFunctions = true
    }

    func defineDriverFunctions() throws {
        let globals = lua.globals
        try globals.set("tap", lua.function(name: "tap") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
            let output = try call.string(1), payload = try call.optional(2, as: FlowValue.self)
            try self.drive(call, "tap(\"\(output)\")") { try self.app.tap(output, payload: payload) }
        })
        try globals.set("back", lua.function(name: "back") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
            try self.drive(call, "back()") { try self.app.back() }
        })
        try globals.set("dismiss", lua.function(name: "dismiss") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
            try self.drive(call, "dismiss()") { try self.app.dismiss() }
        })
        try globals.set("open", lua.function(name: "open") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
            let url = try call.string(1)
            try self.drive(call, "open(\"\(url)\")") { try self.open(url) }
        })
        try globals.set("snapshot", lua.function(name: "snapshot") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
            try call.push(self.snapshot())
        })
        try globals.set("restore", lua.function(name: "restore") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
            let json = try call.string(1)
            try self.drive(call, "restore(...)") { try self.restore(json) }
        })
        try globals.set("top", lua.function(name: "top") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
            if let screen = self.app.window.visibleScreen { try call.push(LuaObject(screen)) }
        })
        try globals.set("tab", lua.function(name: "tab") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
            if call.type(1) == .string {
                let title = try call.string(1)
                return try self.drive(call, "tab(\"\(title)\")") { try self.app.selectTab(titled: title) }
            }
            let index = try call.integer(1).subtractingReportingOverflow(1).partialValue
            try self.drive(call, "tab(\(index &+ 1))") { try self.app.selectTab(index) }
        })
        try globals.set("stack", lua.function(name: "stack") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
            try call.push(self.app.window.visibleStack.map(\.name))
        })
        try globals.set("reload", lua.function(name: "reload") { [weak self] (call: LuaCall) throws -> Void in
            guard let self else { throw ScriptRuntime.gone() }
            // reload("cities", "visits") or reload { "cities" }: those file-level locals take their new value.
            var fresh: Set<String> = []
            for n in stride(from: 1, through: call.count, by: 1) where call.type(n) != .nil {
                if call.type(n) == .table { fresh.formUnion(try call.argument(n, as: [String].self)) } else { fresh.insert(try call.string(n)) }
            }
            try call.push(self.reload(fresh: fresh).description)
        })
        try globals.set("tree", lua.function(name: "tree") { [weak self] call in
            guard let self else { throw ScriptRuntime.gone() }
            if let root = self.app.root { try call.push(CoordinatorTree(root: root)) }
        })
    }
}

extension ScriptRuntime {
    /// Runs one step of the user (a tap, a Back, a tab switch). With ``strictDriving`` (in tests), the step
    /// is one operation that also fails when no handler heard its output or when the screen it shows does
    /// not render: a test never passes over a tap that did nothing or a broken screen.
    func drive(_ call: LuaCall, _ label: @autoclosure () -> String, _ step: () throws -> Void) throws {
        guard strictDriving else { return try step() }
        if let stepObserver { stepObserver.before(label() + (call.callerLocation.map { " at " + $0 } ?? "")) }
        try app.atomically {
            let unheard = app.unheard.count
            try step()
            if app.unheard.count != unheard, let last = app.unheard.last {
                throw NavigationError(.unknownOutput, "nothing handles \(last.output) on \(last.screen)")
            }
            _ = try app.window.visibleScreen?.checkedRendering()
        }
        try stepObserver?.after()
    }
}

extension ScriptRuntime {
    /// Takes a step as the user took it (a snapshot's restore and exploration replay steps with it); a link
    /// opens through the scripts' routes.
    package func take(_ step: UserStep) throws {
        switch step {
        case let .tap(output, payload): try app.tap(output, payload: payload)
        case .back: try app.back()
        case .dismiss: try app.dismiss()
        case .selectTab(let index): try app.selectTab(index)
        case .open(let url): try open(url)
        }
    }
}
