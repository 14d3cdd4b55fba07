/* CCoordinatorLuaGlue: the small-block pool of one Lua state. Part of CCoordinatorLuaGlue.h (after
   coordlua_runtime.h's types, before its record): not to be included alone. */
#ifndef COORDLUA_POOL_H
#define COORDLUA_POOL_H

/* Most of what a Lua state allocates is small (strings, closures, upvalues, table parts, prototypes'
   pieces) and freed one by one, and lua_close frees every block of the state. Through malloc that was a
   quarter of the instructions of a new runtime made and let go (callgrind, coordbench --only runtime). Here
   blocks of up to COORDLUA_POOL_LARGEST bytes come from pages of the state's own: a free list per 16-byte
   size class, pages carved from front to back, and every page given back at once after lua_close.

   Lua tells the allocator each block's size (osize), so blocks carry no header. Which blocks are the
   pool's is told by their page: pages are COORDLUA_POOL_PAGE bytes, aligned to their size, and the pool
   keeps their addresses in a hash set; a block of up to COORDLUA_POOL_LARGEST bytes whose page is not in
   the set came from malloc (a large block Lua shrank), and goes back there. Nothing is read from a page to
   decide it, so no block's contents (a script's string) can pass for a page.

   A block that Lua shrinks stays where it is (Lua's allocator must not fail when shrinking): a pool block
   then sits on the free list of its new, smaller class, where it serves that class. Under
   AddressSanitizer the pool is off (every block from malloc), so that ASan sees Lua's blocks. */

#define COORDLUA_POOL_PAGE 4096
#define COORDLUA_POOL_LARGEST 256
#define COORDLUA_POOL_CLASSES (COORDLUA_POOL_LARGEST / 16)

typedef struct coordlua_Pool {
    void *free[COORDLUA_POOL_CLASSES]; /* free blocks of each class, linked through their first word */
    char *bump;                        /* the unused tail of the newest page */
    size_t bumpLeft;
    uintptr_t *pages;                  /* open-addressing hash set of page addresses (0: empty) */
    size_t pageCapacity;               /* a power of two, or 0 */
    size_t pageCount;
} coordlua_Pool;

/* realloc for Lua's blocks (nsize > 0; osize 0 when ptr is NULL): NULL when the system refuses. */
void *coordlua_pool_realloc(coordlua_Pool *pool, void *ptr, size_t osize, size_t nsize);

/* Frees a block of osize bytes. */
void coordlua_pool_free(coordlua_Pool *pool, void *ptr, size_t osize);

/* Gives every page back (after lua_close: no block is in use); the pool is empty and usable again. */
void coordlua_pool_release(coordlua_Pool *pool);

#endif /* COORDLUA_POOL_H */
