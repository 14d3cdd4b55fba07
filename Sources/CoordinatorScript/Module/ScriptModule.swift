import CoordinatorCore
import CoordinatorLua

/// The Lua module `coordinator` of one runtime (`local flow = require "coordinator"`): `flow.screen`,
/// `flow.coordinator`, `flow.app`, `flow.factory`, `flow.route`, `flow.update`, `flow.gateway.state`,
/// `flow.freeze`, `flow.copy`. The prelude (`Prelude.swift`) is its Lua half, over the Swift functions
/// made here; it also gives the functions the other parts of the runtime keep (the instances'
/// metatables, reload's savepoint and definitions, the snapshot codec's primitives, frozen data's
/// metamethods).
final class ScriptModule {
    /// The module table.
    private(set) var table: LuaTable?
    /// The module's classes (`flow.coordinator "Name"`), by name.
    private(set) var classes: LuaTable?
    /// The classes' names, sorted.
    var classNames: [String] { ((try? classes?.pairs()) ?? []).compactMap(\.key.stringValue).sorted() }

    /// What the class `name` has of its own: its methods (the functions in its class table) and the fields
    /// its methods set on `self` (`self.user = ...`, read from the scripts' `texts`).
    func members(ofClass name: String, texts: [String]) -> (methods: [String], fields: [String]) {
        var methods: [String] = []
        if let table = try? classes?.get(name, as: LuaTable?.self) {
            for (key, value) in (try? table.pairs()) ?? [] {
                if let method = key.stringValue, value.functionValue != nil { methods.append(method) }
            }
        }
        var fields: Set<String> = []
        for text in texts { fields.formUnion(LuaSource(text).fieldsSetOnSelf(byMethodsOfCoordinatorClass: name)) }
        return (methods.sorted(), fields.subtracting(methods).sorted())
    }
    /// What `flow.app` declared.
    var declaration = AppDeclaration()

