/* CCoordinatorLua: compiled chunks shared by every state of the process. Part of CCoordinatorLuaGlue.h. */
#ifndef COORDLUA_CHUNKS_H
#define COORDLUA_CHUNKS_H

/* A host that runs one app per session loads the same scripts into every new state; compiling them is
   most of a state's start. The store keeps, per (chunk name, text), the chunk as lua_dump wrote it after
   compiling that text here; a state that loads the same text under the same name undumps it instead
   (about four times faster than parsing, with the same debug information: line numbers, names).
   Only chunks this process compiled from text are stored and loaded, so the binary-chunk ban still holds
   for anything a script or a file supplies. Thread-safe; bounded by coordlua_chunks_limit bytes (texts and
   dumps): a chunk that would pass it empties the store first. */

/* Compiles `text` (mode "t") as a chunk named `name`, or undumps the stored chunk compiled from the same
   text under the same name; pushes the function (LUA_OK) or the error message, as lua_load does. */
int coordlua_load_shared(lua_State *L, const char *text, size_t size, const char *name);

/* As luaL_loadfilex(L, filename, "t") (a leading UTF-8 BOM and `#` line skipped; line numbers kept; the
   same messages), through the store. */
int coordlua_loadfile_shared(lua_State *L, const char *filename);

/* Where a file's chunk starts in its `*length` bytes, as luaL_loadfilex reads it: past a UTF-8 BOM, a first
   line starting with '#' replaced by its newline (so line numbers stay); a '#' line without a newline is made
   one newline (`*length` shortened). */
size_t coordlua_chunk_text(char *bytes, size_t *length);

/* The store's figures: chunks kept, bytes held (texts and dumps), loads served from it, loads that
   compiled, and the byte limit. */
typedef struct coordlua_ChunkStats {
    size_t chunks, bytes, hits, misses, limit;
} coordlua_ChunkStats;
coordlua_ChunkStats coordlua_chunks_stats(void);

/* Sets the store's byte limit (0 turns the store off; it is emptied) and returns the previous one. */
size_t coordlua_chunks_limit(size_t bytes);

/* Empties the store. */
void coordlua_chunks_clear(void);

#endif /* COORDLUA_CHUNKS_H */
