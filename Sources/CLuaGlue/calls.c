/* CLuaGlue: the functions clua_calls.h declares (see there for what each does). */
#include "CLuaGlue.h"

/* Swift code ran short of memory while pushing a call's function or arguments: the call is not made. The
   function and arguments are popped and Lua's fixed memory message pushed (no allocation). */
static int clua_refuse_short_call(lua_State *L, clua_Runtime *rt, int nargs) {
    rt->memoryShort = 0;
    lua_pop(L, nargs + 1);
    lua_pushliteral(L, "not enough memory");
    return LUA_ERRMEM;
}

int clua_pcall(lua_State *L, int nargs, int nresults) {
    clua_Runtime *rt = clua_runtime(L);
    if (rt->memoryShort) return clua_refuse_short_call(L, rt, nargs);
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, clua_msgh);
    lua_insert(L, base);
    if (rt->reserve == NULL) clua_restore_reserve(rt);
    int savedEnforce = rt->enforce;
    rt->enforce = 1;
    int status = lua_pcall(L, nargs, nresults, base);
    rt->enforce = savedEnforce;
    lua_remove(L, base);
    return status;
}

void clua_pushmsgh(lua_State *L) { lua_pushcfunction(L, clua_msgh); }

int clua_pcall_with_handler(lua_State *L, int nargs, int nresults, int withHandler) {
    clua_Runtime *rt = clua_runtime(L);
    if (rt->memoryShort) return clua_refuse_short_call(L, rt, nargs);
    int handler = withHandler ? lua_gettop(L) - nargs - 1 : 0;
    if (rt->reserve == NULL) clua_restore_reserve(rt);
    int savedEnforce = rt->enforce;
    rt->enforce = 1;
    int status = lua_pcall(L, nargs, nresults, handler);
    rt->enforce = savedEnforce;
    return status;
}

int clua_load(lua_State *L, const char *buf, size_t size, const char *name, const char *mode) {
    clua_Runtime *rt = clua_runtime(L);
    int savedEnforce = rt->enforce;
    rt->enforce = 1;
    int status = luaL_loadbufferx(L, buf, size, name, mode);
    rt->enforce = savedEnforce;
    return status;
}

static int clua_k_gettable(lua_State *L) { lua_gettable(L, 1); return 1; }

static int clua_k_settable(lua_State *L) { lua_settable(L, 1); return 0; }

static int clua_k_tostring(lua_State *L) { luaL_tolstring(L, 1, NULL); return 1; }

static int clua_k_len(lua_State *L) { lua_len(L, 1); return 1; }

static int clua_k_equal(lua_State *L) { lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPEQ)); return 1; }

/* Runs k with the values at the given absolute indices (n of them) copied as its arguments. */
static int clua_protect(lua_State *L, lua_CFunction k, int n, int a, int b, int c, int nresults) {
    lua_pushcfunction(L, k);
    int args[3] = {a, b, c};
    for (int i = 0; i < n; i++) lua_pushvalue(L, args[i]);
    return clua_pcall(L, n, nresults);
}

