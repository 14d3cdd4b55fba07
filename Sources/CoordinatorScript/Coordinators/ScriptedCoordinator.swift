import CoordinatorCore
import CoordinatorLua

/// A coordinator whose behaviour is a Lua class (`flow.coordinator "Name"`).
///
/// Lifetimes: while it runs, it holds its Lua instance (and so everything the instance holds). When it
/// finishes, it releases the instance and every Lua handler it installed on its screens and signals, which
/// breaks the Swift → Lua → Swift cycles that otherwise keep both worlds alive. All of it is undone if the
/// finishing operation fails.
package final class ScriptedCoordinator: Coordinator {
    /// The field of an instance that holds its class (the prelude's instances look methods up there).
    static let classField = "__class"

    /// The class of a coordinator instance (a table this bridge built), or nil for any other table.
    package static func coordinatorClass(ofInstance table: LuaTable) -> LuaTable? {
        try? table.rawGet(classField, as: LuaTable?.self)
    }

    /// Its runtime, while it exists: a coordinator a host keeps after letting the runtime go gets an error
    /// from whatever needs Lua, never a crash.
    weak var runtime: ScriptRuntime?
    /// The app's operation log, for undo of its Lua state.
    private let undo: UndoLog
    package let type: LuaTable
    /// Where the app was declared, for a coordinator the runtime starts itself (see the initializer).
    private let declaredAt: String?
    // The state below is touched on every push, handler and finish: its exclusivity is unchecked
    // (docs/Safety.md, one-thread; handlers are called after the values are copied out).
    /// The Lua instance (`self` in the class's methods), while it runs.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private(set) var instance: LuaTable?
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private(set) var onFinishFunction: LuaFunction?
    /// Screens it pushed (and so gave Lua handlers). Held strongly (a weak reference would give each screen
    /// a side table, which makes every count of it slow); screens nothing else holds are dropped as it goes.
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private var adopted: [Screen] = []
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private var undoMark = UndoMark()
    /// Whether `start` ran before (a restart starts it again): its userdata may exist then.
    private var startedBefore = false
    /// The metatable of the class's instances, when the caller knows it (else asked for on start).
    private var meta: LuaTable?

    /// A coordinator of the class `type`; `name` is the class's name and `meta` its instances' metatable
    /// when the caller has them already.
    convenience init(runtime: ScriptRuntime, type: LuaTable, name: String? = nil, meta: LuaTable? = nil, onFinish: LuaFunction? = nil) {
        self.init(runtime: runtime, undo: runtime.app.undoLog, type: type, name: name, meta: meta, onFinish: onFinish)
    }

    /// A coordinator made for a runtime that may be gone (the application coordinator's flows outlive
    /// nothing, but hold the runtime weakly): it fails to start then.
    /// `declaredAt`: where the app that starts it from Swift was declared (`app.lua:40`, the `flow.app` line),
    /// which errors of its own start and finish name when no Lua code of the scripts called them.
    init(runtime: ScriptRuntime?, undo: UndoLog, type: LuaTable, name: String? = nil, meta: LuaTable? = nil, onFinish: LuaFunction? = nil,
         declaredAt: String? = nil) {
        self.declaredAt = declaredAt
        self.runtime = runtime
        self.undo = undo
        self.type = type
        self.meta = meta
        self.onFinishFunction = onFinish
        let name = name ?? (try? type.rawGet("__name", as: String?.self)) ?? nil
        super.init(name: name ?? "Coordinator")
    }

    override package func start(_ args: FlowValue?) throws {
        guard let runtime else { throw ScriptRuntime.gone(name) }
        let meta = try self.meta ?? runtime.classes.instanceMeta(for: type)
        self.meta = meta
        // The first start is where Lua first sees this coordinator: no userdata to look for yet. The instance
        // (its fields: see the prelude's metaFor) is built here, through the C API, without calling Lua.
        let handle = startedBefore ? LuaObject(self as Coordinator) : LuaObject(new: self as Coordinator)
        startedBefore = true
        let created = try runtime.lua.withStack { stack in
            try stack.reserve(4)
            try stack.pushNewTable(record: 4)
            try handle.push(to: stack)
            stack.pushCopy(of: -1)
            stack.setField("router", ofNewTableAt: -3)
            stack.setField("__handle", ofNewTableAt: -2)
            try type.push(to: stack)
            stack.setField(Self.classField, ofNewTableAt: -2)
            if let onFinishFunction {
                try onFinishFunction.push(to: stack)
                stack.setField("onFinish", ofNewTableAt: -2)
            }
            try meta.push(to: stack)
            stack.setMetatable(ofValueAt: -2)
            return try LuaTable.read(from: stack, at: -1)
        }
        onFinishFunction = nil // the instance holds it now (a reference kept here would wait for the collector)
        setInstance(created) // before start runs: it may finish at once, or run children
        let start = if let args { try created.callMethod("start", args) } else { try created.callMethod("start") }
        guard start == .function || start == .nil else {
            throw LuaError(.runtime, "\(declaredAt.map { $0 + ": " } ?? "")\(name).start is a \(start.name), not a function")
        }
    }

    /// Remembers a screen that has (or will have) Lua handlers, to release them when this flow ends. Each
    /// screen comes once: when its handler table is made.
    ///
    /// Not recorded for undo: a screen made in an operation that fails leaves the list when it is dropped
    /// (``forgetDroppedScreen(_:)``); after a failed operation the list may still hold a screen
    /// whose handlers were rolled back, which is harmless: the list only says whose handlers to drop when
    /// this flow ends, and its screens leave with it. What must be undone, emptying the list when the
    /// flow ends, is recorded by ``releaseLua()``.
    func adopt(_ screen: Screen) {
        // Screens only the list holds are gone (nothing can reach their handlers): dropped whenever the list
        // is full (from 8 on), before it would grow, so a flow that pushes screens all day keeps a short list
        // at a constant cost per push (a list still full after pruning doubles, and is pruned again only once
        // full again).
        if adopted.count >= 8, adopted.count == adopted.capacity {
            for i in adopted.indices.reversed() where isKnownUniquelyReferenced(&adopted[i]) { adopted.remove(at: i) }
        }
        adopted.append(screen)
    }

    override package func reportFinish(_ result: FlowValue?, reason: FinishReason) throws {
        try super.reportFinish(result, reason: reason)
        try finished(result, reason: reason)
    }

    private func finished(_ result: FlowValue?, reason: FinishReason) throws {
        // Usually set on the instance (`child.onFinish = function ...`); else looked up through its class.
        // Read before the instance is released, called after.
        guard let instance else { return releaseLua() }
        let found = try instance.callField("onFinish", result, reason.rawValue, before: releaseLua)
        guard found == .function || found == .nil else {
            throw LuaError(.runtime, "\(declaredAt.map { $0 + ": " } ?? "")\(name).onFinish is a \(found.name), not a function")
        }
    }

    /// `self.onScreenLeft = function(screen, bySystem) ... end` hears about each of its screens leaving.
    /// Its handlers go with it, as they do for every screen of a flow that ends: a flow that pushes and pops
    /// screens all day keeps only the ones it shows, and a handler holding its own screen (a cycle through
    /// Lua) lets go of it now rather than when the flow ends. Undone with the operation, like any change.
    override package func screenDidLeave(_ screen: Screen, bySystem: Bool) throws {
        try super.screenDidLeave(screen, bySystem: bySystem)
        if let instance, let handler = try instance.get("onScreenLeft", as: LuaFunction?.self) {
            try handler.call(instance, LuaObject(screen), bySystem)
        }
        // From the top, where the screen that leaves usually is: O(1) for a pop whatever the depth, and the
        // undo puts that one screen back rather than copying the list.
        guard let index = adopted.lastIndex(where: { $0 === screen }) else { return }
        screen.removeAllHandlers()
        // The list may be shorter when this is undone (``adopt(_:)`` drops, unrecorded, screens only it
        // holds): the order is no matter, the screen goes back where it can.
        undo.record(born: born) { [weak self] in
            guard let self else { return }
            adopted.insert(screen, at: min(index, adopted.count))
        }
        adopted.remove(at: index)
    }

    /// `function Class:onTabSelected() ... end` (`onPageSelected` for a page) runs whenever its tab (page)
    /// becomes the selected one.
    override package func didBecomeSelected(in container: FlowContainer) throws {
        let name = container is PageContainer ? "onPageSelected" : "onTabSelected"
        if let instance, let handler = try instance.get(name, as: LuaFunction?.self) {
            try handler.call(instance)
        }
    }

    override package func didFinish(_ result: FlowValue?, reason: FinishReason) {
        if reason == .parentFinished { releaseLua() } // no handler runs for it
    }

    /// Takes the Lua side's state (instance, adopted screens) for undo, before it changes.
    private func record() {
        undo.record(&undoMark, born: born) { [saved = (instance, adopted)] in
            let hold = undo.isBranching ? saved.0.map(LuaUndoHold.init) : nil // the entry's, not the app's (the identity)
            return { _ = hold; (self.instance, self.adopted) = saved }
        }
    }

    private func setInstance(_ value: LuaTable?) {
        record()
        instance = value
    }

    private func releaseLua() {
        for screen in adopted { screen.removeAllHandlers() }
        record()
        adopted.removeAll()
        removeSignalHandlers()
        setInstance(nil)
    }
}

extension ScriptedCoordinator: DroppedObjectsListener {
    /// Started in a line that failed: its instance (which holds it) and its screens' handlers go.
    package func releaseWhenDropped() { releaseLua() }

    /// A screen it pushed in a line that failed is not in its list any more.
    package func forgetDroppedScreen(_ screen: Screen) { adopted.removeAll { $0 === screen } }
}
