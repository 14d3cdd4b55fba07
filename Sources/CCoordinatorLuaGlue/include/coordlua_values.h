/* CCoordinatorLua: weak maps, the macros Swift cannot import, and data images. Part of CCoordinatorLuaGlue.h, which includes the parts in order: not to be included alone. */
#ifndef COORDLUA_VALUES_H
#define COORDLUA_VALUES_H

/* ---- Weak maps: a registry table from addresses to values, weak in its values (the object cache, and the
   state's views: LuaStack.pushView in CoordinatorLua). */

/* Pushes map[key] for the map in registry slot `ref` and returns 1, or pushes nothing and returns 0. */
static inline int coordlua_weakmap_get(lua_State *L, int ref, const void *key) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    if (lua_rawgetp(L, -1, key) == LUA_TNIL) {
        lua_settop(L, -3);
        return 0;
    }
    lua_remove(L, -2);
    return 1;
}

/* map[key] = the value at idx (nil removes the entry), for the map in registry slot `ref`. */
static inline void coordlua_weakmap_set(lua_State *L, int ref, const void *key, int idx) {
    idx = lua_absindex(L, idx);
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_pushvalue(L, idx);
    lua_rawsetp(L, -2, key);
    lua_settop(L, -2);
}

/* A new weak-valued table in a registry slot; its slot. */
static inline int coordlua_weakmap_new(lua_State *L) {
    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "v");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    return luaL_ref(L, LUA_REGISTRYINDEX);
}

/* ---- macros Swift cannot import ---- */

static inline int coordlua_registryindex(void) { return LUA_REGISTRYINDEX; }
static inline const char *coordlua_copyright(void) { return LUA_COPYRIGHT; }
static inline int coordlua_upvalueindex(int i) { return lua_upvalueindex(i); }
static inline void coordlua_pop(lua_State *L, int n) { lua_pop(L, n); }
static inline void coordlua_newtable(lua_State *L) { lua_newtable(L); }
static inline void coordlua_insert(lua_State *L, int idx) { lua_insert(L, idx); }
static inline void coordlua_remove(lua_State *L, int idx) { lua_remove(L, idx); }
static inline void coordlua_replace(lua_State *L, int idx) { lua_replace(L, idx); }
/* lua_tolstring and lua_tointegerx as values: Swift reads the results without taking the address of a
   local (which costs a stack guard and a larger frame on every call). */
typedef struct coordlua_String { const char *bytes; size_t length; } coordlua_String;
static inline coordlua_String coordlua_tostring_bytes(lua_State *L, int idx) {
    coordlua_String result;
    result.bytes = lua_tolstring(L, idx, &result.length);
    return result;
}
/* A float as Lua's tostring writes it (LUA_NUMBER_FMT, "%.14g", with ".0" when it looks like an integer);
   writes at most size bytes, NUL included (44 suffice); returns the length. */
int coordlua_number_format(double d, char *buffer, int size);
typedef struct coordlua_Integer { lua_Integer value; int ok; } coordlua_Integer;
static inline coordlua_Integer coordlua_tointeger(lua_State *L, int idx) {
    coordlua_Integer result;
    result.value = lua_tointegerx(L, idx, &result.ok);
    return result;
}

/* ---- Data images (LuaDataImage in CoordinatorLua): plain data encoded for comparison with a Lua value in one walk.
   A value is a tag byte and its payload: 'f'/'t' booleans; 'i' an 8-byte integer; 'd' the 8-byte bits of a
   float; 's' a 4-byte length and the bytes; 'l' a list: 4-byte count, then each item as a 4-byte size and the
   item; 'r' a record: 4-byte count, then each field as 4-byte key length, the key, 4-byte size, the value.
   Integers are in the machine's byte order. */

/* Whether the value at idx is exactly the data at p: a list is a table whose pairs are 1..n in traversal order
   (what a table constructor or appends build), a record a table with exactly the fields, string keys only.
   Raw access only; never raises. `depth` is 0 (deeper than 64 levels never matches). */
int coordlua_image_matches(lua_State *L, int idx, const unsigned char *p, int depth);

/* ---- the rest of the API's macros and variadic functions ---- */

/* lauxlib's status for a file that cannot be read (a macro of an expression, which Swift does not import). */
static const int COORDLUA_ERRFILE = LUA_ERRFILE;
static inline void coordlua_pushglobaltable(lua_State *L) { lua_pushglobaltable(L); }
static inline int coordlua_gc_collect(lua_State *L) { return lua_gc(L, LUA_GCCOLLECT); }
static inline int coordlua_gc_count_kb(lua_State *L) { return lua_gc(L, LUA_GCCOUNT); }
static inline int coordlua_gc_count_b(lua_State *L) { return lua_gc(L, LUA_GCCOUNTB); }
static inline int coordlua_gc_stop(lua_State *L) { return lua_gc(L, LUA_GCSTOP); }
static inline int coordlua_gc_restart(lua_State *L) { return lua_gc(L, LUA_GCRESTART); }
static inline int coordlua_gc_generational(lua_State *L) { return lua_gc(L, LUA_GCGEN, 0, 0); }
static inline int coordlua_gc_incremental(lua_State *L) { return lua_gc(L, LUA_GCINC, 0, 0, 0); }
static inline void coordlua_pushclosure(lua_State *L, int nup) { lua_pushcclosure(L, coordlua_trampoline, nup); }
static inline void coordlua_pushmethod(lua_State *L) { lua_pushcclosure(L, coordlua_method_trampoline, 4); }
static inline void coordlua_pushindex(lua_State *L) { lua_pushcclosure(L, coordlua_index, 4); }
static inline void coordlua_pushnewindex(lua_State *L) { lua_pushcclosure(L, coordlua_newindex, 3); }
static inline void coordlua_pushboxgc(lua_State *L) { lua_pushcfunction(L, coordlua_box_gc); }
static inline int coordlua_ref(lua_State *L) { return luaL_ref(L, LUA_REGISTRYINDEX); }
static inline void coordlua_unref(lua_State *L, int ref) { luaL_unref(L, LUA_REGISTRYINDEX, ref); }
static inline int coordlua_rawgetref(lua_State *L, int ref) { return lua_rawgeti(L, LUA_REGISTRYINDEX, ref); }
/* registry[ref] = the value on top, popped (nil empties the slot without giving it back to the free list). */
static inline void coordlua_rawsetref(lua_State *L, int ref) { lua_rawseti(L, LUA_REGISTRYINDEX, ref); }
/* Pushes entry `n` (raw) of the table in registry slot `ref`; returns the entry's type. */
static inline int coordlua_push_entry(lua_State *L, int ref, lua_Integer n) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    int type = lua_rawgeti(L, -1, n);
    lua_copy(L, -1, -2);
    lua_settop(L, -2);
    return type;
}

/* Opens one standard library by its luaopen function and stores it like luaL_openlibs does. */
static inline void coordlua_requiref(lua_State *L, const char *name, lua_CFunction open) {
    luaL_requiref(L, name, open, 1);
    lua_pop(L, 1);
}

#endif /* COORDLUA_VALUES_H */
