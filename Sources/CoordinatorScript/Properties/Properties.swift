import CoordinatorCore
import CoordinatorLua

/// What the team means, said in the scripts and checked by the tools (docs/Explore.md, "Properties"):
///
/// ```lua
/// flow.invariant("the cart's total is never negative", function(app)
///   for _, cart in ipairs(app.screens("Cart")) do if cart.total < 0 then return false end end
///   return true
/// end)
/// flow.reachable("the catalog can always be reached", function(app) return app.top().name == "Categories" end)
/// ```
///
/// An **invariant** holds in every state: flow tests check it after every step, the REPL after every line
/// that changed the app, exploration in every state it reaches. A **reachable** property says that from
/// every reachable state some state where it holds can be reached (no traps): exploration checks it over
/// the graph it found. Each function gets a read-only view of the app (``appView``): `top()`, `stack()`,
/// `tree()`, `screens([type])`, `flows([class])`, `gateway`, `storage`, `now`. It may read the app's data; it
/// may not change anything: one that changes the navigation is an error wherever it runs (the change
/// undone), and exploration also refuses one that changes the scripts' data.
final class Properties {
    /// One property: its kind, its name, its function and where it was declared.
    struct Property {
        let kind: PropertyKind
        let name: String
        let function: LuaFunction
        let location: String
    }

    /// The properties, in the order declared (one declared again by name replaces it in place).
    private(set) var declared: [Property] = []
    /// The read-only view of the app each function gets, made on first need.
    private var view: LuaTable?

    /// `flow.invariant(name, fn)` or `flow.reachable(name, fn)`.
    func declare(_ kind: PropertyKind, _ call: borrowing LuaCall) throws {
        let name = try call.string(1)
        guard !name.isEmpty, !name.contains(where: \.isNewline) else {
            throw call.badArgument(1, "a property is named by a non-empty one-line string")
        }
        guard call.type(2) == .function else {
            throw call.badArgument(2, "a function(app) that returns whether the property holds expected")
        }
        let property = Property(kind: kind, name: name, function: try call.argument(2, as: LuaFunction.self), location: call.callerLocation ?? "?")
        if let i = declared.firstIndex(where: { $0.name == name }) {
            guard declared[i].kind == kind else {
                throw LuaError(.runtime, "property '\(name)' is declared already as \(declared[i].kind.function) (\(declared[i].location))")
            }
            declared[i] = property
        } else {
            declared.append(property)
        }
    }

    /// The view's Lua value, once made: the runtime's own, no part of an app's state.
    var cacheValues: [any LuaPushable] { view.flatMap { $0.isAlive ? [$0] : nil } ?? [] }

    /// Forgets every property (the scripts declare them again: a reload, a relaunch).
    func removeAll() { declared = [] }

    /// Puts back the properties of before (a reload or a relaunch that failed).
    func restore(_ saved: [Property]) { declared = saved }

    /// Whether the scripts declare properties of `kind`.
    func has(_ kind: PropertyKind) -> Bool { declared.contains { $0.kind == kind } }

    /// Evaluates the properties of `kind` in the app as it is: for each, whether it holds, or why it could
    /// not be told (its function failed, or changed the app: the change is undone).
    func evaluate(_ kind: PropertyKind, in runtime: ScriptRuntime) throws -> [PropertyResult] {
        let app = runtime.app
        var results: [PropertyResult] = []
        for property in declared where property.kind == kind {
            let view = try appView(runtime)
            do {
                let holds = try app.atomically {
                    let before = app.changeCount
                    let value = try property.function.call(view, as: LuaValue.self)
                    guard app.changeCount == before else { throw PropertyChangedApp() }
                    return value != .nil && value != .boolean(false)
                }
                results.append(PropertyResult(kind: kind, name: property.name, holds: holds, failure: nil, location: property.location))
            } catch is PropertyChangedApp {
                results.append(PropertyResult(kind: kind, name: property.name, holds: false,
                                              failure: "it changed the app: a property only reads", location: property.location))
            } catch {
                results.append(PropertyResult(kind: kind, name: property.name, holds: false, failure: "\(error)", location: property.location))
            }
        }
        return results
    }

    private struct PropertyChangedApp: Error {}

    /// The read-only view of the app a property gets: functions that read it, never change it.
    private func appView(_ runtime: ScriptRuntime) throws -> LuaTable {
        if let view, view.isAlive { return view } // one made in a branch the heap came back from is made again
        let lua = runtime.lua
        let made = try lua.load(Self.viewSource, name: "=[properties]", cached: true).call(Self.primitives(runtime), as: LuaTable.self)
        view = made
        return made
    }

