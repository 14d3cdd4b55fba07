/* CCoordinatorLuaGlue: the functions coordlua_calls.h declares (see there for what each does). */
#include "CCoordinatorLuaGlue.h"

/* Swift code ran short of memory while pushing a call's function or arguments: the call is not made. The
   function and arguments are popped and Lua's fixed memory message pushed (no allocation). */
static int coordlua_refuse_short_call(lua_State *L, coordlua_Runtime *rt, int nargs) {
    rt->memoryShort = 0;
    lua_pop(L, nargs + 1);
    lua_pushliteral(L, "not enough memory");
    return LUA_ERRMEM;
}

/* Lua code may call Swift, and Swift code that makes values needs the reserve in place. When it was spent
   and cannot be taken back, the garbage the shortage left (a half-made copy) is collected first; if that is
   not enough the call is refused, since Swift code would run with nothing to fall back on. */
static int coordlua_reserve_for_call(lua_State *L, coordlua_Runtime *rt) {
    if (coordlua_restore_reserve(rt)) return 1;
    lua_gc(L, LUA_GCCOLLECT);
    return coordlua_restore_reserve(rt);
}

int coordlua_pcall(lua_State *L, int nargs, int nresults) {
    coordlua_Runtime *rt = coordlua_runtime(L);
    if (rt->memoryShort || !coordlua_reserve_for_call(L, rt)) return coordlua_refuse_short_call(L, rt, nargs);
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, coordlua_msgh);
    lua_insert(L, base);
    int savedEnforce = rt->enforce;
    rt->enforce = 1;
    int status = lua_pcall(L, nargs, nresults, base);
    rt->enforce = savedEnforce;
    lua_remove(L, base);
    return status;
}

void coordlua_pushmsgh(lua_State *L) { lua_pushcfunction(L, coordlua_msgh); }

int coordlua_pcall_with_handler(lua_State *L, int nargs, int nresults, int withHandler) {
    coordlua_Runtime *rt = coordlua_runtime(L);
    if (rt->memoryShort || !coordlua_reserve_for_call(L, rt)) return coordlua_refuse_short_call(L, rt, nargs);
    int handler = withHandler ? lua_gettop(L) - nargs - 1 : 0;
    int savedEnforce = rt->enforce;
    rt->enforce = 1;
    int status = lua_pcall(L, nargs, nresults, handler);
    rt->enforce = savedEnforce;
    return status;
}

int coordlua_load(lua_State *L, const char *buf, size_t size, const char *name, const char *mode) {
    coordlua_Runtime *rt = coordlua_runtime(L);
    int savedEnforce = rt->enforce;
    rt->enforce = 1;
    int status = luaL_loadbufferx(L, buf, size, name, mode);
    rt->enforce = savedEnforce;
    return status;
}

static int coordlua_k_gettable(lua_State *L) { lua_gettable(L, 1); return 1; }

static int coordlua_k_settable(lua_State *L) { lua_settable(L, 1); return 0; }

static int coordlua_k_tostring(lua_State *L) { luaL_tolstring(L, 1, NULL); return 1; }

static int coordlua_k_len(lua_State *L) { lua_len(L, 1); return 1; }

static int coordlua_k_equal(lua_State *L) { lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPEQ)); return 1; }

/* Runs k with the values at the given absolute indices (n of them) copied as its arguments. */
static int coordlua_protect(lua_State *L, lua_CFunction k, int n, int a, int b, int c, int nresults) {
    lua_pushcfunction(L, k);
    int args[3] = {a, b, c};
    for (int i = 0; i < n; i++) lua_pushvalue(L, args[i]);
    return coordlua_pcall(L, n, nresults);
}

/* t[k] when every step of the lookup is a plain table: t raw, then each `__index` that is a table, raw
   (what Lua does, minus calling functions). Replaces the key on top with the value and returns LUA_OK;
   returns -1 with the stack unchanged when t is not a table or a step's `__index` is not a table (then
   only a protected call may do it, as when there is no room for its four values). */
