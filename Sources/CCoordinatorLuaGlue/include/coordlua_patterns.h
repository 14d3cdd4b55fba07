/* CCoordinatorLua: Lua's pattern matching with its work counted. Part of CCoordinatorLuaGlue.h, which includes the parts in order: not to be included alone. */
#ifndef COORDLUA_PATTERNS_H
#define COORDLUA_PATTERNS_H

/* A pattern match is one call of a C function, inside which no hook runs: one that backtracks
   (`string.find(("a"):rep(100000), ".-.-.-.-b")`) could run for hours under a time limit. These are
   string.find, string.match, string.gmatch and string.gsub as Lua 5.4's string library has them (the
   same results and errors), whose matcher counts its steps with coordlua_step: a limit (the deadline, the
   instruction budget, an interrupt, a cancel) stops a match within COORDLUA_SPEND_EVERY steps, with the
   error the hook would raise, located at the Lua code that called it. */
int coordlua_str_find(lua_State *L);
int coordlua_str_match(lua_State *L);
int coordlua_str_gmatch(lua_State *L);
int coordlua_str_gsub(lua_State *L);

/* Puts the four in the global `string` table, if there is one. */
void coordlua_install_patterns(lua_State *L);

#endif /* COORDLUA_PATTERNS_H */
