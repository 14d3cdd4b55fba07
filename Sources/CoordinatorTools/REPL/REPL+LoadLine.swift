import CoordinatorScript

/// Lua lines, as the stand-alone `lua` reads them (lua.c's `loadline`, `docall` and `l_print`).
extension REPL {
    /// Loads and runs the chunk `lines` make: an expression's values are printed, a statement is run, and a
    /// chunk that is not complete yet waits for more lines.
    func doString(_ lines: [String]) throws -> LineOutcome {
        guard let chunk = try loadLine(lines) else {
            pending = lines
            return LineOutcome()
        }
        pending = []
        let signals = events.signals
        let results = try doCall(chunk)
        // `top():send("saved")` at the prompt: the replies of a signal nobody answered are no value worth
        // a line (`=top():send("saved")` and `return top():send("saved")` still print them).
        let first = lines[0].drop { $0 == " " || $0 == "\t" }
        let asked = first.hasPrefix("=") || first.hasPrefix("return")
        let unanswered = events.signals != signals && !asked && results.count == 1
            && (try? results[0].tableValue?.pairs().isEmpty) == true
        if !unanswered { printValues(results) }
        return LineOutcome(replayable: true, step: lines.joined(separator: "\n  "))
    }

    /// lua.c's `loadline`: the chunk first as `return CHUNK` (`=EXPR` is short for it), so that an
    /// expression gives its values; else as statements. Nil when the chunk is incomplete (Lua's syntax
    /// error at `<eof>`); any other syntax error is thrown.
    func loadLine(_ lines: [String]) throws -> LuaFunction? {
        var code = lines.joined(separator: "\n")
        if code.hasPrefix("=") { code = "return " + code.dropFirst() }
        if let expression = try? runtime.lua.load("return " + code, name: chunkName) { return expression }
        do {
            return try runtime.lua.load(code, name: chunkName)
        } catch let error as LuaError where error.isIncompleteInput {
            return nil
        }
    }

    /// The chunk's name: `input#N` for the chunk that began on session line N, which ``located(_:_:)``
    /// turns into session lines (`input#12:3:` is `stdin:14:`), exactly, whichever chunk a frame belongs to.
    var chunkName: String { "input#\(chunkStart)" }

    /// lua.c's `docall`: runs the chunk as one operation of the app (the rendering of the screen it shows
    /// included), so that if it fails the app is exactly as before it.
    func doCall(_ chunk: LuaFunction) throws -> [LuaValue] {
        try operation { try runtime.lua.program(chunk).callValues() }
    }

    /// lua.c's `l_print`: the values, tab-separated, on one line. When a script replaced the global
    /// `print`, that function prints them, as in `lua`.
    func printValues(_ values: [LuaValue]) {
        guard !values.isEmpty else { return }
        let print = try? runtime.lua.globals.get("print", as: LuaValue.self)
        if let print, print != runtime.standardPrint {
            do {
                guard case .function(let function) = print else { throw LuaError(.runtime, "attempt to call a \(print.typeName) value") }
                _ = try function.callValues(arguments: values)
            } catch {
                output.error("error calling 'print' (\((error as? LuaError)?.message ?? "\(error)"))")
            }
            return
        }
        (output.values ?? output.write)(values.map { ValuePrinter.format($0) }.joined(separator: "\t") + "\n")
    }
}