static int coordlua_gettable_tables(lua_State *L, int t) {
    if (!lua_checkstack(L, 4)) return -1;
    t = lua_absindex(L, t);
    int k = lua_gettop(L);
    if (lua_type(L, t) != LUA_TTABLE) return -1;
    lua_pushvalue(L, t);                                          /* k, t */
    for (int loop = 0; loop < 100; loop++) {
        lua_pushvalue(L, k);
        if (lua_rawget(L, -2) != LUA_TNIL || !lua_getmetatable(L, -2)) {   /* k, t, v  (or k, t, nil) */
            lua_replace(L, k);
            lua_settop(L, k);
            return LUA_OK;
        }
        lua_pushliteral(L, "__index");                            /* k, t, nil, mt, "__index" */
        int index = lua_rawget(L, -2);                            /* k, t, nil, mt, h */
        if (index == LUA_TNIL) { lua_pushnil(L); lua_replace(L, k); lua_settop(L, k); return LUA_OK; }
        if (index != LUA_TTABLE) { lua_settop(L, k); return -1; }
        lua_replace(L, k + 1);                                    /* k, h, nil, mt */
        lua_settop(L, k + 1);
    }
    lua_settop(L, k);
    return -1;
}

int coordlua_pgettable(lua_State *L, int t) {
    if (coordlua_gettable_tables(L, t) == LUA_OK) return LUA_OK; /* nothing can run: no protected call */
    t = lua_absindex(L, t);
    int k = lua_gettop(L);
    int status = coordlua_protect(L, coordlua_k_gettable, 2, t, k, 0, 1);
    lua_remove(L, k);
    return status;
}

/* t[k] = v for a table without a metatable and a key that is neither nil nor NaN (what Lua's settable
   does then): pops the key and the value and returns LUA_OK; returns -1 with the stack unchanged
   otherwise. Like every push from Swift, growing the table is covered by the out-of-memory reserve. */
static int coordlua_settable_plain(lua_State *L, int t) {
    t = lua_absindex(L, t);
    if (lua_type(L, t) != LUA_TTABLE) return -1;
    if (lua_getmetatable(L, t)) { lua_pop(L, 1); return -1; }        /* __newindex may apply */
    int kt = lua_type(L, -2);
    if (kt == LUA_TNIL) return -1;                                     /* Lua's error, the protected way */
    if (kt == LUA_TNUMBER && !lua_isinteger(L, -2)) {
        lua_Number n = lua_tonumber(L, -2);
        if (n != n) return -1;                                         /* NaN: the same */
    }
    lua_rawset(L, t);
    return LUA_OK;
}

int coordlua_psettable(lua_State *L, int t) {
    if (coordlua_settable_plain(L, t) == LUA_OK) return LUA_OK; /* nothing can run: no protected call */
    t = lua_absindex(L, t);
    int v = lua_gettop(L);
    int status = coordlua_protect(L, coordlua_k_settable, 3, t, v - 1, v, 0);
    if (status == LUA_OK) { lua_pop(L, 2); }
    else { lua_rotate(L, v - 1, 1); lua_pop(L, 2); }
    return status;
}

int coordlua_ptostring(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    return coordlua_protect(L, coordlua_k_tostring, 1, idx, 0, 0, 1);
}

int coordlua_plen(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    return coordlua_protect(L, coordlua_k_len, 1, idx, 0, 0, 1);
}

int coordlua_pequal(lua_State *L, int a, int b) {
    a = lua_absindex(L, a);
    b = lua_absindex(L, b);
    return coordlua_protect(L, coordlua_k_equal, 2, a, b, 0, 1);
}

static int coordlua_k_pushlstring(lua_State *L) {
    lua_pushlstring(L, (const char *)lua_touserdata(L, 1), (size_t)lua_tointeger(L, 2));
    return 1;
}

static int coordlua_k_createtable(lua_State *L) {
    lua_createtable(L, (int)lua_tointeger(L, 1), (int)lua_tointeger(L, 2));
    return 1;
}

/* What a protected push leaves when it failed: nil in place of the value, and memoryShort set. */
static int coordlua_push_short(lua_State *L) {
    lua_pushnil(L);
    coordlua_runtime(L)->memoryShort = 1;
    return LUA_ERRMEM;
}

/* Calls the function below its two arguments in protected mode: its allocations may fail into C. */
static int coordlua_protected_call(lua_State *L) {
    coordlua_Runtime *rt = coordlua_runtime(L);
    rt->protectedPush++;
    int status = lua_pcall(L, 2, 1, 0);
    rt->protectedPush--;
    if (status == LUA_OK) return LUA_OK;
    lua_pop(L, 1);  /* the error */
    return coordlua_push_short(L);
}

int coordlua_ppushlstring_protected(lua_State *L, const char *s, size_t len) {
    if (!lua_checkstack(L, 3)) return coordlua_push_short(L);
    lua_pushcfunction(L, coordlua_k_pushlstring);
    lua_pushlightuserdata(L, (void *)s);
    lua_pushinteger(L, (lua_Integer)len);
    return coordlua_protected_call(L);
}

