import CoordinatorCore
import LuaKit

/// Coordinators in Lua: classes made with `flow.coordinator "Name"`, their instances' methods (push, run,
/// finish, ...), and the Swift coordinators a host registers under a name.
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

    func registerCoordinatorClass() throws {
        try lua.register(Coordinator.self, name: "CoordinatorHandle") { c in
            c.readOnly("name") { $0.name }
            c.readOnly("id") { $0.id }
            c.readOnly("status") { $0.status.rawValue }
            c.standIn(field: "__handle") // instances (Lua tables) call these methods directly
            c.method("push") { [weak self] coordinator, call in
                guard let self else { throw ScriptRuntime.gone() }
                let screen = try self.makeScreen(call, for: coordinator)
                let animated = try self.option(call, 3, "animated") ?? true
                try coordinator.push(screen, animated: animated)
                try call.push(LuaObject(new: screen)) // made above: Lua has not seen it
            }
            c.method("present") { [weak self] coordinator, call in
                guard let self else { throw ScriptRuntime.gone() }
                let screen = try self.makeScreen(call, for: coordinator)
                try coordinator.present(screen, animated: self.option(call, 3, "animated") ?? true)
                try call.push(LuaObject(new: screen))
            }
            c.method("setRoot") { [weak self] coordinator, call in
                guard let self else { throw ScriptRuntime.gone() }
                let screen = try self.makeScreen(call, for: coordinator)
                try coordinator.setRoot(screen, hideBar: self.option(call, 3, "hideBar") ?? false,
                                        animated: self.option(call, 3, "animated") ?? true)
                try call.push(LuaObject(new: screen))
            }
            c.method("pop") { coordinator, call in try coordinator.pop() }
            c.method("popToRoot") { coordinator, call in try coordinator.popToRoot() }
            c.method("dismiss") { coordinator, call in try coordinator.dismiss() }
            c.method("selectTab") { coordinator, call in try coordinator.selectTab(call.integer(1).subtractingReportingOverflow(1).partialValue) }
            c.method("alert") { coordinator, call in
                let spec = try call.argument(1, as: LuaTable.self)
                let title = try spec.get("title", as: String?.self) ?? ""
                let message = try spec.get("message", as: String?.self)
                var actions: [(title: String, handler: (() throws -> Void)?)] = []
                for item in try spec.get("actions", as: [LuaValue]?.self) ?? ["OK"] {
                    if let name = item.stringValue {
                        actions.append((name, nil))
                    } else if let pair = item.tableValue, let name = try pair.rawGet(1, as: String?.self) {
                        let handler = try pair.rawGet(2, as: LuaFunction?.self)
                        actions.append((name, handler.map { f in { try f.call() } }))
                    } else {
                        throw call.badArgument(1, "actions are names or { name, function }")
                    }
                }
                let alert = try coordinator.alert(title: title, message: message, actions: actions)
                try call.push(LuaObject(alert))
            }
            c.method("run") { [weak self] coordinator, call in
                guard let self else { throw ScriptRuntime.gone() }
                let type = try self.coordinatorClass(call, 1)
                let args = try call.optional(2, as: FlowValue.self)
                let modal = try self.option(call, 3, "modal") ?? false
                let onFinish = try self.optionValue(call, 3, "onFinish")?.functionValue
                let (child, scripted) = self.makeCoordinator(type, onFinish: onFinish)
                try coordinator.run(child, with: args, modal: modal)
                if let scripted {
                    try call.push(scripted.instance.map(LuaValue.table) ?? .nil)
                } else {
                    try call.push(LuaObject(child)) // a Swift coordinator: its handle
                }
            }
            c.method("setTabs") { [weak self] coordinator, call in
                guard let self else { throw ScriptRuntime.gone() }
                // { { "Title", Class [, args] }, ... }: one tab per entry, each with its own navigation stack
                // and a child coordinator started on it.
                var tabs: [(title: String, type: LuaTable, args: FlowValue?)] = []
                for item in try call.argument(1, as: [LuaTable].self) {
                    guard let title = try item.rawGet(1, as: String?.self), let type = try item.rawGet(2, as: LuaTable?.self),
                          try type.rawGet("__name", as: String?.self) != nil
                    else { throw call.badArgument(1, "tabs are { \"Title\", CoordinatorClass [, args] }") }
                    tabs.append((title, type, try item.rawGet(3, as: FlowValue?.self)))
                }
                let children = tabs.map { ScriptedCoordinator(runtime: self, type: $0.type) }
                try self.app.atomically {
                    try coordinator.setTabs(tabs.map(\.title), for: children)
                    for (child, tab) in zip(children, tabs) { try coordinator.run(child, with: tab.args) }
                }
                try call.push(children.map { $0.instance.map(LuaValue.table) ?? .nil })
            }
            c.method("finish") { coordinator, call in try coordinator.finish(call.optional(1, as: FlowValue.self)) }
            c.method("update") { [weak self] _, call in
                guard let self else { throw ScriptRuntime.gone() }
                try call.push(try self.update(call))
            }
            c.method("send") { coordinator, call in
                let signal = try coordinator.send(call.string(1), payload: call.optional(2, as: FlowValue.self))
                try call.push(signal.replies)
            }
            c.method("onSignal") { [weak self] coordinator, call in
                guard let self else { throw ScriptRuntime.gone() }
                let name = try call.string(1)
                let callback = try call.argument(2, as: LuaCallback.self)
                coordinator.onSignal(name) { signal in try self.deliver(signal, to: callback) }
            }
        }
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

    func option<T: LuaReadable>(_ call: LuaCall, _ n: Int, _ key: String) throws -> T? {
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
