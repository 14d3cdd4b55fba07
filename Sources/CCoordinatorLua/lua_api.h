/* CCoordinatorLua: Lua 5.4's C API from the system (pkg-config `lua5.4`, Debian's liblua5.4-dev), nothing else.
   The bridge's own C (trampolines, hooks, protected calls, ...) is the C target CCoordinatorLuaGlue. */
#ifndef COORDLUA_LUA_API_H
#define COORDLUA_LUA_API_H
#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
#endif
