import CoordinatorLua

/// The locals a file declares at its top level (`local counter = { n = 0 }`), across a reload: each is one
/// variable that every live closure shares, old and new, so the app's state does not split.
///
/// Running a file again makes a new variable for each of its locals, which the new closures (class
/// methods, renderings, handlers compiled from the new text) share; live closures made by the old run
/// still hold the old ones. For each local that existed before and after, the new variable becomes the
/// only one: the old closures are joined to it (`debug.upvaluejoin`), and it takes
///
/// - the **new value** when the value is code or static data: a function, a module's table (the module
///   was run again), frozen data (`flow.freeze`), a `<const>` local whose initializer text changed, or a
///   local the author asked for fresh (`reload { fresh = { "cities" } }`, `:reload cities`);
/// - the **old value** otherwise: the app's state survives the edit. A kept table also takes the new run's
///   functions (a table of helpers gets their new code; its data stays). When the initializer's text
///   changed, the report says that the old value was kept and how to take the new one.
///
/// A local that no old closure captured had no live reader: it simply has its new value.
struct FileVariables {
    /// A variable, as upvalue `index` of `function`.
    struct Cell {
        let function: LuaFunction
        let index: Int
        let value: LuaValue
        let local: LuaSource.FileLocal
    }

    /// The one variable of each file-level local after the reload, by file and ``LuaSource/FileLocal/key``.
    private(set) var cells: [String: [String: Cell]] = [:]
    /// Locals whose initializer changed and that kept their old value, for the report.
    private(set) var kept: [String] = []
    /// Locals that took their new value although the old one was different (static data), for the report.
    private(set) var renewed: [String] = []
    /// File-level local functions whose code changed (`helper (app.lua:3)`), for the report.
    private(set) var changedFunctions: [String] = []
    /// Names asked for fresh that are no file-level local of a reloaded file.
    private(set) var unknownFresh: [String] = []

    func cell(path: String, key: String) -> Cell? { cells[path]?[key] }

    /// Makes one variable of each file-level local: `old` and `new` are the closures made from the files'
    /// old and new text (see ``closures(from:)``), `oldModules` the values `package.loaded` held before.
    init(sources: inout SourcePairs, old: [LuaFunction], new: [LuaFunction], oldModules: Set<LuaValue>, fresh: Set<String>) {
        var oldCells: [String: [String: [Cell]]] = [:]
        // Closures whose only variable is `_ENV` (most functions of a big file of definitions) need no scan.
        func variables(_ function: LuaFunction) -> [LuaUpvalue] {
            let upvalues = (try? function.upvalues()) ?? []
            return upvalues.contains { $0.name != "_ENV" } ? upvalues : []
        }
        for function in old {
            let upvalues = variables(function)
            guard !upvalues.isEmpty, let site = sources.oldSite(of: function) else { continue }
            for upvalue in upvalues where upvalue.name != "_ENV" {
                guard let local = site.old.fileLocal(named: upvalue.name, visibleFrom: site.index) else { continue }
                oldCells[site.path, default: [:]][local.key, default: []]
                    .append(Cell(function: function, index: upvalue.index, value: upvalue.value, local: local))
            }
        }
        var newCells: [String: [String: Cell]] = [:]
        for function in new {
            let upvalues = variables(function)
            guard !upvalues.isEmpty, let info = function.info, info.isLua, let path = info.path,
                  let (_, source) = sources.sources(for: path) else { continue }
            let candidates = source.functions(line: info.lineDefined, lastLine: info.lastLineDefined, parameters: info.parameterCount)
            guard candidates.count == 1, let index = candidates.first else { continue }
            for upvalue in upvalues where upvalue.name != "_ENV" {
                guard let local = source.fileLocal(named: upvalue.name, visibleFrom: index),
                      newCells[path]?[local.key] == nil else { continue }
                newCells[path, default: [:]][local.key] = Cell(function: function, index: upvalue.index, value: upvalue.value, local: local)
            }
        }
        var matched: Set<String> = []
        for (path, locals) in oldCells {
            for (key, olds) in locals {
                guard let first = olds.first else { continue }
                matched.insert(first.local.name)
                guard let new = newCells[path]?[key] else {
                    cells[path, default: [:]][key] = first // nothing new reads it: the old variable stays
                    continue
                }
                let place = "\(first.local.name) (\(path):\(new.local.line))"
                let edited = first.local.initializer != new.local.initializer
                var value = first.value
                if first.value == new.value {
                    value = new.value
                } else if case .function(let function) = first.value, case .function = new.value {
                    value = new.value // code
                    if sources.textChanged(function) { changedFunctions.append("\(first.local.name) (\(path):\(new.local.line))") }
                } else if oldModules.contains(first.value) {
                    value = new.value // a module's table: the module ran again
                } else if case .table(let table) = new.value, FrozenValue.fields(ofFrozen: table) != nil {
                    value = new.value // frozen data cannot be state
                    if edited { renewed.append("\(place): new value (frozen data)") }
                } else if fresh.contains(first.local.name) {
                    value = new.value
                    renewed.append("\(place): new value (asked for)")
                } else if new.local.isConst && edited {
                    value = new.value
                    renewed.append("\(place): new value (<const>, its initializer changed)")
                } else {
                    if case .table(let kept) = first.value, case .table(let made) = new.value { Self.takeFunctions(of: made, into: kept) }
                    if edited {
                        kept.append("\(place): its initializer changed; the old value is kept (`:reload \(first.local.name)` takes the new one)")
                    }
                }
                if value != new.value { try? new.function.setUpvalue(new.index, to: value) }
                for old in olds { try? old.function.joinUpvalue(old.index, to: new.function, upvalue: new.index) }
                cells[path, default: [:]][key] = Cell(function: new.function, index: new.index, value: value, local: new.local)
            }
        }
        for (path, locals) in newCells {
            for (key, cell) in locals where cells[path]?[key] == nil {
                matched.insert(cell.local.name)
                cells[path, default: [:]][key] = cell
            }
        }
        unknownFresh = fresh.subtracting(matched).sorted()
    }

    /// A kept table gets the functions the new run put in its new version (a table of helpers: new code,
    /// same data); functions the new version no longer has are removed.
    static func takeFunctions(of made: LuaTable, into kept: LuaTable) {
        guard let newPairs = try? made.pairs(), let oldPairs = try? kept.pairs(), newPairs.count <= 4096 else { return }
        for (key, value) in newPairs {
            if case .function = value { try? kept.rawSet(key, value) }
        }
        for (key, value) in oldPairs {
            guard case .function = value else { continue }
            if (try? made.rawGet(key, as: LuaValue.self)) == .nil { try? kept.rawSet(key, LuaValue.nil) }
        }
    }

    /// The Lua closures reachable from `roots`: the roots, the functions in their variables, and the functions
    /// stored in tables their variables hold (one level: a table of helpers, a class). C functions are left out.
    static func closures(from roots: [LuaFunction]) -> [LuaFunction] {
        var seen: Set<LuaFunction> = []
        var tables: Set<LuaValue> = []
        var queue = roots
        var result: [LuaFunction] = []
        while let function = queue.popLast() {
            guard seen.insert(function).inserted, function.info?.isLua == true else { continue }
            result.append(function)
            for upvalue in (try? function.upvalues()) ?? [] {
                switch upvalue.value {
                case .function(let other): queue.append(other)
                case .table(let table):
                    guard tables.insert(upvalue.value).inserted, let pairs = try? table.pairs(), pairs.count <= 4096 else { continue }
                    for (_, value) in pairs { if case .function(let other) = value { queue.append(other) } }
                default: break
                }
            }
        }
        return result
    }
}
