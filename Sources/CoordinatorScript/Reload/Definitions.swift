import CoordinatorCore
import CoordinatorLua

/// What the scripts define, as a reload compares it before and after: each screen type's inputs and
/// outputs, and each coordinator class's methods.
struct Definitions {
    var screens: [String: (inputs: [String], outputs: [String], title: String?, render: LuaFunction?)] = [:]
    /// Methods by class name, with their functions.
    var methods: [String: [String: LuaFunction]] = [:]

    init(_ runtime: ScriptRuntime) {
        for (name, type) in runtime.app.catalog.types {
            screens[name] = (type.inputs.map(\.name), type.outputs.map(\.name), type.title, runtime.screens.renders[name])
        }
        guard let classes = try? runtime.module?.get("classes", as: LuaTable?.self) else { return }
        for (key, value) in (try? classes.pairs()) ?? [] {
            guard let name = key.stringValue, case .table(let table) = value else { continue }
            var functions: [String: LuaFunction] = [:]
            for (k, v) in (try? table.pairs()) ?? [] {
                if let method = k.stringValue, case .function(let f) = v { functions[method] = f }
            }
            methods[name] = functions
        }
    }

    /// Screen types whose inputs, outputs, title or rendering code changed (or that are new), with the live
    /// screens of each.
    static func screenChanges(from old: Definitions, to new: Definitions, sources: inout SourcePairs, live: [Screen]) -> [String] {
        var result: [String] = []
        for name in new.screens.keys.sorted() {
            guard let now = new.screens[name] else { continue }
            guard let before = old.screens[name] else { result.append("\(name) (new)"); continue }
            var parts: [String] = []
            func diff(_ label: String, _ a: [String], _ b: [String]) {
                let plus = b.filter { !a.contains($0) }.map { "+" + $0 }
                let minus = a.filter { !b.contains($0) }.map { "-" + $0 }
                if !(plus + minus).isEmpty { parts.append(label + " " + (plus + minus).joined(separator: " ")) }
            }
            diff("inputs", before.inputs, now.inputs)
            diff("outputs", before.outputs, now.outputs)
            if before.title != now.title { parts.append("title \((now.title ?? name).debugDescription)") }
            if let render = before.render, sources.textChanged(render) { parts.append("render") }
            guard !parts.isEmpty else { continue }
            let screens = live.filter { $0.name == name }.map { "\($0.info)" }
            result.append("\(name): " + parts.joined(separator: "; ") + (screens.isEmpty ? "" : " (live: \(screens.joined(separator: ", ")))"))
        }
        return result
    }

    /// Removes the methods a reloaded file no longer defines (the class tables are redefined in place, so
    /// running the file again leaves them), and gives the methods added and removed (`App:help`).
    static func methodChanges(from old: Definitions, to new: Definitions, sources: inout SourcePairs,
                              runtime: ScriptRuntime) -> (added: [String], removed: [String]) {
        var added: [String] = [], removed: [String] = []
        let classes = try? runtime.module?.get("classes", as: LuaTable?.self)
        for (className, methods) in new.methods.sorted(by: { $0.key < $1.key }) {
            let before = old.methods[className] ?? [:]
            for name in methods.keys.sorted() where before[name] == nil { added.append("\(className):\(name)") }
            for (name, function) in methods.sorted(by: { $0.key < $1.key }) where before[name] == function {
                // Not assigned by the new run: gone from its file when the file has no such function now.
                guard let info = function.info, let path = info.path, let (_, source) = sources.sources(for: path),
                      !source.functions.contains(where: { $0.name?.hasSuffix(":" + name) == true || $0.name?.hasSuffix("." + name) == true })
                else { continue }
                if let table = try? classes?.get(className, as: LuaTable?.self) { try? table.rawSet(name, LuaValue.nil) }
                removed.append("\(className):\(name)")
            }
        }
        return (added, removed)
    }
}
