import CoordinatorCore
import CoordinatorLua

/// The Lua module `coordinator` (`local flow = require "coordinator"`): `flow.screen`, `flow.coordinator`,
/// `flow.app`, `flow.factory`, `flow.update`, `flow.gateway.state`, `flow.freeze`, `flow.copy`. The prelude
/// (`Prelude.swift`) is its Lua half; the Swift functions it calls are made here.
extension ScriptRuntime {
    /// Loads the prelude over the Swift primitives and puts the module in `package.loaded`.
    func installModule() throws {
        let native = try lua.newTable()
        try native.set("methods", lua.methods(of: Coordinator.self))
        try native.set("defineScreen", lua.function(name: "screen", holding: self) { runtime, call in
            try call.push(runtime.defineScreen(name: call.string(1), spec: call.argument(2, as: LuaTable.self)))
        })
        try native.set("setFlows", lua.function(name: "app", holding: self) { runtime, call in
            runtime.appDeclarations += 1
            switch call.type(1) {
            case .table:
                let table = try call.argument(1, as: LuaTable.self)
                if try table.rawGet("__name", as: String?.self) != nil {
                    runtime.rootClass = table
                    return
                }
                var flows: [AppState: LuaTable] = [:]
                for (key, value) in try table.pairs() {
                    guard let state = key.stringValue, let type = value.tableValue else {
                        throw call.badArgument(1, "expected { state = Coordinator, ... }")
                    }
                    flows[AppState(state)] = type
                }
                runtime.flows = flows
            default:
                throw call.badArgument(1, "expected { state = Coordinator, ... } or a coordinator class")
            }
        })
        try native.set("factory", lua.function(name: "factory", holding: self) { runtime, call in
            let name = try call.string(1)
            let choose = try call.argument(2, as: LuaFunction.self)
            runtime.scriptFunctions.append(choose)
            runtime.app.catalog.factory(name) { inputs in
                try choose.call(FlowValue.record(inputs), as: String.self)
            }
        })
        try native.set("route", lua.function(name: "route", holding: self) { runtime, call in
            try runtime.declareRoute(call)
        })
        try native.set("update", lua.function(name: "update", holding: self) { runtime, call in
            try call.push(try runtime.update(call))
        })
        try native.set("getState", lua.function(name: "state", holding: self) { runtime, call in
            try call.push(runtime.app.gateway.state.rawValue)
        })
        try native.set("setState", lua.function(name: "state", holding: self) { runtime, call in
            runtime.app.gateway.state = AppState(try call.string(1))
        })
        try native.set("freeze", lua.function(name: "freeze", holding: self) { runtime, call in
            if call.type(1) == .table, try FlowValue.isFrozen(call.stack, at: call.index(1)) {
                return call.stack.pushCopy(of: call.index(1)) // frozen already: itself
            }
            try call.push(runtime.frozen(call.argument(1, as: FlowValue.self)))
        })
        if let lazyStoreIndex { try native.set("makeFields", lazyStoreIndex) }
        try native.set("copy", lua.function(name: "copy") { call in
            try call.push(PlainData(value: call.argument(1, as: FlowValue.self)))
        })
        try native.set("describe", lua.function(name: "describe") { call in
            try call.push(call.argument(1, as: FlowValue.self).luaLiteral)
        })
        let prelude = try lua.load(Prelude.source, name: "[coordinator]", cached: true)
        let results = try prelude.callValues(native)
        guard results.count == 6, let module = results[0].tableValue, let metaFor = results[1].functionValue,
              let dataMeta = results[4].tableValue, let primitives = results[5].tableValue
        else {
            throw LuaError(.misuse, "the coordinator module did not load")
        }
        self.module = module
        self.metaFor = metaFor
        self.savepoint = results[2].functionValue
        self.definitions = results[3].functionValue
        self.stateCodec = .uncompiled(primitives: primitives)
        dataMetamethods = try dataMeta.pairs().compactMap { key, value in key.stringValue.map { ($0, value) } }
        let package: LuaTable = try lua.globals.get("package")
        let loaded: LuaTable = try package.get("loaded")
        try loaded.set("coordinator", module)
    }

    /// `update("input", value)` or `update { input = value, ... }` on every shown screen that declares it.
    func update(_ call: LuaCall) throws -> Int {
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
