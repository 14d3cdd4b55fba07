/* CLua: errors: the message handler, tracebacks, raising from C frames, locations. Part of CLuaGlue.h, which includes the parts in order: not to be included alone. */
#ifndef CLUA_ERRORS_H
#define CLUA_ERRORS_H

/* ---- errors ---- */

/* Message handler for calls made from Swift: records a traceback beside the error object (which it
   returns unchanged, so tables and other error values survive). */
int clua_msgh(lua_State *L);

/* Pushes and clears the traceback the handler recorded (nil if none). */
void clua_take_traceback(lua_State *L);

/* Raises the error object on top of the stack. Only ever called from C frames. */
int clua_where_error(lua_State *L);

/* Pushes "chunk:line: " of the Lua code that called the running C function (from `level` up), or "" when
   that caller is a C function, as luaL_where does. Frames of library chunks (chunk names "=[...]", shown
   as "[name]") are skipped, so an error points at the user's line, not at the library's wrapper. */
void clua_where(lua_State *L, int level);

#endif /* CLUA_ERRORS_H */
