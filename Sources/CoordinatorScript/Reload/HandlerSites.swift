import CoordinatorCore
import CoordinatorLua

/// Something live that holds the handlers a script set: a screen (`s.onInc = function ... end`) or a
/// coordinator's instance (`child.onFinish = function ... end`).
struct HandlerHolder {
    enum Kind {
        case screen(Screen, ScreenHandlers)
        case coordinator(ScriptedCoordinator, LuaTable)
    }
    let kind: Kind

    var id: ObjectIdentifier {
        switch kind {
        case .screen(let screen, _): ObjectIdentifier(screen)
        case .coordinator(let coordinator, _): ObjectIdentifier(coordinator)
        }
    }

    /// `C#3`, `Picker#8`.
    var name: String {
        switch kind {
        case .screen(let screen, _): "\(screen.info)"
        case .coordinator(let coordinator, _): "\(coordinator.info)"
        }
    }

    /// Its handlers now, by field name (`onInc`).
    var handlers: [String: LuaFunction] {
        switch kind {
        case .screen(let screen, let handlers):
            var names: [Int: String] = [:]
            for (i, output) in screen.type.outputs.enumerated() where i < screen.type.outputSlots.count {
                names[screen.type.outputSlots[i] + 1] = output.handlerName
            }
            var result: [String: LuaFunction] = [:]
            for (slot, function) in (try? handlers.slots.functions) ?? [] { if let name = names[slot] { result[name] = function } }
            return result
        case .coordinator(_, let instance):
            var result: [String: LuaFunction] = [:]
            for (key, value) in (try? instance.pairs()) ?? [] {
                if let name = key.stringValue, case .function(let function) = value { result[name] = function }
            }
            return result
        }
    }

    /// The holder as Lua sees it (what `s` or `child` held in the code that set its handlers).
    func value(in lua: LuaState) -> LuaValue? {
        switch kind {
        case .screen(let screen, _): try? lua.value(LuaObject(screen))
        case .coordinator(_, let instance): .table(instance)
        }
    }

    /// `self` in the method that set its handlers: the coordinator that owns the screen, or the parent of
    /// the coordinator.
    var maker: LuaTable? {
        switch kind {
        case .screen(let screen, _): (screen.owner as? ScriptedCoordinator)?.instance
        case .coordinator(let coordinator, _): (coordinator.parent as? ScriptedCoordinator)?.instance
        }
    }

    /// Whether it can take a handler named `field` (a screen: one of its outputs).
    func accepts(_ field: String) -> Bool {
        switch kind {
        case .screen(let screen, _): screen.outputSlot(forHandler: field) != nil
        case .coordinator: true
        }
    }

    /// Sets (or with nil removes) the handler `field`, as the script's assignment would.
    func set(_ field: String, to function: LuaFunction?, in runtime: ScriptRuntime) throws {
        switch kind {
        case .screen(let screen, _):
            let assign = try runtime.lua.load("local t, k, v = ... t[k] = v", name: "=reload")
            _ = try assign.callValues(LuaObject(screen), field, function.map(LuaValue.function) ?? .nil)
        case .coordinator(_, let instance):
            try instance.rawSet(field, function.map(LuaValue.function) ?? .nil)
        }
    }
}

extension LiveReload {
    /// Every live screen and coordinator instance that holds script handlers.
    static func handlerHolders(in app: Application) -> [HandlerHolder] {
        var result: [HandlerHolder] = []
        var seen: Set<ObjectIdentifier> = []
        let coordinators = liveScriptedCoordinators(in: app)
        for screen in app.window.allScreens + coordinators.flatMap(\.screens) {
            guard seen.insert(ObjectIdentifier(screen)).inserted, let handlers = screen.outputReceiver as? ScreenHandlers else { continue }
            result.append(HandlerHolder(kind: .screen(screen, handlers)))
        }
        for coordinator in coordinators {
            if let instance = coordinator.instance { result.append(HandlerHolder(kind: .coordinator(coordinator, instance))) }
        }
        return result
    }
}

/// Handlers added to or removed from code that already ran. `s.onReset = function ... end` added inside
/// `App:start` reaches the screen that `start` made, since its `s` is known: the live screen holding the
/// other handlers `start` set on `s`. The new handler shares their variables (`s`, `self`, locals of
/// `start` that one of them captured); a handler removed from the text is removed from the screen.
///
/// A site is one function of a file and the name its handlers are set on (`App:start`, `s`); its members
/// are the live holders that got handlers from it, with those handlers (their old closures).
struct HandlerSites {
    struct Site: Hashable {
        var path: String
        var function: [String]
        var object: String
    }
    struct Member {
        let holder: HandlerHolder
        var handlers: [String: LuaFunction] = [:]
    }
    private(set) var sites: [Site: [ObjectIdentifier: Member]] = [:]

    var added: [String] = []
    var removed: [String] = []
    var notApplied: [String] = []
    /// New handlers in code that ran whose objects have no live holder: they take effect when it runs again.
    var waiting: [String] = []