int clua_gettable_tables(lua_State *L, int t) {
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

int clua_pgettable(lua_State *L, int t) {
    t = lua_absindex(L, t);
    int k = lua_gettop(L);
    int status = clua_protect(L, clua_k_gettable, 2, t, k, 0, 1);
    lua_remove(L, k);
    return status;
}

int clua_psettable(lua_State *L, int t) {
    t = lua_absindex(L, t);
    int v = lua_gettop(L);
    int status = clua_protect(L, clua_k_settable, 3, t, v - 1, v, 0);
    if (status == LUA_OK) { lua_pop(L, 2); }
    else { lua_rotate(L, v - 1, 1); lua_pop(L, 2); }
    return status;
}

int clua_ptostring(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    return clua_protect(L, clua_k_tostring, 1, idx, 0, 0, 1);
}

int clua_plen(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    return clua_protect(L, clua_k_len, 1, idx, 0, 0, 1);
}

int clua_pequal(lua_State *L, int a, int b) {
    a = lua_absindex(L, a);
    b = lua_absindex(L, b);
    return clua_protect(L, clua_k_equal, 2, a, b, 0, 1);
}

static int clua_k_pushlstring(lua_State *L) {
    lua_pushlstring(L, (const char *)lua_touserdata(L, 1), (size_t)lua_tointeger(L, 2));
    return 1;
}

static int clua_k_createtable(lua_State *L) {
    lua_createtable(L, (int)lua_tointeger(L, 1), (int)lua_tointeger(L, 2));
    return 1;
}

/* What a protected push leaves when it failed: nil in place of the value, and memoryShort set. */
static int clua_push_short(lua_State *L) {
    lua_pushnil(L);
    clua_runtime(L)->memoryShort = 1;
    return LUA_ERRMEM;
}

/* Calls the function below its two arguments in protected mode: its allocations may fail into C. */
static int clua_protected_call(lua_State *L) {
    clua_Runtime *rt = clua_runtime(L);
    rt->protectedPush++;
    int status = lua_pcall(L, 2, 1, 0);
    rt->protectedPush--;
    if (status == LUA_OK) return LUA_OK;
    lua_pop(L, 1);  /* the error */
    return clua_push_short(L);
}

int clua_ppushlstring_protected(lua_State *L, const char *s, size_t len) {
    if (!lua_checkstack(L, 3)) return clua_push_short(L);
    lua_pushcfunction(L, clua_k_pushlstring);
    lua_pushlightuserdata(L, (void *)s);
    lua_pushinteger(L, (lua_Integer)len);
    return clua_protected_call(L);
}

int clua_pcreatetable_protected(lua_State *L, int narr, int nrec) {
    if (!lua_checkstack(L, 3)) return clua_push_short(L);
    lua_pushcfunction(L, clua_k_createtable);
    lua_pushinteger(L, narr);
    lua_pushinteger(L, nrec);
    return clua_protected_call(L);
}

void clua_setfield_bytes(lua_State *L, int idx, const char *name, size_t len) {
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

void *clua_metafield_object(lua_State *L, int idx, const char *name, const void *tag) {
    if (!lua_getmetatable(L, idx)) return NULL;
    lua_pushstring(L, name);
    lua_rawget(L, -2);
    void *object = clua_boxed_object(L, -1, tag);
    lua_settop(L, -3);
    return object;
}

/* ---- text-only loading: a crafted binary chunk can crash Lua's VM, so scripts never load one ---- */

/* Calls the function in upvalue 1 with this call's arguments, argument `mode` (1-based) narrowed to text:
   "t" when the caller allows text (the default "bt" does), "" (nothing loads) when it asked for "b" only. */
static int clua_call_with_text_mode(lua_State *L, int mode) {
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

int clua_load_text(lua_State *L) { return clua_call_with_text_mode(L, 3); }

int clua_loadfile_text(lua_State *L) { return clua_call_with_text_mode(L, 2); }

int clua_dofile_text(lua_State *L) {
    const char *name = luaL_optstring(L, 1, NULL);
    lua_settop(L, 1);
    if (luaL_loadfilex(L, name, "t") != LUA_OK) return lua_error(L);
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L) - 1;
}

/* After package.searchpath's two results on top: the module's loader (its file as text) and the file name,
   or the list of places tried when it was not found. */
static int clua_load_found(lua_State *L, const char *name) {
    if (lua_isnil(L, -2)) return 1;  /* not found: the list of places tried */
    lua_pop(L, 1);
    const char *filename = lua_tostring(L, -1);
    if (luaL_loadfilex(L, filename, "t") != LUA_OK)
        return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, filename, lua_tostring(L, -1));
    lua_insert(L, -2);  /* the loader, then the file name */
    return 2;
}

/* package.searchers' file searcher, text only: upvalue 1 is the package table. */
int clua_searcher_text(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    lua_getfield(L, lua_upvalueindex(1), "searchpath");
    lua_pushstring(L, name);
    lua_getfield(L, lua_upvalueindex(1), "path");
    if (lua_type(L, -1) != LUA_TSTRING) return luaL_error(L, "'package.path' must be a string");
    lua_call(L, 2, 2);
    return clua_load_found(L, name);
}

/* The file searcher of a sandbox: text only, and only along the path in the registry's "clua.modulePath"
   (the app's own folders), whatever a script puts in package.path. Upvalue 1: package.searchpath. */
int clua_searcher_sandboxed(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushstring(L, name);
    if (lua_getfield(L, LUA_REGISTRYINDEX, "clua.modulePath") != LUA_TSTRING) {
        lua_pushliteral(L, "no module folder in the sandbox");
        return 1;
    }
    lua_call(L, 2, 2);
    return clua_load_found(L, name);
}
