/* CCoordinatorLua: where a sandbox's `require` may read. Part of CCoordinatorLuaGlue.h. */
#ifndef COORDLUA_MODULES_H
#define COORDLUA_MODULES_H

/* A sandbox's file searcher (package.searchers[2] of a sandboxed state, or one whose modules a runtime
   restricted): a module NAME is the file FOLDER/NAME.lua or FOLDER/NAME/init.lua (NAME's dots made
   slashes) of a folder of the registry's "coordlua.moduleFolders" (a list: the app's own folders), loaded as
   text, and only when
     - it is a regular file (never a FIFO, a device, a folder), checked with fstat on a descriptor opened
       without blocking, before a byte is read (a FIFO named NAME.lua once kept `require` waiting forever);
     - its last component is no symbolic link (O_NOFOLLOW: refused even when the link points inside);
     - its path, with the links in its folders followed, stays inside that folder (the descriptor's own
       path, read from /proc/self/fd, so what is checked is what is read).
   A file that is there but breaks a rule is an error naming it; a module found nowhere returns Lua's
   "\n\tno file '...'" list. The file is read into a block the state's memory limit counts, and each byte
   read is a step of the instruction budget and the time limit (coordlua_step), so a huge module ends the
   line as any other work does. */
int coordlua_searcher_sandboxed(lua_State *L);

/* Whether `path` names a regular file that can be opened for reading, found without blocking (what the
   folders' searcher and the runtime's module lookups test: a FIFO is not one). */
int coordlua_readable(const char *path);

#endif /* COORDLUA_MODULES_H */
