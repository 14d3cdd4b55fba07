import CoordinatorTools

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
        if let v = Processes.environment("LUA_INIT_5_4") { (name, value) = ("=LUA_INIT_5_4", v) }
        else if let v = Processes.environment("LUA_INIT") { (name, value) = ("=LUA_INIT", v) }
        else { return }
        if value.hasPrefix("@") {
            _ = try runtime.app.atomically { try runtime.lua.runFile(String(value.dropFirst())) }
        } else {
            try runtime.run(value, name: name)
        }
    }

    /// lua.c's `dolibrary` (`-l global=module`): loads `module` with `require` and sets the global `global`
    /// to it; if it fails, the app is as before.
    static func require(_ module: String, as global: String, in runtime: ScriptRuntime) throws {
        try runtime.app.atomically {
            // Called under a C frame, as lua.c's docall runs it under pmain: its traceback ends with `[C]: in ?`.
            let require = try runtime.lua.program(runtime.lua.globals.get("require", as: LuaFunction.self))
            let value = try require.callValues(module).first ?? .nil
            try runtime.lua.globals.set(global, value)
        }
    }

    /// lua.c's `pushargs`: a main script's arguments are `arg[1]` to `arg[#arg]` of the global table `arg`
    /// as it is now (an `-e` chunk may have changed it).
    static func scriptArguments(of runtime: ScriptRuntime) throws -> [LuaValue] {
        guard case .table(let arg)? = try? runtime.lua.globals.get("arg", as: LuaValue.self) else {
            throw LuaError(.runtime, "'arg' is not a table")
        }
        return try (0..<arg.count).map { try arg.rawGet($0 + 1, as: LuaValue.self) }
    }
}