    /// Groups the live handlers by the code that set them (before the files run again).
    init(holders: [HandlerHolder], sources: inout SourcePairs) {
        for holder in holders {
            for (field, function) in holder.handlers {
                guard let site = sources.oldSite(of: function) else { continue }
                let f = site.old.functions[site.index]
                guard let target = f.target, let parent = f.parent, target.hasSuffix("." + field) else { continue }
                let key = Site(path: site.path, function: site.old.path(of: parent), object: String(target.dropLast(field.count + 1)))
                sites[key, default: [:]][holder.id, default: Member(holder: holder)].handlers[field] = function
            }
        }
    }

    /// The handlers a function sets directly on `object`, by field: `s.onInc` gives `onInc`.
    static func targets(of function: Int, in source: LuaSource, on object: String) -> [String: Int] {
        var result: [String: Int] = [:]
        for child in source.functions[function].children {
            guard let target = source.functions[child].target, target.hasPrefix(object + "."), result[String(target.dropFirst(object.count + 1))] == nil else {
                continue
            }
            result[String(target.dropFirst(object.count + 1))] = child
        }
        return result
    }

    /// Applies the added and removed handlers to the members of every site (after the files ran again and
    /// live closures were rebound), and notes new handlers whose code has no live site.
    mutating func apply(runtime: ScriptRuntime, sources: inout SourcePairs, variables: FileVariables, rebinder: Rebinder) {
        for (site, members) in sites.sorted(by: { "\($0.key)" < "\($1.key)" }) {
            guard let (oldSource, newSource) = sources.sources(for: site.path),
                  let oldFunction = oldSource.function(at: site.function),
                  let newFunction = newSource.function(at: site.function) else { continue }
            let old = Self.targets(of: oldFunction, in: oldSource, on: site.object)
            let new = Self.targets(of: newFunction, in: newSource, on: site.object)
            let maker = newSource.displayName(of: newFunction)
            for member in members.values.sorted(by: { $0.holder.name < $1.holder.name }) {
                let holder = member.holder
                let current = holder.handlers
                for (field, index) in new.sorted(by: { $0.value < $1.value }) where old[field] == nil && current[field] == nil {
                    let what = "\(site.object).\(field) in \(maker) (\(site.path):\(newSource.functions[index].line))"
                    guard holder.accepts(field) else {
                        notApplied.append("\(what): \(holder.name) has no output for \(field)")
                        continue
                    }
                    let siblings = Array(member.handlers.values)
                    let made = rebinder.compile(index, of: newSource, path: site.path) { name, fileLocal in
                        if let fileLocal {
                            if let cell = variables.cell(path: site.path, key: fileLocal.key) { return .join(cell.function, cell.index) }
                            return .missing("it uses '\(name)', a file-level local no live code holds")
                        }
                        for sibling in siblings {
                            if let upvalue = (try? sibling.upvalues())?.first(where: { $0.name == name }) { return .join(sibling, upvalue.index) }
                        }
                        if name == "_ENV" { return .keep }
                        if name == site.object, let value = holder.value(in: runtime.lua) { return .value(value) }
                        if name == "self", let maker = holder.maker { return .value(.table(maker)) }
                        return .missing("""
                            it uses '\(name)', a local of \(maker) that no live handler of \(holder.name) shares (it \
                            applies when \(maker) runs again)
                            """)
                    }
                    switch made {
                    case .success(let function):
                        do {
                            try holder.set(field, to: function, in: runtime)
                            added.append("\(what) on \(holder.name)")
                        } catch {
                            notApplied.append("\(what): \(error)")
                        }
                    case .failure(let failure):
                        notApplied.append("\(what): \(failure.text)")
                    }
                }
                for (field, function) in member.handlers where new[field] == nil && old[field] != nil {
                    guard let now = current[field], now == (rebinder.memo[function] ?? function) else { continue }
                    do {
                        try holder.set(field, to: nil, in: runtime)
                        removed.append("\(site.object).\(field) in \(maker) from \(holder.name)")
                    } catch {
                        notApplied.append("removing \(site.object).\(field) in \(maker) from \(holder.name): \(error)")
                    }
                }
            }
        }
        noteWaiting(sources: &sources)
    }

    /// New handlers set on an object in a function that existed before, where no live holder got handlers
    /// from that function and object.
    private mutating func noteWaiting(sources: inout SourcePairs) {
        for path in sources.newTexts.keys.sorted() where sources.newTexts[path] != sources.oldTexts[path] {
            guard let (oldSource, newSource) = sources.sources(for: path) else { continue }
            for oldIndex in oldSource.functions.indices {
                let sitePath = oldSource.path(of: oldIndex)
                guard let newIndex = newSource.function(at: sitePath) else { continue }
                for child in newSource.functions[newIndex].children {
                    guard let target = newSource.functions[child].target, let dot = target.firstIndex(of: ".") else { continue }
                    let object = String(target[..<dot])
                    let field = String(target[target.index(after: dot)...])
                    guard Self.targets(of: oldIndex, in: oldSource, on: object)[field] == nil,
                          sites[Site(path: path, function: sitePath, object: object)] == nil else { continue }
                    let maker = newSource.displayName(of: newIndex)
                    waiting.append("""
                        \(target) in \(maker) (\(path):\(newSource.functions[child].line)): no live object has \
                        handlers from \(maker); it applies when \(maker) runs again
                        """)
                }
            }
        }
    }
}
