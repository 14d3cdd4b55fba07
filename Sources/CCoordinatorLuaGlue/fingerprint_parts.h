/* CCoordinatorLuaGlue: what the state identity's three parts share (fingerprint.c, the walk that defines
   "the same state"; fingerprint_map.c, the numbers it gives objects by address; fingerprint_cache.c, the
   stable roots and the cache of their walk). Private to the glue: coordlua_fingerprint.h says what the
   identity is. */
#ifndef COORDLUA_FINGERPRINT_PARTS_H
#define COORDLUA_FINGERPRINT_PARTS_H
#include "CCoordinatorLuaGlue.h"

typedef struct { uint64_t a, b; } fp_hash;

/* Numbers by address: an open-addressing map from an object's address (or an upvalue cell's id) to its number.
   Lua's collector never moves an object, and every object numbered stays reachable from the stack while the
   walk runs: an address stands for one object throughout. The slots live in a userdata the state keeps
   between walks (in its registry under a light-userdata key, which no walk reads), each slot stamped with
   the walk it was written in: a new walk empties a map by taking the next stamp, without touching it. */
typedef struct { const void *key; lua_Integer value; uint32_t stamp; } fp_slot;
typedef struct { size_t mask; uint32_t stamp; fp_slot slots[]; } fp_slots;
typedef struct { int at, index; fp_slots *data; size_t count; } fp_map;

/* One walk: the objects and upvalue cells numbered so far, those numbered while walking one item of the
   registry's multiset (`inItem`), the views, the excluded, the lazy stores' maker, the function codes and
   the maps' userdata (tables on the stack, by absolute index), the hash. */
/* The stable roots' count (coordlua_fp_walk_stable) and the kinds of what a root's walk numbered: an object (anchored, with
   an image), a light C function (a value: nothing to check), an upvalue cell (its value is in its functions' images). */
enum { FP_MODULES = 9, FP_STABLE = 16, FP_ENTRY_OBJECT = 0, FP_ENTRY_LIGHT = 1, FP_ENTRY_CELL = 2 };
typedef struct fp_cache fp_cache;
typedef struct {
    lua_State *L;
    fp_map visited, cells, local, localCells;
    int inItem, views, excluded, lazy, ids, maps;
    lua_Integer next, nextCell;
    int depth;
    fp_hash h;
    /* The stable roots (fingerprint_cache.c): their objects, the one being walked (-1 after them), and while a
       root's walk is recorded for the cache: the cache, its holder table and the root's anchors (stack
       indexes), how many objects it anchored, and whether the root cannot be kept (a lazy store was made
       during its walk, or it reaches a coroutine). */
    const void *stableRoots[FP_STABLE];
    int stableAt;
    fp_cache *cache;
    int holder, anchors, recording, unkeepable;
    lua_Integer anchored;
    /* An object written as a mark, its contents not walked (the random generator's state, when asked). */
    const void *unwalked;
} fp_walk;


/* The registry key of the state's maps (a table of their userdata, kept between walks). */
extern const char coordlua_fp_maps_key;

/* Map `index` of the state's maps (the table at `maps`), emptied: its userdata pushed and anchored at m->at. */
void coordlua_fp_map_open(lua_State *L, fp_map *m, int maps, int index, size_t capacity);
/* Numbers `key` with `value` (the map grows in place, its new userdata anchored where the old one was). */
void coordlua_fp_map_put(lua_State *L, fp_map *m, int maps, const void *key, lua_Integer value);
/* Empties a map within a walk (the registry's items each number their own objects). */
void coordlua_fp_map_clear(fp_map *m);

static inline size_t fp_map_place(size_t mask, const void *key) {
    return (size_t)(((uintptr_t)key * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
}

static inline lua_Integer fp_map_get(const fp_map *m, const void *key) {
    const fp_slots *d = m->data;
    for (size_t i = fp_map_place(d->mask, key); d->slots[i].stamp == d->stamp; i = (i + 1) & d->mask) {
        if (d->slots[i].key == key) return d->slots[i].value;
    }
    return 0;
}

/* Writes the value at idx into the walk (fingerprint.c). */
void coordlua_fp_value(fp_walk *w, int idx);

/* Notes an object or cell the walk numbered while a stable root's walk is recorded (fingerprint_cache.c). */
void coordlua_fp_record(fp_walk *w, int idx, const void *key, lua_Integer number, int kind);
/* Pushes the stable roots, in their order, and notes their objects in w->stableRoots. */
void coordlua_fp_push_stable_roots(fp_walk *w);
/* Walks the stable roots pushed from `base`, taking from the cache the prefix it holds unchanged (`cached`). */
void coordlua_fp_walk_stable(fp_walk *w, int base, int cached);

#endif
