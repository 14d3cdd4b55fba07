import CoordinatorCore
import CoordinatorLua

/// What exploration compares to tell two states of an app apart (``ScriptRuntime/stateIdentity()``): two
/// states are one only when everything a later step can observe is the same — the gateway, the window's
/// containers and stacks, every screen with its type, inputs and owner, the coordinator tree with each
/// coordinator's class, and the Lua data: each coordinator's `self`, the screens' handlers and what they
/// capture, the globals, the loaded modules, the file-level locals the scripts' functions share, and
/// whatever else the runtime holds for the scripts (canonically: shared tables and cycles by their shape,
/// functions by their code and upvalues, never by address or by order of insertion).
///
/// An app can declare a coarser view where exact states would never end (a counter, a list that grows), in
/// the spirit of TLA+'s VIEW: `flow.view(fn)` makes `fn(state)`'s result stand for the whole state (`state`
/// is the navigation as a snapshot writes it: gateway, window, coordinators' classes), and a coordinator
/// class's `__view(self)` stands for that coordinator's `self`. ``viewed`` then says a view was used.
package struct StateIdentity: Hashable, Sendable {
    /// The 128-bit fingerprint of the navigation and the data.
    package let fingerprint: LuaFingerprint
    /// Whether an app's or a class's view stood for some of the data.
    package let viewed: Bool

    /// The identity as 32 hexadecimal digits.
    package var key: String { fingerprint.hex }
}

extension ScriptRuntime {
    /// The app's state now as exploration tells states apart (``StateIdentity``). Runs the app's views, if
    /// it declares any: call it under the time limit the app's code runs with.
    package func stateIdentity() throws -> StateIdentity {
        let capture = try snapshots.capture(of: self, data: false)
        if let view = scriptModule.declaration.view {
            let key = try view.call(FlowValue.record(capture.document), as: LuaValue.self)
            return StateIdentity(fingerprint: try lua.fingerprint(of: [key], registry: false, materializing: data.lazyStoreIndex), viewed: true)
        }
        var roots: [any LuaPushable] = [FlowValue.record(capture.document).json]
        roots.append(lua.globals)
        var views: LuaTable?
        for coordinator in capture.coordinators {
            guard let scripted = coordinator as? ScriptedCoordinator else { roots.append(LuaValue.nil); continue }
            let instance = scripted.instance
            roots += [instance.map(LuaValue.table) ?? LuaValue.nil, scripted.type, scripted.onFinishFunction.map(LuaValue.function) ?? LuaValue.nil]
            if let instance, let view = try scripted.type.rawGet("__view", as: LuaFunction?.self) {
                let table = try views ?? lua.newTable()
                views = table
                let seen = try lua.newTable()
                try seen.rawSet(1, try view.call(instance, as: LuaValue.self))
                try table.rawSet(instance, seen)
            }
        }
        for screen in capture.screens {
            roots.append(try (screen.outputReceiver as? ScreenHandlers)?.slots.tableValue ?? .nil)
        }
        return StateIdentity(fingerprint: try lua.fingerprint(of: roots, views: views, registry: true, materializing: data.lazyStoreIndex,
                                                                  excluding: classes.instanceMetatables(of: scriptModule.classes)), viewed: views != nil)
    }
}
