/* CCoordinatorLua: errors: the message handler, tracebacks, raising from C frames, locations. Part of CCoordinatorLuaGlue.h, which includes the parts in order: not to be included alone. */
#ifndef COORDLUA_ERRORS_H
#define COORDLUA_ERRORS_H

/* ---- errors ---- */

/* Message handler for calls made from Swift: records a traceback beside the error object (which it
   returns unchanged, so tables and other error values survive). */
int coordlua_msgh(lua_State *L);

/* Pushes and clears the traceback the handler recorded (nil if none). */
void coordlua_take_traceback(lua_State *L);

/* Raises the string on top of the stack with the position of the Lua code that called the running C
   function before it ("chunk:line: ", as luaL_error puts it). */
int coordlua_where_error(lua_State *L);

/* Pushes "chunk:line: " of the Lua code that called the running C function (from `level` up), or "" when
   that caller is a C function, as luaL_where does. Frames of library chunks (chunk names "=[...]", shown
   as "[name]") are skipped, so an error points at the user's line, not at the library's wrapper. */
void coordlua_where(lua_State *L, int level);

#endif /* COORDLUA_ERRORS_H */
