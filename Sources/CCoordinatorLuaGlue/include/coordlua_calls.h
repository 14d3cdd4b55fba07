/* CCoordinatorLua: protected calls and the protected variants of API calls that may raise. Part of CCoordinatorLuaGlue.h, which includes the parts in order: not to be included alone. */
#ifndef COORDLUA_CALLS_H
#define COORDLUA_CALLS_H

/* ---- protected calls ---- */

/* lua_pcall with the message handler, with the memory limit enforced while the Lua code runs. The function
   and its arguments are on top of the stack. */
int coordlua_pcall(lua_State *L, int nargs, int nresults);

/* Pushes the message handler: push it first, then the function and its arguments, and call
   coordlua_pcall_with_handler, which saves coordlua_pcall's two stack rotations. Only needed for tracebacks. */
void coordlua_pushmsgh(lua_State *L);

/* lua_pcall with the memory limit enforced; when `handler` is 1 the message handler is already below the
   function (at base - 1) and stays on the stack (the caller restores its top), when 0 there is none (no
   traceback is wanted, and the error object comes back as it is). */
int coordlua_pcall_with_handler(lua_State *L, int nargs, int nresults, int withHandler);

/* luaL_loadbufferx: compiles the chunk in buf (mode "t", "b" or "bt") and pushes it, or the error. */
int coordlua_load(lua_State *L, const char *buf, size_t size, const char *name, const char *mode);

/* t[k] with metamethods; key on top of the stack is replaced by the value (or the error). Where every
   step of the lookup is a plain table (a record, a class's methods), without a protected call. */
int coordlua_pgettable(lua_State *L, int t);

/* t[k] = v with metamethods; key and value on top of the stack are popped (the error pushed on failure).
   For a table without a metatable and a key that is neither nil nor NaN, a raw set without a protected call. */
int coordlua_psettable(lua_State *L, int t);

/* Pushes luaL_tolstring(idx) (honours __tostring and __name), or the error. */
int coordlua_ptostring(lua_State *L, int idx);

/* Pushes #v (honours __len), or the error. */
int coordlua_plen(lua_State *L, int idx);

/* Pushes a == b (honours __eq) as a boolean, or the error. */
int coordlua_pequal(lua_State *L, int a, int b);

/* lua_pushlstring for Swift code: a string longer than COORDLUA_PROTECTED_STRING is made in protected mode;
   when that fails (out of memory) nil is pushed instead and the runtime's memoryShort is set. Needs one
   free slot, like lua_pushlstring. Returns LUA_OK or the error status. */
int coordlua_ppushlstring_protected(lua_State *L, const char *s, size_t len);
static inline int coordlua_ppushlstring(lua_State *L, const char *s, size_t len) {
    if (len <= COORDLUA_PROTECTED_STRING) { lua_pushlstring(L, s, len); return LUA_OK; }
    return coordlua_ppushlstring_protected(L, s, len);
}

/* lua_createtable for Swift code, the same way: tables presized for more than COORDLUA_PROTECTED_TABLE slots
   are made in protected mode (nil and memoryShort when that fails). Needs one free slot. */
int coordlua_pcreatetable_protected(lua_State *L, int narr, int nrec);
static inline int coordlua_pcreatetable(lua_State *L, int narr, int nrec) {
    if (narr + (long long)nrec <= COORDLUA_PROTECTED_TABLE) { lua_createtable(L, narr, nrec); return LUA_OK; }
    return coordlua_pcreatetable_protected(L, narr, nrec);
}

/* t[name] = value (popped) for the table at idx, name given as len bytes that are also NUL-terminated: through
   lua_setfield (Lua's cache of recent C strings finds repeated names without hashing them) unless the bytes hold
   a NUL, then by the bytes. For names of a few bytes the scan is a handful of instructions (no strlen call). */
void coordlua_setfield_bytes(lua_State *L, int idx, const char *name, size_t len);

/* The Swift object of the box tagged `tag` in field `name` of the metatable of the value at idx (read raw),
   or NULL; the stack is unchanged (it needs two free slots). */
void *coordlua_metafield_object(lua_State *L, int idx, const char *name, const void *tag);

/* ---- text-only loading (a crafted binary chunk can crash Lua's VM) ----
   Each takes the library's function as upvalue 1 and calls it with the mode forced to "t". */
int coordlua_load_text(lua_State *L);
int coordlua_loadfile_text(lua_State *L);
/* dofile of text only (luaL_loadfilex with mode "t"), which may yield as the library's may. */
int coordlua_dofile_text(lua_State *L);
/* The file searcher of package.searchers through the process's compiled chunks (text; binary where the state
   takes binary chunks); upvalue 1: the package table. */
int coordlua_searcher_text(lua_State *L);
/* The searcher of the app's folders (the registry's "coordlua.modulePath") before package.path's: a module not
   found there adds nothing to require's message. Upvalue 1: package.searchpath. */
int coordlua_searcher_folders(lua_State *L);
/* Calls upvalue 1 with this call's arguments and returns its results: a chunk run under a C frame, as lua.c runs its chunks under
   pmain (a traceback ends with "[C]: in ?"). */
int coordlua_program(lua_State *L);

#endif /* COORDLUA_CALLS_H */
