/* CLua: Lua 5.4's C API from the system (pkg-config `lua5.4`, Debian's liblua5.4-dev), nothing else.
   The bridge's own C (trampolines, hooks, protected calls, ...) is the C target CLuaGlue. */
#ifndef CLUA_LUA_API_H
#define CLUA_LUA_API_H
#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
#endif
