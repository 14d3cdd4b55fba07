import CoordinatorCore
import CoordinatorLua

/// Screen types in Lua: `flow.screen "Name" { inputs = { ... }, required = { ... }, outputs = { ... },
/// title = "...", render = function(screen) ... end, examples = { output = { payload, ... } } }` registers a type in the app's catalog (again on
/// reload: the catalog redefines it in place, for the live screens too).
extension ScriptRuntime {
    /// Registers the screen type `name` that `spec` describes; returns the name.
    func defineScreen(name: String, spec: LuaTable) throws -> String {
        var inputs: [InputSpec] = []
        if let list = try spec.get("inputs", as: [LuaValue]?.self) {
            for item in list {
                if let name = item.stringValue { inputs.append(InputSpec(name)) }
                else { throw LuaError(.runtime, "screen \(name): inputs are names (strings)") }
            }
        }
        let required = try spec.get("required", as: [String]?.self) ?? []
        for name in required where !inputs.contains(where: { $0.name == name }) { inputs.append(InputSpec(name)) }
        inputs = inputs.map { InputSpec($0.name, required: required.contains($0.name)) }

        var outputs: [OutputSpec] = []
        if let table = try spec.get("outputs", as: LuaTable?.self) {
            for item in try table.decode([LuaValue].self) {
                guard let output = item.stringValue else { throw LuaError(.runtime, "screen \(name): outputs are names, or name = payload") }
                outputs.append(OutputSpec(output))
            }
            var keyed: [OutputSpec] = [] // Lua keeps no order for keyed fields: they follow, by name
            for (key, value) in try table.pairs() where key.stringValue != nil {
                let output = key.stringValue ?? ""
                switch value {
                case .string(let kind) where kind.string == "value": keyed.append(OutputSpec(output, payload: .value))
                case .string(let kind) where kind.string == "none": keyed.append(OutputSpec(output))
                case .table(let options):
                    guard let from = try options.get("from", as: String?.self) else {
                        throw LuaError(.runtime, "screen \(name): output '\(output)' = { from = 'input' } names the list input its payload comes from")
                    }
                    keyed.append(OutputSpec(output, payload: .choice(from: from)))
                default:
                    throw LuaError(.runtime, "screen \(name): output '\(output)' must be \"value\", \"none\" or { from = 'input' }")
                }
            }
            outputs += keyed.sorted { $0.name < $1.name }
        }
        let render = try spec.get("render", as: LuaFunction?.self)
        let title = try spec.get("title", as: String?.self)
        var renderer: ((Screen) throws -> String)?
        if let render {
            scriptFunctions.append(render)
            renderer = { (screen: Screen) throws -> String in
                try render.call(LuaObject(screen), as: String.self)
            }
        }
        let type = ScreenType(name, inputs: inputs, outputs: outputs, title: title, render: renderer)
        if let table = try spec.get("examples", as: LuaTable?.self) {
            var examples: [String: [FlowValue]] = [:]
            for (key, value) in try table.pairs() {
                guard let output = key.stringValue, case .table(let list) = value else {
                    throw LuaError(.runtime, "screen \(name): examples = { output = { payload, ... } }")
                }
                examples[output] = try list.decode([FlowValue].self)
            }
            do { try type.setExamples(examples) } catch let error as NavigationError { throw LuaError(.runtime, error.message) }
        }
        app.catalog.register(type)
        return name
    }
}

extension Screen {
    /// Its text, or the rendering's error with the screen named (`rendering Home failed: app.lua:8: ...`):
    /// what a line (REPL) or a step (flow tests) that shows the screen fails with.
    package func checkedRendering() throws -> String {
        do {
            return try render()
        } catch var error as LuaError {
            error.message = "rendering \(name) failed: " + error.message
            throw error
        }
    }
}