    /// The Swift functions the view is made of.
    private static func primitives(_ runtime: ScriptRuntime) throws -> LuaTable {
        let lua = runtime.lua
        let native = try lua.newTable()
        try native.set("top", lua.function(name: "top", holding: runtime) { runtime, call in
            if let screen = runtime.app.window.visibleScreen { try call.pushResult(LuaObject(screen)) }
        })
        try native.set("stack", lua.function(name: "stack", holding: runtime) { runtime, call in
            try call.pushResult(runtime.app.window.visibleStack.map(\.name))
        })
        try native.set("tree", lua.function(name: "tree", holding: runtime) { runtime, call in
            if let root = runtime.app.root { try call.pushResult(CoordinatorTree(root: root)) }
        })
        try native.set("screens", lua.function(name: "screens", holding: runtime) { runtime, call in
            let type = call.type(1).rawValue > LuaType.nil.rawValue ? try call.string(1) : nil
            let screens = runtime.app.window.allScreens.filter { type == nil || $0.name == type }
            let list = try runtime.lua.newTable()
            for (i, screen) in screens.enumerated() { try list.rawSet(i + 1, LuaObject(screen)) }
            try call.pushResult(list)
        })
        try native.set("flows", lua.function(name: "flows", holding: runtime) { runtime, call in
            let name = call.type(1).rawValue > LuaType.nil.rawValue ? try call.string(1) : nil
            let list = try runtime.lua.newTable()
            var n = 0
            for coordinator in runtime.app.root?.subtree ?? [] where coordinator.status == .running && (name == nil || coordinator.name == name) {
                guard let instance = (coordinator as? ScriptedCoordinator)?.instance else { continue }
                n += 1
                try list.rawSet(n, instance)
            }
            try call.pushResult(list)
        })
        try native.set("gateway", lua.function(name: "gateway", holding: runtime) { runtime, call in
            try call.pushResult(runtime.app.gateway.state.rawValue)
        })
        try native.set("now", lua.function(name: "now", holding: runtime) { runtime, call in
            try call.pushResult(runtime.app.clock.now)
        })
        try native.set("storage", lua.function(name: "storage", holding: runtime) { runtime, call in
            try call.pushResult(runtime.frozen(.record(runtime.app.storage.values)))
        })
        return native
    }

    /// The view: `app.top()`, `app.stack()`, `app.tree()`, `app.screens([type])`, `app.flows([class])`, and
    /// `app.gateway`, `app.storage`, `app.now` read when asked; nothing can be set on it.
    private static let viewSource = """
        local native = ...
        local fields = { gateway = native.gateway, storage = native.storage, now = native.now }
        local methods = { top = native.top, stack = native.stack, tree = native.tree, screens = native.screens, flows = native.flows }
        return setmetatable({}, {
          __index = function(_, key)
            local read = fields[key]
            if read then return read() end
            return methods[key]
          end,
          __newindex = function(_, key) error("a property's app is read-only (cannot set " .. tostring(key) .. ")", 2) end,
          __metatable = "app",
          __name = "app",
        })
        """
}

/// The kind of a property the scripts declare.
public enum PropertyKind: String, Sendable {
    /// `flow.invariant`: it holds in every state.
    case invariant
    /// `flow.reachable`: from every reachable state, a state where it holds can be reached (no traps).
    case reachable

    /// The function that declares one (`flow.invariant`).
    var function: String { "flow." + rawValue }
}

/// What evaluating one property in the app as it is gave.
public struct PropertyResult: Sendable, Equatable {
    /// Its kind.
    public let kind: PropertyKind
    /// Its name.
    public let name: String
    /// Whether it holds (false too when its function failed).
    public let holds: Bool
    /// Why it could not be told, when its function failed or changed the app.
    public let failure: String?
    /// Where it was declared (`shop.lua:40`).
    public let location: String
}

extension ScriptRuntime {
    /// The invariants the scripts declare (`flow.invariant`), each evaluated in the app as it is: those that
    /// do not hold (or whose function failed) are what a host's check reports. A function that changes the
    /// app is refused, its change undone.
    public func checkInvariants() throws -> [PropertyResult] { try properties.evaluate(.invariant, in: self) }

    /// The reachable properties' predicates (`flow.reachable`), each evaluated in the app as it is (whether
    /// this state is one the property asks a way to).
    package func checkGoals() throws -> [PropertyResult] { try properties.evaluate(.reachable, in: self) }

    /// Whether the scripts declare any property.
    package var declaresProperties: Bool { !properties.declared.isEmpty }

    /// The properties the scripts declare, by kind and name, in the order declared.
    package var declaredProperties: [(kind: PropertyKind, name: String, location: String)] {
        properties.declared.map { ($0.kind, $0.name, $0.location) }
    }
}
