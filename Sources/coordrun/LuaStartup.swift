import CoordinatorScript

/// What the stand-alone `lua` does before the script runs, as lua.c does it: `arg` (`createargtable`),
/// and `LUA_INIT` (`handle_luainit`).
extension CoordRun {
    /// lua.c's `createargtable`: `arg[0]` the script, its arguments after, the interpreter and its options
    /// before (negative indices).
    static func setArguments(_ invocation: Invocation, in runtime: ScriptRuntime) throws {
        let table = try runtime.lua.newTable()
        for (index, value) in invocation.argTable { try table.rawSet(index, value) }
        try runtime.lua.globals.set("arg", table)
    }

    /// lua.c's `handle_luainit`: `LUA_INIT_5_4`, else `LUA_INIT`: `@file` runs the file, anything else is
    /// a chunk.
    static func runInit(_ runtime: ScriptRuntime) throws {
        let (name, value): (String, String)
        if let v = Platform.environment("LUA_INIT_5_4") { (name, value) = ("=LUA_INIT_5_4", v) }
        else if let v = Platform.environment("LUA_INIT") { (name, value) = ("=LUA_INIT", v) }
        else { return }
        if value.hasPrefix("@") {
            _ = try runtime.app.atomically { try runtime.lua.runFile(String(value.dropFirst())) }
        } else {
            try runtime.run(value, name: name)
        }
    }
}
