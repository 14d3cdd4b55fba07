import CoordinatorCore
import CoordinatorLua

/// Coordinator classes in Lua (`flow.coordinator "Name"`): how `run` finds a class and makes its
/// coordinator, Lua's or the Swift one a host registered under the name, and the handle userdata whose
/// methods (``CoordinatorMethods``) every instance calls.
final class CoordinatorClasses {
    /// Coordinators written in Swift, by the name Lua runs them under (``ScriptRuntime/registerCoordinator(_:make:)``).
    var swiftCoordinators: [String: () -> Coordinator] = [:]
    /// The prelude's `metaFor(class)`: the metatable of a coordinator class's instances.
    var metaFor: LuaFunction?
    /// Coordinator classes run so far, by the address of their table (see ``class(at:of:)``).
    private var cache: [UnsafeRawPointer: CoordinatorClass] = [:] // SAFETY[identity-address]

    /// The instances' metatables made so far, by class: made on a class's first run and kept by whatever
    /// ran it, so they are no part of an app's state (``ScriptRuntime/stateIdentity(views:also:excluding:)``).
    private(set) var instanceMetatables: [LuaValue: LuaTable] = [:]

    /// Registers the coordinator handle userdata: `name`, `id`, `status`, and ``CoordinatorMethods``.
    func install(in runtime: ScriptRuntime) throws {
        try runtime.lua.register(Coordinator.self, name: "CoordinatorHandle") { c in
            c.readOnly("name") { $0.name }
            c.readOnly("id") { $0.id }
            c.readOnly("status") { $0.status.rawValue }
            c.standIn(field: "__handle") // instances (Lua tables) call these methods directly
            for (name, body) in CoordinatorMethods.all { c.method(name, holding(runtime, body)) }
        }
        // A request (`self:request`): `kind`, `payload`, `pending`, `onResult` (a function(outcome, value),
        // or nil) and `cancel()`.
        try runtime.lua.register(PendingRequest.self, name: "Request") { r in
            r.readOnly("kind") { $0.kind }
            r.readOnly("pending") { $0.isPending }
            r.readOnly("payload") { $0.payload }
            r.method("cancel") { request, _ in try request.cancel() }
            r.newIndex { request, call in
                guard try call.string(1) == "onResult" else {
                    throw LuaError(.runtime, "a request's fields are kind, payload, pending and onResult (settable)")
                }
                switch call.type(2) {
                case .nil, .none: try request.onResult(nil)
                case .function:
                    let callback = try call.argument(2, as: LuaCallback.self)
                    callback.isKept = { [weak request] in request?.isPending == true }
                    try request.onResult { outcome, value in try callback.call(outcome, value) }
                default: throw LuaError(.runtime, "a request's onResult is a function(outcome, value), or nil")
                }
            }
            r.toString { "Request \($0.kind)#\($0.id)" + ($0.isPending ? "" : " (done)") }
        }
        // A timer (`self:after`, `self:every`): `pending`, `remaining` (seconds, nil once it will not fire)
        // and `cancel()`.
        try runtime.lua.register(AppTimer.self, name: "Timer") { t in
            t.readOnly("pending") { $0.isPending }
            t.readOnly("remaining") { $0.remaining.map(FlowValue.double) ?? FlowValue?.none }
            t.readOnly("every") { $0.period.map(FlowValue.double) ?? FlowValue?.none }
            t.method("cancel") { timer, _ in timer.cancel() }
            t.toString { "Timer \($0.id)" + ($0.isPending ? "" : " (done)") }
        }
        // Work right after the running operation (`self:later`): `pending` and `cancel()`.
        try runtime.lua.register(Later.self, name: "Later") { l in
            l.readOnly("pending") { $0.isPending }
            l.method("cancel") { later, _ in later.cancel() }
            l.toString { "Later \($0.id)" + ($0.isPending ? "" : " (done)") }
        }
    }

    /// Makes the coordinator for a class: Swift's when one is registered under its name, else a Lua one.
    func make(_ type: CoordinatorClass, onFinish: LuaFunction?, in runtime: ScriptRuntime) -> (coordinator: Coordinator, scripted: ScriptedCoordinator?) {
        if let make = swiftCoordinators[type.name] {
            let coordinator = make()
            if let onFinish {
                coordinator.onFinish = { result, reason in try onFinish.call(result, reason.rawValue) }
            }
            return (coordinator, nil)
        }
        let scripted = ScriptedCoordinator(runtime: runtime, type: type.table, name: type.name, meta: type.meta, onFinish: onFinish)
        return (scripted, scripted)
    }