    /// Loads the prelude over the Swift primitives, puts the module in `package.loaded`, and hands the
    /// prelude's other functions to the parts that keep them.
    func install(in runtime: ScriptRuntime) throws {
        let lua = runtime.lua
        let native = try lua.newTable()
        try native.set("methods", lua.methods(of: Coordinator.self))
        try native.set("defineScreen", lua.function(name: "screen", holding: runtime) { runtime, call in
            try runtime.screens.define(name: call.string(1), spec: call.argument(2, as: LuaTable.self), in: runtime)
        })
        try native.set("defineEvent", lua.function(name: "event", holding: runtime) { runtime, call in
            // flow.event "name" { payload = "value" | "none", examples = { payload, ... } }
            let name = try call.string(1)
            guard LuaSyntax.isName(name) || !name.isEmpty, !name.contains(where: \.isNewline) else {
                throw call.badArgument(1, "an event is named by a non-empty one-line string")
            }
            let spec = call.type(2).rawValue > LuaType.nil.rawValue ? try call.argument(2, as: LuaTable.self) : nil
            try spec?.checkKeys(["payload", "examples"], of: "event \(name)'s fields")
            let payload = try spec?.rawGet("payload", as: String?.self) ?? "none"
            guard payload == "value" || payload == "none" else {
                throw LuaError(.runtime, "event \(name): payload is \"value\" or \"none\", not '\(payload)'")
            }
            let examples = try spec?.rawGet("examples", as: [FlowValue]?.self) ?? []
            if payload == "none", !examples.isEmpty {
                throw LuaError(.runtime, "event \(name): examples are payloads, and it carries none (payload = \"value\")")
            }
            if EventDeclaration.builtIn.contains(where: { $0.name == name }) {
                throw LuaError(.runtime, """
                    event \(name) is one of the app's own \
                    (\(EventDeclaration.builtIn.map(\.name).joined(separator: ", "))): it needs no declaration
                    """)
            }
            runtime.app.declare(EventDeclaration(name, takesPayload: payload == "value", examples: examples))
        })
        try native.set("defineRequest", lua.function(name: "request", holding: runtime) { runtime, call in
            // flow.request "kind" { examples = { outcome = value, ... }, secret = { "field", ... } | true }: the
            // outcomes are the examples' keys; what `secret` names of an answer's value is never recorded.
            let kind = try call.string(1)
            guard !kind.isEmpty, !kind.contains(where: \.isNewline) else {
                throw call.badArgument(1, "a request kind is named by a non-empty one-line string")
            }
            let spec = try call.argument(2, as: LuaTable.self)
            try spec.checkKeys(["examples", "secret"], of: "request \(kind)'s fields")
            let secret = try SecretParts(declared: try spec.rawGet("secret", as: LuaValue.self), in: "request \(kind)", of: "answer's value") ?? .nothing
            guard let examples = try spec.rawGet("examples", as: LuaTable?.self) else {
                throw LuaError(.runtime, "request \(kind): examples = { outcome = value, ... } names its outcomes, each with an example value")
            }
            var outcomes: [(name: String, example: FlowValue)] = []
            for (key, _) in try examples.pairs() {
                guard let name = key.stringValue else { throw LuaError(.runtime, "request \(kind): its outcomes are named by strings") }
                outcomes.append((name, try examples.rawGet(name, as: FlowValue.self)))
            }
            guard !outcomes.isEmpty else { throw LuaError(.runtime, "request \(kind): declare at least one outcome in examples") }
            runtime.app.declare(RequestDeclaration(kind, outcomes: outcomes.sorted { $0.name < $1.name }, secret: secret))
        })
        try native.set("setFlows", lua.function(name: "app", holding: runtime) { runtime, call in
            // Read first, then set: reading the table may run Lua, which may declare too.
            let declared = try runtime.scriptModule.declaration.declaring(call)
            runtime.scriptModule.declaration = declared
            if runtime.driverFunctions.whenAppDeclared { try runtime.installDriverFunctions() }
        })
        try native.set("factory", lua.function(name: "factory", holding: runtime) { runtime, call in
            let name = try call.string(1)
            let choose = try call.argument(2, as: LuaFunction.self)
            runtime.reloads.scriptFunctions.append(choose)
            runtime.app.catalog.factory(name) { inputs in
                try choose.call(FlowValue.record(inputs), as: String.self)
            }
        })
        try native.set("view", lua.function(name: "view", holding: runtime) { runtime, call in
            guard call.type(1) == .function else { throw call.badArgument(1, "expected a function that returns the state's view") }
            runtime.scriptModule.declaration.view = try call.argument(1, as: LuaFunction.self)
        })
        try native.set("route", lua.function(name: "route", holding: runtime) { runtime, call in
            try runtime.routes.declare(call)
        })
        try native.set("invariant", lua.function(name: "invariant", holding: runtime) { runtime, call in
            try runtime.properties.declare(.invariant, call)
        })
        try native.set("reachable", lua.function(name: "reachable", holding: runtime) { runtime, call in
            try runtime.properties.declare(.reachable, call)
        })
        try native.set("update", lua.function(name: "update", holding: runtime) { runtime, call in
            try call.pushResult(try runtime.update(call))
        })
        try native.set("restart", lua.function(name: "restart", holding: runtime) { runtime, call in
            try runtime.app.restart(in: AppState(call.string(1)), with: call.optional(2, as: FlowValue.self))
        })
        // flow.storage: reads give the value (a table as frozen data), writes take flow data or nil.
        try native.set("storageGet", lua.function(name: "storage", holding: runtime) { runtime, call in
            guard call.type(2) == .string else { return } // a storage is keyed by strings: anything else is nil
            if let value = runtime.app.storage[try call.string(2)] { try call.pushResult(runtime.frozen(value)) }
        })
        try native.set("storageSet", lua.function(name: "storage", holding: runtime) { runtime, call in
            guard call.type(2) == .string else {
                throw LuaError(.runtime, "flow.storage's keys are strings, not \(call.type(2).name)s")
            }
            let key = try call.string(2)
            let value: FlowValue?
            do { value = try call.optional(3, as: FlowValue.self) } catch let error as LuaError {
                var reason = error.message
                let prefix = "bad argument #3 to 'storage' (", suffix = "; screens take plain values)"
                if reason.hasPrefix(prefix) { reason = String(reason.dropFirst(prefix.count)) }
                if reason.hasSuffix(suffix) { reason = String(reason.dropLast(suffix.count)) }
                throw LuaError(.runtime, "flow.storage.\(key) takes flow data (strings, numbers, booleans, lists and records of them): \(reason)")
            }
            try runtime.app.atomically { runtime.app.storage[key] = value }
        })
        try native.set("storageAll", lua.function(name: "storage", holding: runtime) { runtime, call in
            try call.pushResult(runtime.frozen(.record(runtime.app.storage.values)))
        })
        try native.set("describeStorage", lua.function(name: "storage", holding: runtime) { runtime, call in
            // What tostring shows (a REPL prints it): a secret key's value masked.
            let shown = runtime.app.storage.shown(\.luaLiteral)
            try call.pushResult("storage {" + shown.map { LuaSyntax.key($0.key) + " = " + $0.text }.joined(separator: ", ") + "}")
        })
        try native.set("storageSecrets", lua.function(name: "storageSecrets", holding: runtime) { runtime, call in
            // flow.storageSecrets { "token", ... }: those keys are never written into a snapshot.
            guard call.type(1) == .table else { throw call.badArgument(1, "a list of keys expected ({ \"token\" })") }
            let keys = try call.argument(1, as: [String].self)
            try runtime.app.atomically { for key in keys { runtime.app.storage.declareSecret(key) } }
        })
        try native.set("now", lua.function(name: "now", holding: runtime) { runtime, call in
            try call.pushResult(runtime.app.clock.now)
        })
        try native.set("idiom", lua.function(name: "idiom", holding: runtime) { runtime, call in
            // flow.idiom(): "phone" or "pad", fixed for the launch.
            try call.pushResult(runtime.app.idiom.rawValue)
        })
        try native.set("random", lua.function(name: "random", holding: runtime) { runtime, call in
            // flow.random(m): from 1 to m; flow.random(m, n): from m to n; integers, at most 64 values.
            guard call.count >= 1, call.type(1) != .nil else {
                throw LuaError(.runtime, "flow.random(m) draws from 1 to m and flow.random(m, n) from m to n: it takes one or two integers")
            }
            let first = try call.integer(1)
            let (low, high) = call.count >= 2 && call.type(2) != .nil ? (first, try call.integer(2)) : (1, first)
            guard low <= high else { throw LuaError(.runtime, "flow.random: no integer lies from \(low) to \(high)") }
            try call.pushResult(runtime.app.draw(in: low...high))
        })
        try native.set("getState", lua.function(name: "state", holding: runtime) { runtime, call in
            try call.pushResult(runtime.app.gateway.state.rawValue)
        })
        try native.set("setState", lua.function(name: "state", holding: runtime) { runtime, call in
            runtime.app.gateway.state = AppState(try call.string(1))
        })
        try native.set("freeze", lua.function(name: "freeze", holding: runtime) { runtime, call in
            if call.type(1) == .table, try FlowValue.isFrozen(call.stack, at: call.index(1)) {
                return call.stack.pushCopy(of: call.index(1)) // frozen already: itself
            }
            try call.pushResult(runtime.frozen(call.argument(1, as: FlowValue.self)))
        })
        if let index = runtime.data.lazyStoreIndex { try native.set("makeFields", index) }
        try native.set("copy", lua.function(name: "copy") { call in
            try call.pushResult(PlainData(value: call.argument(1, as: FlowValue.self)))
        })
        try native.set("describe", lua.function(name: "describe") { call in
            try call.pushResult(call.argument(1, as: FlowValue.self).luaLiteral)
        })
        let prelude = try lua.load(Prelude.source, name: "[coordinator]", cached: true)
        let results = try prelude.callValues(native)
        guard results.count == 7, let module = results[0].tableValue, let metaFor = results[1].functionValue,
              let dataMeta = results[4].tableValue, let primitives = results[5].tableValue
        else {
            throw LuaError(.misuse, "the coordinator module did not load")
        }
        table = module
        classes = try module.get("classes", as: LuaTable?.self)
        runtime.classes.metaFor = metaFor
        runtime.reloads.savepoint = results[2].functionValue
        runtime.reloads.definitions = results[3].functionValue
        runtime.launch.makeMark = results[6].functionValue
        runtime.snapshots.codec = .uncompiled(primitives: primitives)
        runtime.data.metamethods = try dataMeta.pairs().compactMap { key, value in key.stringValue.map { ($0, value) } }
        let package: LuaTable = try lua.globals.get("package")
        let loaded: LuaTable = try package.get("loaded")
        try loaded.set("coordinator", module)
    }
}

