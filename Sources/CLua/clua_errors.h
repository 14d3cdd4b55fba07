/* CLua: errors: the message handler, tracebacks, raising from C frames, locations. Part of shim.h, which includes the parts in order: not to be included alone. */
#ifndef CLUA_ERRORS_H
#define CLUA_ERRORS_H

/* ---- errors ---- */

/* Message handler for calls made from Swift: records a traceback beside the error object (which it
   returns unchanged, so tables and other error values survive). */
static inline int clua_msgh(lua_State *L) {
    clua_Runtime *rt = clua_runtime(L);
    if (rt->tracebacks) {
        luaL_traceback(L, L, NULL, 1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &rt->tracebackKey);
    }
    lua_settop(L, 1);
    return 1;
}

/* Pushes and clears the traceback the handler recorded (nil if none). */
static inline void clua_take_traceback(lua_State *L) {
    clua_Runtime *rt = clua_runtime(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &rt->tracebackKey);
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &rt->tracebackKey);
}

/* Raises the error object on top of the stack. Only ever called from C frames. */
static inline int clua_where_error(lua_State *L) {
    luaL_where(L, 1);
    lua_insert(L, -2);
    lua_concat(L, 2);
    return lua_error(L);
}

/* Pushes "chunk:line: " of the Lua code that called the running C function (from `level` up), or "" when
   that caller is a C function, as luaL_where does. Frames of library chunks (chunk names "=[...]", shown
   as "[name]") are skipped, so an error points at the user's line, not at the library's wrapper. */
static inline void clua_where(lua_State *L, int level) {
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

#endif /* CLUA_ERRORS_H */