    /// The metatable of the instances of the coordinator class `type` (made once per class, kept by the
    /// prelude).
    func instanceMeta(for type: LuaTable) throws -> LuaTable {
        // One made in a branch the runtime came back from is gone with it (``LuaImage``): made again.
        if let meta = instanceMetatables[.table(type)], meta.isAlive { return meta }
        guard let metaFor else { throw LuaError(.misuse, "the coordinator module is not loaded") }
        let meta = try metaFor.call(type, as: LuaTable.self)
        instanceMetatables[.table(type)] = meta
        return meta
    }

    /// Forgets the classes run so far (a relaunch: the scripts make every class anew, and the old ones must
    /// not stay alive in the runtime's references). Both are made again on a class's next run.
    func forgetClasses() {
        cache = [:]
        instanceMetatables = [:]
    }

    /// The coordinator class at argument `n` of `call`, its name and its instances' metatable. Classes are
    /// looked up by identity in a cache that holds them (so an address is never reused while cached):
    /// running a class again takes no new reference and reads no name.
    func `class`(at n: Int, of call: borrowing LuaCall) throws -> CoordinatorClass {
        // An entry made in a branch the runtime came back from is dead (``LuaImage``), its address free: made again.
        if call.type(n) == .table, let address = call.stack.pointer(at: call.index(n)), let known = cache[address],
           known.table.isAlive, known.meta.isAlive {
            return known
        }
        let type = try call.argument(n, as: LuaTable.self)
        guard let name = try type.rawGet("__name", as: String?.self) else {
            throw call.badArgument(n, "expected a coordinator class (flow.coordinator \"Name\")")
        }
        let found = CoordinatorClass(table: type, name: name, meta: try instanceMeta(for: type))
        if let address = call.stack.pointer(at: call.index(n)) { cache[address] = found }
        return found
    }
}

/// A coordinator class (`flow.coordinator "Name"`) as `run` finds it: its table, name and the metatable of
/// its instances.
struct CoordinatorClass {
    let table: LuaTable
    let name: String
    let meta: LuaTable
}

extension LuaCall {
    /// The options table at argument `n` (nil when there is none), every key one of `known`: a key that is
    /// not (a misspelling such as `modl`, an option this call does not have) is an error naming the known
    /// ones, never ignored.
    package func options(_ n: Int, of call: String, known: [String]) throws -> CallOptions? {
        switch type(n) {
        case .none, .nil: return nil
        case .table: break
        default: throw badArgument(n, "options are a table")
        }
        let table = try argument(n, as: LuaTable.self)
        try table.checkKeys(known, of: "\(call)'s options")
        return CallOptions(table: table, call: call)
    }
}

/// A call's options table whose keys were checked: a value of the wrong type is an error naming the option
/// (`push's option 'transition': string expected, got table`).
package struct CallOptions {
    let table: LuaTable
    /// The function that takes them (`push`).
    let call: String

    /// The option `key` as `T`.
    package func get<T: LuaReadable>(_ key: String, as type: T.Type = T.self) throws -> T {
        do { return try table.rawGet(key, as: T.self) } catch let error as LuaError where error.kind == .type {
            throw LuaError(.type, "\(call)'s option '\(key)': \(error.message)")
        }
    }
}

extension LuaTable {
    /// Refuses a key that is not one of `names` (or, with `positions`, an index from 1 to it): `what` names
    /// the table in the message (`run's options`), which lists what it takes (`names`, unless `taking` says).
    package func checkKeys(_ names: [String], positions: Int = 0, of what: String, taking: String? = nil) throws {
        for (key, _) in try pairs() {
            if let name = key.stringValue, names.contains(name) { continue }
            if case .integer(let index) = key, index >= 1, index <= positions { continue }
            let shown = key.stringValue.map { "'\($0)'" } ?? key.display
            throw LuaError(.runtime, "\(what) have no \(shown) (they take: \(taking ?? names.joined(separator: ", ")))")
        }
    }
}