/// What the scripts declared with `flow.app`: a coordinator class for each gateway state
/// (`flow.app { authorization = Login, main = Main }`), or one root class (`flow.app(App)`).
struct AppDeclaration {
    var flows: [AppState: LuaTable] = [:]
    var rootClass: LuaTable?
    /// How many times scripts called `flow.app` (a REPL starts the app a line declares).
    var count = 0
    /// What `flow.view(fn)` declared: the function whose result, given the navigation, stands for the whole
    /// state when exploration tells states apart (``ScriptRuntime/stateIdentity(views:also:excluding:)``).
    var view: LuaFunction?
    /// Where `flow.app` was called (`app.lua:40`): what errors of the flows the runtime starts itself name.
    var location: String?

    /// Whether the scripts declared an application.
    var declaresApplication: Bool { rootClass != nil || !flows.isEmpty }

    /// The declaration after `flow.app(...)`.
    func declaring(_ call: borrowing LuaCall) throws -> AppDeclaration {
        var result = self
        result.count += 1
        result.location = call.callerLocation
        guard call.type(1) == .table else {
            throw call.badArgument(1, "expected { state = Coordinator, ... } or a coordinator class")
        }
        let table = try call.argument(1, as: LuaTable.self)
        if try table.rawGet("__name", as: String?.self) != nil {
            result.rootClass = table
            return result
        }
        var declared: [AppState: LuaTable] = [:]
        for (key, value) in try table.pairs() {
            guard let state = key.stringValue, let type = value.tableValue else {
                throw call.badArgument(1, "expected { state = Coordinator, ... }")
            }
            declared[AppState(state)] = type
        }
        result.flows = declared
        return result
    }