int coordlua_pcreatetable_protected(lua_State *L, int narr, int nrec) {
    if (!lua_checkstack(L, 3)) return coordlua_push_short(L);
    lua_pushcfunction(L, coordlua_k_createtable);
    lua_pushinteger(L, narr);
    lua_pushinteger(L, nrec);
    return coordlua_protected_call(L);
}

void coordlua_setfield_bytes(lua_State *L, int idx, const char *name, size_t len) {
    for (size_t i = 0; i < len; i++) {
        if (name[i] == 0) {
            idx = lua_absindex(L, idx);
            lua_pushlstring(L, name, len);
            lua_rotate(L, -2, 1);
            lua_rawset(L, idx);
            return;
        }
    }
    lua_setfield(L, idx, name);
}

void *coordlua_metafield_object(lua_State *L, int idx, const char *name, const void *tag) {
    if (!lua_getmetatable(L, idx)) return NULL;
    lua_pushstring(L, name);
    lua_rawget(L, -2);
    void *object = coordlua_boxed_object(L, -1, tag);
    lua_settop(L, -3);
    return object;
}

/* ---- text-only loading: a crafted binary chunk can crash Lua's VM, so scripts never load one ---- */

/* Calls the function in upvalue 1 with this call's arguments, argument `mode` (1-based) narrowed to text:
   "t" when the caller allows text (the default "bt" does), "" (nothing loads) when it asked for "b" only. */
static int coordlua_call_with_text_mode(lua_State *L, int mode) {
    const char *asked = luaL_optstring(L, mode, "bt");
    int text = strchr(asked, 't') != NULL;
    if (lua_gettop(L) < mode) lua_settop(L, mode);
    if (text) lua_pushliteral(L, "t"); else lua_pushliteral(L, "");
    lua_replace(L, mode);
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

int coordlua_load_text(lua_State *L) { return coordlua_call_with_text_mode(L, 3); }

int coordlua_loadfile_text(lua_State *L) { return coordlua_call_with_text_mode(L, 2); }

/* What the file returned: every value above the name (also when the chunk yielded and was resumed). */
static int coordlua_dofile_finish(lua_State *L, int status, lua_KContext extra) {
    (void)status; (void)extra;
    return lua_gettop(L) - 1;
}

int coordlua_dofile_text(lua_State *L) {
    const char *name = luaL_optstring(L, 1, NULL);
    lua_settop(L, 1);
    if (luaL_loadfilex(L, name, "t") != LUA_OK) return lua_error(L);
    lua_callk(L, 0, LUA_MULTRET, 0, coordlua_dofile_finish);
    return coordlua_dofile_finish(L, 0, 0);
}

/* After package.searchpath's two results on top: the module's loader (its file as text) and the file name,
   or the list of places tried when it was not found. */
static int coordlua_load_found(lua_State *L, const char *name) {
    if (lua_isnil(L, -2)) return 1;  /* not found: the list of places tried */
    lua_pop(L, 1);
    const char *filename = lua_tostring(L, -1);
    if (coordlua_loadfile_shared(L, filename) != LUA_OK)
        return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, filename, lua_tostring(L, -1));
    lua_insert(L, -2);  /* the loader, then the file name */
    return 2;
}

/* package.searchers' file searcher, text only: upvalue 1 is the package table. */
int coordlua_searcher_text(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    lua_getfield(L, lua_upvalueindex(1), "searchpath");
    lua_pushstring(L, name);
    lua_getfield(L, lua_upvalueindex(1), "path");
    if (lua_type(L, -1) != LUA_TSTRING) return luaL_error(L, "'package.path' must be a string");
    lua_call(L, 2, 2);
    return coordlua_load_found(L, name);
}

/* The searcher of the app's own folders (the registry's "coordlua.modulePath") in a state that also searches
   package.path: a module found there loads (binary only where the state takes binary chunks); one not found
   adds nothing to require's message, which stays lua's. Upvalue 1: package.searchpath. */
int coordlua_searcher_folders(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushstring(L, name);
    if (lua_getfield(L, LUA_REGISTRYINDEX, "coordlua.modulePath") != LUA_TSTRING) return 0;
    lua_call(L, 2, 2);
    if (lua_isnil(L, -2)) return 0;
    return coordlua_load_found(L, name);
}

/* The program's results: the whole stack (also when the chunk yielded and was resumed). */
static int coordlua_program_finish(lua_State *L, int status, lua_KContext extra) {
    (void)status; (void)extra;
    return lua_gettop(L);
}

int coordlua_program(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, coordlua_program_finish);
    return coordlua_program_finish(L, 0, 0);
}
