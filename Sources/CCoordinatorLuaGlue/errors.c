/* CCoordinatorLuaGlue: the functions coordlua_errors.h declares (see there for what each does). */
#include "CCoordinatorLuaGlue.h"

int coordlua_msgh(lua_State *L) {
    coordlua_Runtime *rt = coordlua_runtime(L);
    if (rt->tracebacks) {
        luaL_traceback(L, L, NULL, 1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &rt->tracebackKey);
    }
    lua_settop(L, 1);
    return 1;
}

void coordlua_take_traceback(lua_State *L) {
    coordlua_Runtime *rt = coordlua_runtime(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &rt->tracebackKey);
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &rt->tracebackKey);
}

int coordlua_where_error(lua_State *L) {
    luaL_where(L, 1);
    lua_rotate(L, -2, 1);  /* the position before the message */
    lua_concat(L, 2);
    return lua_error(L);
}

void coordlua_where(lua_State *L, int level) {
    lua_Debug ar;
    while (lua_getstack(L, level, &ar)) {
        lua_getinfo(L, "Sl", &ar);
        if (ar.currentline <= 0) break;
        if (strncmp(ar.source, "=[", 2) != 0) {
            lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
            return;
        }
        level++;
    }
    lua_pushliteral(L, "");
}
