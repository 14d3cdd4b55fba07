import CoordinatorLua

/// The Lua half of snapshots (``AppSnapshot``): the data coordinators keep in `self`, written as plain
/// values Swift turns into JSON, and read back onto live instances. Compiled at a runtime's first snapshot
/// or restore, with the module table (for `freeze`) and the primitives the prelude took when the runtime
/// started (so a script that took a global away cannot break it); returns `{ encode = ..., apply = ... }`.
enum StateCodec {
    /// A runtime's codec: not compiled yet (the prelude's primitives kept for it), or its two functions.
    enum Loaded {
        case none
        case uncompiled(primitives: LuaTable)
        case compiled(encode: LuaFunction, apply: LuaFunction, primitives: LuaTable)
    }

    /// state_codec.lua, beside this file.
    static let source = EmbeddedFile.stateCodecLua
}
