import CoordinatorScript

extension REPL {
    /// The completions of `word` (an expression such as ``trailingExpression(_:)`` finds), sorted; each is
    /// the whole expression completed. `lineBefore` is the text before it on the line. Nothing is called but
    /// `__index` metamethods (see `Completer`).
    public func completions(for word: String, lineBefore: String) -> [String] {
        Completer(runtime: runtime).completions(for: word, lineBefore: lineBefore)
    }

    /// The name path at the end of `text`: names joined by `.` or `:`, with `()` after a name (`top():ren`).
    /// A line editor completes this expression, then replaces its own word with the candidate's tail.
    package static func trailingExpression(_ text: String) -> String { Completer.trailingExpression(text) }
}

/// Tab completion: `:commands`, globals and Lua keywords, fields of tables (following `__index` tables,
/// and a coordinator instance's class), a screen's inputs, handlers and methods, and the visible screen's
/// output names (which run mode takes as commands, and `tap` takes as its first argument).
struct Completer {
    let runtime: ScriptRuntime
    var app: Application { runtime.app }

    /// The completions of `word`, sorted.
    func completions(for word: String, lineBefore: String) -> [String] {
        // Completion runs `__index` metamethods a script wrote: bounded, so that one that loops costs a
        // moment, not the session.
        let budget = runtime.lua.instructionBudget
        runtime.lua.instructionBudget = min(budget ?? Self.completionBudget, Self.completionBudget)
        defer { runtime.lua.instructionBudget = budget }
        return candidates(for: word, lineBefore: lineBefore)
    }

    /// The name path at the end of `text` (``REPL/trailingExpression(_:)``).
    static func trailingExpression(_ text: String) -> String {
        var chars = Array(text)
        var end = chars.count
        while end > 0 {
            let c = chars[end - 1]
            if c == "_" || c.isLetter || c.isNumber || c == "." || c == ":" { end -= 1 }
            else if c == ")", end >= 2, chars[end - 2] == "(" { end -= 2 }
            else { break }
        }
        chars.removeFirst(end)
        return String(chars)
    }

    /// The most instructions completing one word may run.
    static let completionBudget = 100_000

    func candidates(for word: String, lineBefore: String) -> [String] {
        if lineBefore.trimmed.isEmpty && word.hasPrefix(":") {
            return MetaCommands.all.map { ":" + $0.name }.filter { $0.hasPrefix(word) && $0 != ":N" }.sorted()
        }
        if let function = Self.stringArgument(of: lineBefore) {
            // Inside `tap("` the visible screen's outputs, inside `tab("` the tab titles, inside `swipeTo("` the
            // page titles, inside `swipe("` the directions, inside `sizeClass("` the widths, inside `top("` a
            // split's columns, inside `event("` the events, inside `answer("` and `pending("` the kinds of the
            // requests waiting, inside `open("` the routes' example links: nothing else fits there.
            let names: [String] = switch function {
            case "tap": ((try? app.window.visibleScreen?.offeredOutputs()) ?? []).map(\.name)
            case "swipeTo": app.window.visiblePages?.titles ?? []
            case "swipe": app.window.visiblePages == nil ? [] : ["left", "right"]
            case "sizeClass": SizeClass.allCases.map(\.rawValue)
            case "event": Array(app.eventDeclarations.keys)
            case "answer", "pending": Array(Set(app.pendingRequests.map(\.kind)))
            case "open": runtime.declaredRoutes.compactMap { try? $0.exampleURL() }
            case "top": app.window.shownSplit?.columns.map(\.rawValue) ?? []
            default: app.visibleTabs?.titles ?? []
            }
            return Set(names).filter { $0.hasPrefix(word) }.sorted()
        }
        var names: Set<String>
        var prefix = ""
        if let separator = word.lastIndex(where: { $0 == "." || $0 == ":" }) {
            prefix = String(word[...separator])
            let path = String(word[..<separator])
            guard let value = resolve(path) else { return [] }
            names = fields(of: value, methodsOnly: word[separator] == ":")
        } else {
            names = Set((try? runtime.lua.globals.pairs().compactMap(\.key.stringValue)) ?? [])
            names.formUnion(LuaSyntax.keywords)
            if let screen = app.window.visibleScreen { names.formUnion(((try? screen.offeredOutputs()) ?? []).map(\.name)) }
        }
        let partial = word.dropFirst(prefix.count)
        return names.filter { $0.hasPrefix(partial) }.sorted().map { prefix + $0 }
    }

    /// `tap`, `tab`, `swipeTo`, `swipe`, `sizeClass`, `top`, `event`, `answer`, `pending` or `open` when `lineBefore`
    /// ends inside the opening quote of that driver
    /// function's first argument (`tap("`, `tab( '`), else nil.
    static func stringArgument(of lineBefore: String) -> String? {
        var rest = Substring(lineBefore)
        guard let quote = rest.popLast(), quote == "\"" || quote == "'" else { return nil }
        while rest.last == " " { rest.removeLast() }
        guard rest.popLast() == "(" else { return nil }
        while rest.last == " " { rest.removeLast() }
        for name in ["tap", "tab", "swipeTo", "swipe", "sizeClass", "top", "event", "answer", "pending", "open"] where rest.hasSuffix(name) {
            let before = rest.dropLast(name.count).last
            if before == nil || !(before == "_" || before == "." || before == ":" || before?.isLetter == true || before?.isNumber == true) { return name }
        }
        return nil
    }

    /// The value of a dotted path (`flow.gateway`, `top` ...): names and fields only, nothing is called
    /// except `__index` metamethods.
    func resolve(_ path: String) -> LuaValue? {
        // `top()` is the visible screen: the one call worth completing after. It becomes a local `top`.
        var path = path
        if path == "top()" || path.hasPrefix("top().") || path.hasPrefix("top():") { path = "top" + path.dropFirst(5) }
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).flatMap { $0.split(separator: ":", omittingEmptySubsequences: false) }
        guard !parts.isEmpty, parts.allSatisfy({ part in
            part.first.map { $0 == "_" || $0.isLetter } == true && part.allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber }
        }) else { return nil }
        let lua = runtime.lua
        let top = app.window.visibleScreen.flatMap { try? lua.userdata($0) }
        let chunk = try? lua.load("local top = ... return " + parts.joined(separator: "."), name: "completion")
        let value = try? chunk?.callValues(top.map(LuaValue.userdata) ?? .nil).first
        return value.flatMap { $0.isNil ? nil : $0 }
    }

    func fields(of value: LuaValue, methodsOnly: Bool) -> Set<String> {
        switch value {
        case .userdata(let u):
            guard let screen = u.object(as: Screen.self) else { return [] }
            var names = runtime.screenFields
            if !methodsOnly {
                names.formUnion(screen.type.inputs.map(\.name))
                names.formUnion(screen.outputs.map(\.handlerName))
            }
            return names
        case .table(let table):
            var names: Set<String> = []
            var current: LuaTable? = table
            var hops = 0
            while let t = current, hops < 8 {
                for (key, field) in (try? t.pairs()) ?? [] {
                    guard let name = key.stringValue, !name.hasPrefix("__") else { continue }
                    if !methodsOnly || field.functionValue != nil { names.insert(name) }
                }
                // A coordinator instance looks its methods up in its class.
                if let type = ScriptedCoordinator.coordinatorClass(ofInstance: t) { current = type }
                else { current = try? t.metatable?.rawGet("__index", as: LuaTable?.self) }
                hops += 1
            }
            return names
        default:
            return []
        }
    }
}
