import CoordinatorCore
import CoordinatorLua

/// How data crosses between the core and a runtime's Lua state, beyond plain conversion: frozen data
/// (`flow.freeze`), read-only tables that screens share, whose nested values are made when first read.
final class DataBridge {
    /// The metamethods every frozen table shares (the prelude's; see ``FrozenValue``).
    var metamethods: [(name: String, value: LuaValue)] = []
    /// The `__index` of frozen stores whose nested fields are made on first read (``LazyStores``).
    private(set) var lazyStoreIndex: LuaValue?

    /// Registers frozen data's userdata class and the function that makes a store's fields.
    func install(in runtime: ScriptRuntime) throws {
        let lua = runtime.lua
        let tag = try lua.registerClass(FrozenData.self, name: "FrozenData")
        lua.attachment { DataMemo() }.frozenTag = tag
        lazyStoreIndex = .function(lua.function(name: "frozen data", holding: runtime) { runtime, call in
            try LazyStores.index(call, runtime: runtime)
        })
    }

    /// `value` as frozen data for Lua.
    func frozen(_ value: FlowValue) -> FrozenValue {
        FrozenValue(value: value, metamethods: metamethods, lazyStoreIndex: lazyStoreIndex)
    }
}
