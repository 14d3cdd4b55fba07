/* CCoordinatorLua: state fingerprints. Part of CCoordinatorLuaGlue.h, which includes the parts in order: not to be included alone. */
#ifndef COORDLUA_FINGERPRINT_H
#define COORDLUA_FINGERPRINT_H

/* A lua_CFunction, called with lua_pcall: the 128-bit fingerprint of everything reachable from a list of roots,
   returned as two integers. Two states get the same fingerprint only when the data reachable from the roots is
   the same (up to a hash collision): the same primitive values, the same shape of sharing and cycles between
   tables, functions and userdata, the same upvalue cells shared between closures.

   Arguments: 1 a sequence of roots, walked in order (one numbering of shared objects across them); 2 a table
   from objects to the values that stand for them (a coordinator's view), or nil; 3 true to walk the
   registry as well: its string keys in sorted order, then every value held by a reference (an integer key)
   whose value is a table, function, userdata or thread not reached before, as a multiset (each walked on its own: reference
   numbers depend on history, so their order is not part of the state); 4 a table whose keys are objects the registry's
   multiset leaves out (the host's caches), or nil; 5 the `__index` function of lazily made stores, or nil: a
   table whose metatable's __index it is gets it called with the table alone first (which makes every field);
   6 true to keep the stable roots' walk between calls (below); 7 true to leave out the state of the standard
   random generator (the userdata `math.random` keeps: written as a mark, its bytes not walked).

   With the registry, the walk begins with the stable roots: the standard library's modules, `package`, the
   metatables the basic types share, the loaded-modules table, the globals and the coordinator module (each
   found where Lua keeps it; within them, a later stable root is written by its index and walked in its turn).
   With 6 true, each root's walk is kept with an image of every object it numbered, and a later call takes
   every root of the longest prefix whose objects all match their images from what was kept instead of
   walking it: the same fingerprint (fingerprint.c says why), at the cost of comparing the images.

   The encoding is canonical: a table's keys are walked sorted (booleans, integers, floats, strings, then
   objects already numbered, then other objects in traversal order: the one case where two equal states may
   get two fingerprints, never the reverse); an object seen again is written as its number. A Lua function is
   its source name, its lines and counts, and its upvalues (a shared cell written once, then by number); a C
   function is its offset in its executable module (the same in every process of one binary); a full userdata
   with a metatable is its metatable and user values (its bytes belong to the host), one without is its bytes
   too; a coroutine its status and, for each frame, its function, line and locals. A weak table's entries are
   not walked (what it holds depends on when the collector ran): only its metatable is. Nesting deeper than
   COORDLUA_FINGERPRINT_DEPTH levels raises an error. */
#define COORDLUA_FINGERPRINT_DEPTH 160
int coordlua_fingerprint(lua_State *L);

/* Of the functions in the table (a list) at 1, one for each distinct list of upvalue cells (lua_upvalueid),
   in order, as a new list: walking those reaches everything all of them reach through their upvalues (a
   test file's tests, which share its locals). A lua_CFunction. */
int coordlua_upvalue_sharers(lua_State *L);

#endif /* COORDLUA_FINGERPRINT_H */
