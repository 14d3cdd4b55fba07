// A host drives the runtime in the core's terms (`FlowValue`, `Application`, `Router`) and reads Lua's
// (`LuaError`, `LuaState`): `import CoordinatorScript` gives both layers.
@_exported import CoordinatorCore
@_exported import CoordinatorLua
