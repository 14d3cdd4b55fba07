import CoordinatorCore
import CoordinatorLua

/// Coordinator classes in Lua (`flow.coordinator "Name"`): how `run` finds a class and makes its
/// coordinator, Lua's or the Swift one a host registered under the name. Their instances' methods are in
/// `CoordinatorMethods.swift`.
extension ScriptRuntime {
    /// Makes the coordinator for a class: Swift's when one is registered under its name, else a Lua one.
    func makeCoordinator(_ type: CoordinatorClass, onFinish: LuaFunction?) -> (coordinator: Coordinator, scripted: ScriptedCoordinator?) {
        if let make = swiftCoordinators[type.name] {
            let coordinator = make()
            if let onFinish {
                coordinator.onFinish = { result, reason in try onFinish.call(result, reason.rawValue) }
            }
            return (coordinator, nil)
        }
        let scripted = ScriptedCoordinator(runtime: self, type: type.table, name: type.name, meta: type.meta, onFinish: onFinish)
        return (scripted, scripted)
    }

    /// The metatable of the instances of the coordinator class `type` (made once per class, kept by the
    /// prelude).
    func instanceMeta(for type: LuaTable) throws -> LuaTable {
        guard let metaFor else { throw LuaError(.misuse, "the coordinator module is not loaded") }
        return try metaFor.call(type, as: LuaTable.self)
    }

    /// The coordinator class at argument `n`, its name and its instances' metatable. Classes are looked up
    /// by identity in a cache that holds them (so an address is never reused while cached): running a
    /// class again takes no new reference and reads no name.
    func coordinatorClass(_ call: LuaCall, _ n: Int) throws -> CoordinatorClass {
        if call.type(n) == .table, let address = call.stack.pointer(at: call.index(n)), let known = classCache[address] {
            return known
        }
        let type = try call.argument(n, as: LuaTable.self)
        guard let name = try type.rawGet("__name", as: String?.self) else {
            throw call.badArgument(n, "expected a coordinator class (flow.coordinator \"Name\")")
        }
        let found = CoordinatorClass(table: type, name: name, meta: try instanceMeta(for: type))
        if let address = call.stack.pointer(at: call.index(n)) { classCache[address] = found }
        return found
    }

    /// The screen `coordinator:push(name, inputs)` (and present, setRoot) shows, with a receiver for the
    /// handlers the script will set: made here, where nothing else holds the screen yet, its handlers need
    /// no undo in this operation.
    func makeScreen(_ call: LuaCall, for coordinator: Coordinator) throws -> Screen {
        let screen = try app.catalog.make(call.string(1), inputs: call.optional(2, as: FlowRecord.self) ?? [:])
        screen.outputReceiver = ScreenHandlers(lua, app: app, for: screen, isNew: true)
        if let owner = coordinator as? ScriptedCoordinator { owner.adopt(screen) }
        return screen
    }

    package func option<T: LuaReadable>(_ call: LuaCall, _ n: Int, _ key: String) throws -> T? {
        guard call.type(n) == .table else { return nil }
        return try call.argument(n, as: LuaTable.self).get(key, as: T?.self)
    }

    func optionValue(_ call: LuaCall, _ n: Int, _ key: String) throws -> LuaValue? {
        guard call.type(n) == .table else { return nil }
        return try call.argument(n, as: LuaTable.self).get(key, as: LuaValue.self)
    }
}

/// A coordinator class (`flow.coordinator "Name"`) as `run` finds it: its table, name and the metatable of
/// its instances.
struct CoordinatorClass {
    let table: LuaTable
    let name: String
    let meta: LuaTable
}