    /// The root coordinator of the declared app: the root class's, or an application coordinator that runs
    /// the flow of each gateway state.
    func makeRoot(_ runtime: ScriptRuntime) throws -> Coordinator {
        if let rootClass { return ScriptedCoordinator(runtime: runtime, undo: runtime.app.undoLog, type: rootClass, declaredAt: location) }
        guard !flows.isEmpty else {
            throw LuaError(.misuse, "the script declares no application: call flow.app { authorization = Login, main = Main }")
        }
        let root = ApplicationCoordinator(name: "App")
        wire(root, runtime: runtime)
        return root
    }

    /// Gives the application coordinator the declared flows (again after a reload).
    func wire(_ root: ApplicationCoordinator, runtime: ScriptRuntime) {
        for (state, type) in flows {
            root.flows[state] = { [weak runtime, undo = runtime.app.undoLog, location] in
                ScriptedCoordinator(runtime: runtime, undo: undo, type: type, declaredAt: location)
            }
        }
    }
}

extension ScriptRuntime {
    /// `update("input", value)` or `update { input = value, ... }` on every shown screen that declares it.
    func update(_ call: borrowing LuaCall) throws -> Int {
        if call.type(1) == .table {
            let fields = try call.argument(1, as: FlowRecord.self) // sorted by name: a stable order of changes
            if fields.count == 1, let field = fields.fields.first { return try app.update(field.key, to: field.value) } // atomic itself
            return try app.atomically {
                try fields.reduce(0) { count, field in try count + app.update(field.key, to: field.value) }
            }
        }
        let name = try call.string(1)
        return try app.update(name, to: call.optional(2, as: FlowValue.self))
    }
}
