import CCoordinatorLua
import CCoordinatorLuaGlue

/// The Swift classes a state knows as userdata types (``LuaState/register(_:name:_:)``): their metatables
/// and method tables, by Swift type and by class tag, and how an object is pushed as its userdata (one per
/// object while Lua holds it) and read back. A state's core owns one.
final class LuaClassRegistry {
    /// Registrations by Swift type and by class tag (earlier registrations stay: their userdata remain valid).
    private var classesByType: [ObjectIdentifier: LuaClassInfo] = [:]
    private var classesByTag: [UnsafeRawPointer: LuaClassInfo] = [:] // SAFETY[identity-address]
    /// The classes objects were last pushed as (a few; ``pushObject(_:_:isNew:core:)`` looks here before hashing
    /// into `classesByType`).
    #if !COORDINATOR_CHECKED_EXCLUSIVITY
    @exclusivity(unchecked) // SAFETY[one-thread]
    #endif
    private var pushedClasses: [(key: PushedClass, info: LuaClassInfo)] = []

    /// Forgets every registration (the state closed).
    func removeAll() {
        classesByType.removeAll()
        classesByTag.removeAll()
        pushedClasses.removeAll()
    }

    func register<Object: AnyObject>(_ builder: LuaClassBuilder<Object>, in core: LuaCore) throws -> LuaClassTag<Object> {
        let L = try core.thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        let stack = LuaStack(L, core)
        try stack.reserve(12)

        lua_createtable(L, 0, 8) // metatable
        let metatable = lua_gettop(L)
        guard let tag = lua_topointer(L, metatable) else { throw LuaError(.memory, "cannot create a metatable") }
        stack.pushString(builder.name)
        lua_setfield(L, metatable, "__name")
        stack.pushString(builder.name)
        lua_setfield(L, metatable, "__metatable") // scripts cannot swap __gc or __index
        coordlua_pushboxgc(L)
        lua_setfield(L, metatable, "__gc")
        stack.pushString(builder.name) // the methods' class name: copied, not made again for each
        let className = lua_gettop(L)

        // Methods and metamethods are called by Lua code directly (its location is level 1); accessors are
        // called by the C __index/__newindex (level 2).
        func pushMethods(_ entries: [LuaClassEntry], level: Int32 = 1) {
            lua_createtable(L, 0, Int32(clamping: entries.count))
            for entry in entries {
                pushMethod(className: className, entry.name, tag: tag, level: level, standIn: builder.standInField, entry.body, L, core)
                lua_setfield(L, -2, entry.name)
            }
        }
        // Fallbacks go in as their boxes: the C __index/__newindex run them directly, so the Lua code that
        // reads or writes the field is their caller (level 1).
        func pushFallback(_ body: LuaRawMethod?, name: String) {
            if let body {
                core.pushBox(LuaMethodBox(core: core, name: "\(builder.name).\(name)", callerLevel: 1, body: body), tag: tag, L)
            } else {
                lua_pushnil(L)
            }
        }

        pushMethods(builder.methods)
        lua_pushvalue(L, -1)
        let methodsRef = coordlua_ref(L)
        if builder.getters.isEmpty && builder.indexFallback == nil {
            lua_setfield(L, metatable, "__index") // fast path: a plain table of methods
        } else {
            pushMethods(builder.getters, level: 2)
            lua_pushvalue(L, className)
            pushFallback(builder.indexFallback, name: "__index")
            coordlua_pushindex(L)
            lua_setfield(L, metatable, "__index")
        }
        pushMethods(builder.setters, level: 2)
        pushFallback(builder.newIndexFallback, name: "__newindex")
        lua_pushvalue(L, className)
        coordlua_pushnewindex(L)
        lua_setfield(L, metatable, "__newindex")
        for entry in builder.metamethods {
            pushMethod(className: className, entry.name, tag: tag, level: 1, standIn: nil, entry.body, L, core)
            lua_setfield(L, metatable, entry.name)
        }

        lua_pushvalue(L, metatable)
        let ref = coordlua_ref(L)
        let info = LuaClassInfo(name: builder.name, metatableRef: ref, methodsRef: methodsRef, tag: tag)
        classesByType[ObjectIdentifier(Object.self)] = info
        pushedClasses.removeAll() // a registration can change which class an object is pushed as
        classesByTag[tag] = info // earlier registrations stay: their userdata remain valid
        return LuaClassTag(pointer: tag)
    }

    /// Pushes a method closure: upvalues box (carrying the class tag), "method", "Class" (a copy of the
    /// string at `className`, pushed once per class), the stand-in field (or nil).
    private func pushMethod(
        className: Int32, _ name: String, tag: UnsafeRawPointer, level: Int32, standIn: String?, // SAFETY[identity-address]
        _ body: @escaping LuaRawMethod, _ L: OpaquePointer, _ core: LuaCore
    ) {
        core.pushBox(LuaMethodBox(core: core, name: name, callerLevel: level, body: body), tag: tag, L)
        LuaStack(L, core).pushString(name)
        lua_pushvalue(L, className)
        if let standIn { LuaStack(L, core).pushString(standIn) } else { lua_pushnil(L) }
        coordlua_pushmethod(L)
    }

    func info(for type: AnyObject.Type) -> LuaClassInfo? { classesByType[ObjectIdentifier(type)] }

    func className<T: AnyObject>(of type: T.Type) -> String? { classesByType[ObjectIdentifier(type)]?.name }

    /// Pushes the userdata for `object`: the cached one if Lua still holds it, else a new one.
    func pushObject<Object: AnyObject>(_ object: Object, _ L: OpaquePointer, isNew: Bool = false, core: LuaCore) throws {
        let key = PushedClass(dynamic: ObjectIdentifier(type(of: object)), static: ObjectIdentifier(Object.self))
        let info: LuaClassInfo
        if let i = pushedClasses.firstIndex(where: { $0.key == key }) {
            info = pushedClasses[i].info
        } else {
            guard let found = classesByType[key.dynamic] ?? classesByType[key.static] else {
                throw LuaError(.misuse, "\(type(of: object)) is not registered with this Lua state (use register(_:name:))")
            }
            info = found
            if pushedClasses.count < 8 { pushedClasses.append((key, found)) }
        }
        try LuaStack(L, core).reserve(4)
        let address = Unmanaged.passUnretained(object).toOpaque() // SAFETY[boxed-object]
        if !isNew, coordlua_weakmap_get(L, core.objectCacheRef, address) != 0 {
            // The cached userdata, unless its object was already released (finalized, not yet collected).
            if lua_type(L, -1) == LUA_TUSERDATA, let block = lua_touserdata(L, -1),
               block.load(as: UnsafeMutableRawPointer?.self) != nil { return } // SAFETY[boxed-object]
            lua_settop(L, -2)
        }
        coordlua_pushbox(L, Unmanaged.passRetained(object as AnyObject).toOpaque(), info.tag) // SAFETY[boxed-object]
        coordlua_rawgetref(L, info.metatableRef)
        _ = lua_setmetatable(L, -2)
        coordlua_weakmap_set(L, core.objectCacheRef, address, -1)
    }

    /// The Swift object wrapped by the userdata at `index`, if it is one of ours and of type T.
    func object<T: AnyObject>(at index: Int32, in L: OpaquePointer, as type: T.Type) -> T? {
        guard let tag = coordlua_box_tag(L, index), classesByTag[tag] != nil,
              let pointer = coordlua_boxed_object(L, index, tag) else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue() as? T // SAFETY[boxed-object]
    }
}
