/* CCoordinatorLuaGlue: coordlua_fingerprint (see coordlua_fingerprint.h for what it computes). */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
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
/* The stable roots' count (fp_walk_stable) and the kinds of what a root's walk numbered: an object (anchored, with
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
    /* The stable roots (fp_stable below): their objects, the one being walked (-1 after them), and while a
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

static const char fp_maps_key = 'm';

static fp_slots *fp_slots_new(lua_State *L, size_t capacity) {
    fp_slots *data = lua_newuserdatauv(L, sizeof(fp_slots) + capacity * sizeof(fp_slot), 0);
    memset(data->slots, 0, capacity * sizeof(fp_slot));
    data->mask = capacity - 1;
    data->stamp = 1;
    return data;
}

/* Map `index` of the state's maps (the table at `maps`), emptied: its userdata pushed and anchored at m->at. */
static void fp_map_open(lua_State *L, fp_map *m, int maps, int index, size_t capacity) {
    m->index = index;
    m->count = 0;
    if (lua_rawgeti(L, maps, index) == LUA_TUSERDATA) {
        m->data = lua_touserdata(L, -1);
        if (++m->data->stamp == 0) { /* the stamps went round: empty it for real */
            memset(m->data->slots, 0, (m->data->mask + 1) * sizeof(fp_slot));
            m->data->stamp = 1;
        }
    } else {
        lua_pop(L, 1);
        m->data = fp_slots_new(L, capacity);
        lua_pushvalue(L, -1);
        lua_rawseti(L, maps, index);
    }
    m->at = lua_gettop(L);
}

static inline size_t fp_map_place(size_t mask, const void *key) {
    return (size_t)(((uintptr_t)key * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
}

static lua_Integer fp_map_get(const fp_map *m, const void *key) {
    const fp_slots *d = m->data;
    for (size_t i = fp_map_place(d->mask, key); d->slots[i].stamp == d->stamp; i = (i + 1) & d->mask) {
        if (d->slots[i].key == key) return d->slots[i].value;
    }
    return 0;
}

static void fp_map_put(lua_State *L, fp_map *m, int maps, const void *key, lua_Integer value) {
    fp_slots *d = m->data;
    if ((m->count + 1) * 2 > d->mask + 1) {
        size_t capacity = (d->mask + 1) * 2;
        fp_slots *grown = fp_slots_new(L, capacity);
        grown->stamp = d->stamp;
        for (size_t i = 0; i <= d->mask; i++) {
            if (d->slots[i].stamp != d->stamp) continue;
            size_t j = fp_map_place(grown->mask, d->slots[i].key);
            while (grown->slots[j].stamp == grown->stamp) j = (j + 1) & grown->mask;
            grown->slots[j] = d->slots[i];
        }
        lua_pushvalue(L, -1);
        lua_rawseti(L, maps, m->index);
        lua_replace(L, m->at); /* the old slots go with their userdata */
        m->data = d = grown;
    }
    size_t i = fp_map_place(d->mask, key);
    while (d->slots[i].stamp == d->stamp) i = (i + 1) & d->mask;
    d->slots[i].key = key;
    d->slots[i].value = value;
    d->slots[i].stamp = d->stamp;
    m->count++;
}

/* Empties a map within a walk (the registry's items each number their own objects). */
static void fp_map_clear(fp_map *m) {
    if (m->count == 0) return;
    if (++m->data->stamp == 0) {
        memset(m->data->slots, 0, (m->data->mask + 1) * sizeof(fp_slot));
        m->data->stamp = 1;
    }
    m->count = 0;
}

static inline uint64_t fp_rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline void fp_word(fp_walk *w, uint64_t v) {
    w->h.a = fp_rotl(w->h.a ^ v, 23) * 0x9E3779B97F4A7C15ULL;
    w->h.b = (fp_rotl(w->h.b + v, 41) * 0xC2B2AE3D27D4EB4FULL) ^ w->h.a;
}

static inline void fp_tag(fp_walk *w, char tag) { fp_word(w, 0xA5A5000000000000ULL | (unsigned char)tag); }

static void fp_bytes(fp_walk *w, const void *p, size_t n) {
    const unsigned char *s = p;
    fp_word(w, (uint64_t)n);
    while (n >= 8) { uint64_t v; memcpy(&v, s, 8); fp_word(w, v); s += 8; n -= 8; }
    if (n > 0) { uint64_t v = 0; memcpy(&v, s, n); fp_word(w, v); }
}

static inline uint64_t fp_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A C function as its offset in its module, with the module's name: the same in every process of one binary
   (addresses are not: modules load at random places). Code never moves, so a per-thread cache holds. */
static _Thread_local struct { uintptr_t address; uint64_t value; } fp_cfunctions[1024];

static uint64_t fp_cfunction(lua_CFunction f) {
    uintptr_t address = (uintptr_t)f;
    size_t slot = (size_t)((address * 0x9E3779B97F4A7C15ULL) >> 54);
    if (fp_cfunctions[slot].address == address) return fp_cfunctions[slot].value;
    uint64_t value = address;
    Dl_info info;
    if (dladdr((void *)address, &info) != 0 && info.dli_fbase != NULL) {
        value = (uint64_t)(address - (uintptr_t)info.dli_fbase);
        for (const char *c = info.dli_fname; c != NULL && *c != '\0'; c++) value = (value ^ (unsigned char)*c) * 0x100000001B3ULL;
    }
    fp_cfunctions[slot].address = address;
    fp_cfunctions[slot].value = value;
    return value;
}

static void fp_record(fp_walk *w, int idx, const void *key, lua_Integer number, int kind);

/* The number of the object at idx when it was seen before; 0 after numbering it now. */
static lua_Integer fp_seen(fp_walk *w, int idx) {
    const void *key = lua_topointer(w->L, idx);
    lua_Integer n = fp_map_get(&w->visited, key);
    if (n == 0 && w->inItem) n = fp_map_get(&w->local, key);
    if (n != 0) return n;
    fp_map_put(w->L, w->inItem ? &w->local : &w->visited, w->maps, key, ++w->next);
    if (w->recording) fp_record(w, idx, key, w->next, lua_iscfunction(w->L, idx) && lua_upvalueid(w->L, idx, 1) == NULL ? FP_ENTRY_LIGHT : FP_ENTRY_OBJECT);
    return 0;
}

/* While the stable roots are walked: the index of a later stable root that is the object at idx (written by
   that index, and walked in its turn), or -1. */
static int fp_later_root(const fp_walk *w, int idx) {
    if (w->stableAt < 0) return -1;
    const void *key = lua_topointer(w->L, idx);
    for (int k = w->stableAt + 1; k < FP_STABLE; k++) if (w->stableRoots[k] == key) return k;
    return -1;
}

static void fp_value(fp_walk *w, int idx);

/* A table key's place in the canonical order. */
typedef struct {
    int rank;          /* 0 boolean, 1 integer, 2 float, 3 string, 4 an object numbered before, 5 another object */
    lua_Integer number; /* the boolean, the integer, the object's number, or the traversal position */
    double real;
    const char *bytes;
    size_t length;
    int slot;          /* where the key is in the keys table */
} fp_key;

static int fp_compare(const void *x, const void *y) {
    const fp_key *a = x, *b = y;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    switch (a->rank) {
    case 2: return a->real < b->real ? -1 : a->real > b->real ? 1 : 0;
    case 3: {
        size_t n = a->length < b->length ? a->length : b->length;
        int c = memcmp(a->bytes, b->bytes, n);
        if (c != 0) return c;
        return a->length < b->length ? -1 : a->length > b->length ? 1 : 0;
    }
    default: return a->number < b->number ? -1 : a->number > b->number ? 1 : 0;
    }
}

/* Sorts keys in place without allocating: insertion sort for a few, heapsort for more (keys are distinct,
   so any correct sort gives the one order). */
static void fp_sift(fp_key *keys, size_t start, size_t end) {
    size_t root = start;
    while (2 * root + 1 <= end) {
        size_t child = 2 * root + 1, swap = root;
        if (fp_compare(&keys[swap], &keys[child]) < 0) swap = child;
        if (child + 1 <= end && fp_compare(&keys[swap], &keys[child + 1]) < 0) swap = child + 1;
        if (swap == root) return;
        fp_key t = keys[root]; keys[root] = keys[swap]; keys[swap] = t;
        root = swap;
    }
}

static void fp_sort(fp_key *keys, size_t n) {
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            fp_key key = keys[i];
            size_t j = i;
            while (j > 0 && fp_compare(&keys[j - 1], &key) > 0) { keys[j] = keys[j - 1]; j--; }
            keys[j] = key;
        }
        return;
    }
    for (size_t start = (n - 2) / 2 + 1; start-- > 0;) fp_sift(keys, start, n - 1);
    for (size_t end = n - 1; end > 0; end--) {
        fp_key t = keys[0]; keys[0] = keys[end]; keys[end] = t;
        fp_sift(keys, 0, end - 1);
    }
}

static lua_Integer fp_number_of(fp_walk *w, int idx) {
    const void *key = lua_topointer(w->L, idx);
    lua_Integer n = fp_map_get(&w->visited, key);
    if (n == 0 && w->inItem) n = fp_map_get(&w->local, key);
    return n;
}

static void fp_table(fp_walk *w, int idx) {
    lua_State *L = w->L;
    fp_tag(w, 'T');
    int meta = lua_getmetatable(L, idx);
    int weak = 0;
    if (meta && w->lazy != 0) {
        /* A store of frozen data whose nested fields are made on first read: made now, so that the store
           is the same whichever fields the app happened to read before. */
        lua_pushliteral(L, "__index");
        int lazy = lua_rawget(L, -2) == LUA_TFUNCTION && lua_rawequal(L, -1, w->lazy);
        lua_pop(L, 1);
        if (lazy) {
            w->unkeepable = 1; /* the store changes as it is walked: this root's walk is not kept */
            lua_pop(L, 1);
            lua_pushvalue(L, w->lazy);
            lua_pushvalue(L, idx);
            lua_call(L, 1, 0);
            meta = lua_getmetatable(L, idx);
        }
    }
    if (meta) {
        lua_pushliteral(L, "__mode");
        weak = lua_rawget(L, -2) == LUA_TSTRING;
        lua_pop(L, 1);
    }
    if (weak) {
        fp_tag(w, 'W'); /* what a weak table holds depends on when the collector ran */
    } else {
        /* The keys go on the stack (key i at base + i), then sorted by a small array. */
        int base = lua_gettop(L);
        lua_Integer n = 0;
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            lua_pop(L, 1);
            luaL_checkstack(L, 4, "fingerprint: a table with too many keys");
            lua_pushvalue(L, -1);
            n++;
        }
        fp_key small[8];
        fp_key *order = n <= 8 ? small : lua_newuserdatauv(L, (size_t)n * sizeof(fp_key), 0);
        for (lua_Integer i = 0; i < n; i++) {
            fp_key *k = &order[i];
            int at = base + (int)i + 1;
            k->slot = at;
            k->bytes = NULL;
            k->length = 0;
            k->real = 0;
            switch (lua_type(L, at)) {
            case LUA_TBOOLEAN: k->rank = 0; k->number = lua_toboolean(L, at); break;
            case LUA_TNUMBER:
                if (lua_isinteger(L, at)) { k->rank = 1; k->number = lua_tointeger(L, at); }
                else { k->rank = 2; k->real = lua_tonumber(L, at); }
                break;
            case LUA_TSTRING: k->rank = 3; k->bytes = lua_tolstring(L, at, &k->length); break; /* kept alive on the stack */
            default: {
                lua_Integer number = fp_number_of(w, at);
                if (number != 0) { k->rank = 4; k->number = number; } else { k->rank = 5; k->number = i; }
            }
            }
        }
        if (n > 1) fp_sort(order, (size_t)n);
        fp_word(w, (uint64_t)n);
        for (lua_Integer i = 0; i < n; i++) {
            fp_value(w, order[i].slot);
            lua_pushvalue(L, order[i].slot);
            lua_rawget(L, idx);
            fp_value(w, -1);
            lua_pop(L, 1);
        }
        lua_settop(L, base);
    }
    if (meta) { fp_tag(w, 'M'); fp_value(w, -1); lua_pop(L, 1); } else fp_tag(w, '-');
}

static void fp_upvalues(fp_walk *w, int idx) {
    lua_State *L = w->L;
    for (int i = 1; lua_getupvalue(L, idx, i) != NULL; i++) {
        const void *cell = lua_upvalueid(L, idx, i);
        lua_Integer n = fp_map_get(&w->cells, cell);
        if (n == 0 && w->inItem) n = fp_map_get(&w->localCells, cell);
        if (n != 0) { fp_tag(w, 'U'); fp_word(w, (uint64_t)n); lua_pop(L, 1); continue; }
        fp_map_put(L, w->inItem ? &w->localCells : &w->cells, w->maps, cell, ++w->nextCell);
        if (w->recording) fp_record(w, 0, cell, w->nextCell, FP_ENTRY_CELL);
        fp_tag(w, 'u');
        fp_value(w, -1);
        lua_pop(L, 1);
    }
    fp_tag(w, 'e');
}

/* What a function's code is, as a number: a C function's place in its module; a Lua function's source name,
   lines, parameters and upvalue count. Kept per function in a table weak in its keys (lua_getinfo and dladdr
   cost more than the rest of a walk): an entry goes with its function, so no address is ever reused. */
static lua_Integer fp_code(fp_walk *w, int idx) {
    lua_State *L = w->L;
    lua_pushvalue(L, idx);
    if (lua_rawget(L, w->ids) == LUA_TNUMBER) { lua_Integer id = lua_tointeger(L, -1); lua_pop(L, 1); return id; }
    lua_pop(L, 1);
    uint64_t code;
    if (lua_iscfunction(L, idx)) {
        code = fp_cfunction(lua_tocfunction(L, idx)) ^ 0x43;
    } else {
        lua_Debug ar;
        lua_pushvalue(L, idx);
        lua_getinfo(L, ">Su", &ar);
        code = 0xcbf29ce484222325ULL;
        for (const char *c = ar.short_src; *c != '\0'; c++) code = (code ^ (unsigned char)*c) * 0x100000001B3ULL;
        code = fp_mix(code ^ (uint64_t)ar.srclen);
        code = fp_mix(code ^ ((uint64_t)(uint32_t)ar.linedefined | ((uint64_t)(uint32_t)ar.lastlinedefined << 32)));
        code = fp_mix(code ^ ((uint64_t)ar.nparams | ((uint64_t)ar.isvararg << 8) | ((uint64_t)ar.nups << 16)));
    }
    lua_pushvalue(L, idx);
    lua_pushinteger(L, (lua_Integer)code);
    lua_rawset(L, w->ids);
    return (lua_Integer)code;
}

static void fp_function(fp_walk *w, int idx) {
    fp_tag(w, 'F');
    fp_word(w, (uint64_t)fp_code(w, idx));
    fp_upvalues(w, idx);
}

static void fp_userdata(fp_walk *w, int idx) {
    lua_State *L = w->L;
    fp_tag(w, 'D');
    if (lua_getmetatable(L, idx)) {
        fp_tag(w, 'M');
        fp_value(w, -1);
        lua_pop(L, 1);
    } else {
        fp_bytes(w, lua_touserdata(L, idx), lua_rawlen(L, idx)); /* plain C data: its bytes are its value */
    }
    for (int i = 1; lua_getiuservalue(L, idx, i) != LUA_TNONE; i++) { fp_value(w, -1); lua_pop(L, 1); }
    lua_pop(L, 1);
    fp_tag(w, 'e');
}

static void fp_thread(fp_walk *w, int idx) {
    lua_State *L = w->L;
    lua_State *co = lua_tothread(L, idx);
    lua_Debug ar;
    w->unkeepable = 1; /* a coroutine's frames have no image to check */
    fp_tag(w, 'H');
    int status = lua_status(co);
    fp_word(w, (uint64_t)status);
    if (co == L || (status == LUA_OK && lua_getstack(co, 0, &ar))) { fp_tag(w, 'r'); return; } /* running: not data */
    int level = 0;
    for (; lua_getstack(co, level, &ar); level++) {
        if (!lua_checkstack(co, 2)) luaL_error(L, "fingerprint: a coroutine's stack is full");
        lua_getinfo(co, "fl", &ar);
        lua_xmove(co, L, 1);
        fp_value(w, -1);
        lua_pop(L, 1);
        fp_word(w, (uint64_t)(int64_t)ar.currentline);
        for (int n = 1; lua_getlocal(co, &ar, n) != NULL; n++) {
            lua_xmove(co, L, 1);
            fp_value(w, -1);
            lua_pop(L, 1);
        }
        fp_tag(w, '|');
    }
    if (level == 0) { /* not started (its function and arguments) or dead */
        int top = lua_gettop(co);
        fp_word(w, (uint64_t)top);
        for (int i = 1; i <= top; i++) {
            if (!lua_checkstack(co, 1)) luaL_error(L, "fingerprint: a coroutine's stack is full");
            lua_pushvalue(co, i);
            lua_xmove(co, L, 1);
            fp_value(w, -1);
            lua_pop(L, 1);
        }
    }
}

static void fp_value(fp_walk *w, int idx) {
    lua_State *L = w->L;
    idx = lua_absindex(L, idx);
    int type = lua_type(L, idx);
    switch (type) {
    case LUA_TNIL: fp_tag(w, 'z'); return;
    case LUA_TBOOLEAN: fp_tag(w, lua_toboolean(L, idx) ? 't' : 'f'); return;
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) { fp_tag(w, 'i'); fp_word(w, (uint64_t)lua_tointeger(L, idx)); }
        else { lua_Number d = lua_tonumber(L, idx); uint64_t bits; memcpy(&bits, &d, 8); fp_tag(w, 'n'); fp_word(w, bits); }
        return;
    case LUA_TSTRING: { size_t n; const char *s = lua_tolstring(L, idx, &n); fp_tag(w, 's'); fp_bytes(w, s, n); return; }
    default: break;
    }
    luaL_checkstack(L, 12, "fingerprint");
    if (w->stableAt >= 0 && type != LUA_TLIGHTUSERDATA) {
        int root = fp_later_root(w, idx);
        if (root >= 0 && fp_number_of(w, idx) == 0) { fp_tag(w, 'B'); fp_word(w, (uint64_t)root); return; }
    }
    lua_Integer seen = type == LUA_TLIGHTUSERDATA ? 0 : fp_seen(w, idx);
    if (seen != 0) { fp_tag(w, 'R'); fp_word(w, (uint64_t)seen); return; }
    if (w->unwalked != NULL && lua_topointer(L, idx) == w->unwalked) { fp_tag(w, 'X'); return; }
    if (++w->depth > COORDLUA_FINGERPRINT_DEPTH) {
        luaL_error(L, "the app's data is nested deeper than %d levels: exploration cannot tell its states apart", COORDLUA_FINGERPRINT_DEPTH);
    }
    if (w->views != 0) {
        lua_pushvalue(L, idx);
        if (lua_rawget(L, w->views) != LUA_TNIL) {
            fp_tag(w, 'V');
            fp_value(w, -1);
            lua_pop(L, 1);
            w->depth--;
            return;
        }
        lua_pop(L, 1);
    }
    switch (type) {
    case LUA_TTABLE: fp_table(w, idx); break;
    case LUA_TFUNCTION: fp_function(w, idx); break;
    case LUA_TUSERDATA: fp_userdata(w, idx); break;
    case LUA_TTHREAD: fp_thread(w, idx); break;
    default: fp_tag(w, 'p'); break; /* light userdata: an address, the same in no two runtimes */
    }
    w->depth--;
}

static int fp_excluded(fp_walk *w, int idx) {
    if (w->excluded == 0) return 0;
    lua_pushvalue(w->L, idx);
    int found = lua_rawget(w->L, w->excluded) != LUA_TNIL;
    lua_pop(w->L, 1);
    return found;
}

/* The registry: its string keys (sorted, as a table of them), then the values references hold, as a multiset. */
static void fp_registry(fp_walk *w) {
    lua_State *L = w->L;
    lua_newtable(L);
    int named = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, LUA_REGISTRYINDEX)) {
        if (lua_type(L, -2) == LUA_TSTRING) { lua_pushvalue(L, -2); lua_insert(L, -2); lua_rawset(L, named); }
        else lua_pop(L, 1);
    }
    fp_value(w, named);
    fp_hash saved = w->h;
    uint64_t sumA = 0, sumB = 0, count = 0;
    lua_pushnil(L);
    while (lua_next(L, LUA_REGISTRYINDEX)) {
        int type = lua_type(L, -1);
        if (lua_isinteger(L, -2) && lua_tointeger(L, -2) > LUA_RIDX_LAST
            && (type == LUA_TTABLE || type == LUA_TFUNCTION || type == LUA_TUSERDATA || type == LUA_TTHREAD)
            && fp_number_of(w, -1) == 0 && !fp_excluded(w, -1)) { /* one walked already adds nothing (how many references Swift holds to it is not state) */
            w->inItem = 1;
            lua_Integer next = w->next, nextCell = w->nextCell;
            w->h.a = 0x243F6A8885A308D3ULL;
            w->h.b = 0x13198A2E03707344ULL;
            fp_value(w, -1);
            sumA += fp_mix(w->h.a);
            sumB += fp_mix(w->h.b ^ 0x5555555555555555ULL);
            count++;
            w->next = next;
            w->nextCell = nextCell;
            w->inItem = 0;
            fp_map_clear(&w->local);
            fp_map_clear(&w->localCells);
        }
        lua_pop(L, 1);
    }
    w->h = saved;
    fp_tag(w, 'Q');
    fp_word(w, count);
    fp_word(w, sumA);
    fp_word(w, sumB);
    lua_settop(L, named - 1);
}

/* ---- The stable roots and the cache of their walk ----

   An identity walk (one with the registry) begins with the stable roots, in this order: the standard library's
   modules, `package`, the metatables the basic types share, the loaded-modules table, the globals and the
   coordinator module. Within them, an object that is a later stable root is written by that root's index and
   walked in its turn (the roots are named by where Lua keeps them, so the encoding stays canonical). Walked first,
   their numbering depends on nothing else, and while exploring most of them never change: each root's walk is
   kept (the hash and numbering after it, and every object it numbered with an image of its contents), and a
   later walk that finds every object of a prefix of the roots as the image says takes that prefix from the cache.

   Why a matching image means the same walk: the walk of a root reads nothing but the contents of the objects
   it numbers (a table's metatable and its pairs in traversal order, a function's upvalues, a userdata's
   metatable, bytes and user values), the objects the roots before it numbered, and which objects are stable
   roots (compared first). An image holds exactly those contents, each value as its type and its bits or its
   address; an address stands for one object because every object numbered is anchored in a weak table
   (collected, its anchor is gone and the image fails) and every string met is anchored strongly. So equal images
   mean the same objects with the same contents, and the walk would write the same words. A root whose walk
   made a lazy store's fields or met a coroutine is not kept (nor any root after it). */

static const char *const fp_stable_modules[] = { "string", "table", "math", "io", "os", "coroutine", "utf8", "debug", "package" };

typedef struct { const void *key; lua_Integer number; int kind; } fp_entry;
typedef struct { fp_hash h; lua_Integer next, nextCell; size_t entries, words; } fp_mark;
struct fp_cache {
    int count;                 /* roots kept: marks[0, count) hold */
    fp_mark marks[FP_STABLE];
    const void *roots[FP_STABLE]; /* the stable roots' objects when they were kept */
    const void *unwalked;      /* the object the kept walks wrote as a mark (fp_walk's), or NULL */
    fp_entry *entries;         /* every root's numbered objects and cells, in the order numbered */
    uint64_t *words;           /* the images of the objects, in the same order */
    size_t entryCount, entryCapacity, wordCount, wordCapacity;
};

static const char fp_cache_key = 'c';
enum { FP_HOLDER_CACHE = 1, FP_HOLDER_ENTRIES = 2, FP_HOLDER_WORDS = 3, FP_HOLDER_ANCHORS = 4 };

/* The buffer held at holder[slot] made `capacity` items long (at least `used`): its userdata replaced, the
   `used` items copied. */
static void *fp_resize(lua_State *L, int holder, int slot, void *old, size_t used, size_t capacity, size_t size) {
    void *data = lua_newuserdatauv(L, (capacity > used ? capacity : used) * size, 0);
    if (used > 0) memcpy(data, old, used * size);
    lua_rawseti(L, holder, slot);
    return data;
}

/* Grows the buffer held at holder[slot] to twice its size. */
static void *fp_grow(lua_State *L, int holder, int slot, void *old, size_t used, size_t *capacity, size_t size) {
    size_t grown = *capacity < 64 ? 64 : *capacity * 2;
    void *data = fp_resize(L, holder, slot, old, used, grown, size);
    *capacity = grown > used ? grown : used;
    return data;
}

static void fp_record(fp_walk *w, int idx, const void *key, lua_Integer number, int kind) {
    lua_State *L = w->L;
    fp_cache *c = w->cache;
    if (c->entryCount == c->entryCapacity) {
        c->entries = fp_grow(L, w->holder, FP_HOLDER_ENTRIES, c->entries, c->entryCount, &c->entryCapacity, sizeof(fp_entry));
    }
    c->entries[c->entryCount++] = (fp_entry){ key, number, kind };
    if (kind == FP_ENTRY_OBJECT) {
        lua_pushvalue(L, idx);
        lua_rawseti(L, w->anchors, ++w->anchored);
    }
}

/* Writes an object's image (record) or compares it with the one kept (check). */
typedef struct { fp_walk *w; int record, ok; size_t at, end; } fp_image;

static void fp_image_grow(fp_image *x) {
    fp_cache *c = x->w->cache;
    c->words = fp_grow(x->w->L, x->w->holder, FP_HOLDER_WORDS, c->words, c->wordCount, &c->wordCapacity, sizeof(uint64_t));
}

static inline void fp_image_word(fp_image *x, uint64_t v) {
    fp_cache *c = x->w->cache;
    if (x->record) {
        if (c->wordCount == c->wordCapacity) fp_image_grow(x);
        c->words[c->wordCount++] = v;
    } else if (x->at < x->end && c->words[x->at] == v) {
        x->at++;
    } else {
        x->ok = 0;
        x->at = x->end; /* every later word fails too */
    }
}

static inline void fp_image_value(fp_image *x, int idx) {
    lua_State *L = x->w->L;
    int type = lua_type(L, idx);
    switch (type) {
    case LUA_TNIL: fp_image_word(x, 0); fp_image_word(x, 0); return;
    case LUA_TBOOLEAN: fp_image_word(x, 1); fp_image_word(x, (uint64_t)lua_toboolean(L, idx)); return;
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) { fp_image_word(x, 3); fp_image_word(x, (uint64_t)lua_tointeger(L, idx)); }
        else { lua_Number d = lua_tonumber(L, idx); uint64_t bits; memcpy(&bits, &d, 8); fp_image_word(x, 0x103); fp_image_word(x, bits); }
        return;
    default: /* an address names one object (a light C function: its code, never an object's address) */
        fp_image_word(x, (uint64_t)type);
        fp_image_word(x, (uint64_t)(uintptr_t)lua_topointer(L, idx));
        if (type == LUA_TSTRING && x->record) { /* anchored (a key: once each): its address names it while the cache holds */
            lua_pushvalue(L, idx);
            lua_pushboolean(L, 1);
            lua_rawset(L, x->w->anchors);
        }
    }
}

/* An object's image, the object at idx (absolute). A table is its metatable, then its pairs in traversal order
   (a weak table only its metatable: its entries are not walked); a function its upvalues (each cell and its
   value); a userdata its metatable, its bytes when it has none, and its user values. When checking, a table's
   metatable is compared by address only: the metatable is numbered too, so its own image says it is unchanged
   (and so whether the table is weak, and that no lazy store's maker is its __index: recording keeps no such
   table). */
static void fp_image_object(fp_image *x, int idx) {
    lua_State *L = x->w->L;
    if (x->w->unwalked != NULL && lua_topointer(L, idx) == x->w->unwalked) { fp_image_word(x, 'X'); return; } /* a mark: no contents */
    switch (lua_type(L, idx)) {
    case LUA_TTABLE: {
        int weak = 0;
        if (lua_getmetatable(L, idx)) {
            fp_image_word(x, (uint64_t)(uintptr_t)lua_topointer(L, -1));
            if (x->record) {
                lua_pushliteral(L, "__mode");
                weak = lua_rawget(L, -2) == LUA_TSTRING;
                lua_pop(L, 1);
                if (x->w->lazy != 0) {
                    lua_pushliteral(L, "__index");
                    if (lua_rawget(L, -2) == LUA_TFUNCTION && lua_rawequal(L, -1, x->w->lazy)) x->ok = 0; /* a walk would make its fields */
                    lua_pop(L, 1);
                }
            } else {
                weak = x->at < x->end && x->w->cache->words[x->at] == 'W';
            }
            lua_pop(L, 1);
        } else {
            fp_image_word(x, 0);
        }
        if (weak) { fp_image_word(x, 'W'); return; }
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            fp_image_value(x, -2);
            fp_image_value(x, -1);
            lua_pop(L, 1);
            if (!x->ok) { lua_pop(L, 1); return; }
        }
        fp_image_word(x, 'e');
        return;
    }
    case LUA_TFUNCTION:
        for (int i = 1; lua_getupvalue(L, idx, i) != NULL; i++) {
            fp_image_word(x, (uint64_t)(uintptr_t)lua_upvalueid(L, idx, i));
            fp_image_value(x, -1);
            lua_pop(L, 1);
        }
        fp_image_word(x, 'e');
        return;
    case LUA_TUSERDATA:
        if (lua_getmetatable(L, idx)) {
            fp_image_word(x, (uint64_t)(uintptr_t)lua_topointer(L, -1));
            lua_pop(L, 1);
        } else {
            const unsigned char *s = lua_touserdata(L, idx);
            size_t n = lua_rawlen(L, idx);
            fp_image_word(x, 0);
            fp_image_word(x, (uint64_t)n);
            for (; n >= 8; n -= 8, s += 8) { uint64_t v; memcpy(&v, s, 8); fp_image_word(x, v); }
            if (n > 0) { uint64_t v = 0; memcpy(&v, s, n); fp_image_word(x, v); }
        }
        for (int i = 1; lua_getiuservalue(L, idx, i) != LUA_TNONE; i++) { fp_image_value(x, -1); lua_pop(L, 1); }
        lua_pop(L, 1);
        fp_image_word(x, 'e');
        return;
    default: x->ok = 0; return; /* a coroutine: never kept */
    }
}

/* The entries and words of root k: [from, to). */
static size_t fp_mark_entries(const fp_cache *c, int k) { return k == 0 ? 0 : c->marks[k - 1].entries; }
static size_t fp_mark_words(const fp_cache *c, int k) { return k == 0 ? 0 : c->marks[k - 1].words; }

/* Whether every object root k numbered is alive and as its image says. */
static int fp_check_root(fp_walk *w, int k) {
    lua_State *L = w->L;
    fp_cache *c = w->cache;
    if (lua_rawgeti(L, w->anchors, k + 1) != LUA_TTABLE) { lua_pop(L, 1); return 0; }
    int anchors = lua_gettop(L);
    fp_image x = { w, 0, 1, fp_mark_words(c, k), c->marks[k].words };
    lua_Integer anchor = 0;
    luaL_checkstack(L, 6, "fingerprint");
    int at = anchors + 1;
    for (size_t e = fp_mark_entries(c, k); e < c->marks[k].entries && x.ok; e++) {
        if (c->entries[e].kind != FP_ENTRY_OBJECT) continue;
        lua_rawgeti(L, anchors, ++anchor);
        if (lua_topointer(L, at) != c->entries[e].key) x.ok = 0;
        else fp_image_object(&x, at);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return x.ok && x.at == x.end;
}

/* The cache's holder at the top of the stack (made on first need); sets w->cache and w->holder. */
static void fp_cache_open(fp_walk *w) {
    lua_State *L = w->L;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &fp_cache_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 4, 0);
        fp_cache *c = lua_newuserdatauv(L, sizeof(fp_cache), 0);
        memset(c, 0, sizeof *c);
        lua_rawseti(L, -2, FP_HOLDER_CACHE);
        lua_newtable(L);
        lua_rawseti(L, -2, FP_HOLDER_ANCHORS);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &fp_cache_key);
    }
    w->holder = lua_gettop(L);
    lua_rawgeti(L, w->holder, FP_HOLDER_CACHE);
    w->cache = lua_touserdata(L, -1);
    lua_pop(L, 1);
    lua_rawgeti(L, w->holder, FP_HOLDER_ENTRIES);
    w->cache->entries = lua_touserdata(L, -1);
    lua_rawgeti(L, w->holder, FP_HOLDER_WORDS);
    w->cache->words = lua_touserdata(L, -1);
    lua_pop(L, 2);
    lua_rawgeti(L, w->holder, FP_HOLDER_ANCHORS);
    w->anchors = lua_gettop(L); /* the table of the roots' anchor tables, until a root's walk is recorded */
}

/* Pushes the stable roots (FP_STABLE values) and notes their objects in w->stableRoots. */
static void fp_push_stable_roots(fp_walk *w) {
    lua_State *L = w->L;
    luaL_checkstack(L, FP_STABLE + 4, "fingerprint");
    int loaded = lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE) == LUA_TTABLE ? lua_gettop(L) : 0;
    int base = lua_gettop(L);
    /* Read raw: a metatable the scripts gave the loaded modules runs no code here. */
    for (int i = 0; i < FP_MODULES; i++) {
        if (loaded) { lua_pushstring(L, fp_stable_modules[i]); lua_rawget(L, loaded); } else lua_pushnil(L);
    }
    lua_pushliteral(L, "");
    lua_pushinteger(L, 0);
    lua_pushboolean(L, 0);
    lua_pushnil(L);
    for (int i = 0; i < 4; i++) {
        if (!lua_getmetatable(L, base + FP_MODULES + 1 + i)) lua_pushnil(L);
        lua_replace(L, base + FP_MODULES + 1 + i);
    }
    lua_pushvalue(L, base);                                        /* the loaded modules (or nil) */
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    if (loaded) { lua_pushliteral(L, "coordinator"); lua_rawget(L, loaded); } else lua_pushnil(L);
    lua_remove(L, base);
    for (int k = 0; k < FP_STABLE; k++) {
        int at = base + k, type = lua_type(L, at);
        w->stableRoots[k] = type == LUA_TTABLE || type == LUA_TFUNCTION || type == LUA_TUSERDATA || type == LUA_TTHREAD ? lua_topointer(L, at) : NULL;
    }
}

/* Walks the stable roots (pushed at base), taking what the cache holds of them when `cached`. */
static void fp_walk_stable(fp_walk *w, int base, int cached) {
    lua_State *L = w->L;
    int from = 0;
    if (cached) {
        fp_cache_open(w);
        fp_cache *c = w->cache;
        /* Every root's object as when the kept roots were walked: a kept root may name a later one. */
        int same = c->count > 0 && memcmp(c->roots, w->stableRoots, sizeof c->roots) == 0 && c->unwalked == w->unwalked;
        while (same && from < c->count && fp_check_root(w, from)) from++;
        if (from > 0) {
            const fp_mark *m = &c->marks[from - 1];
            w->h = m->h;
            w->next = m->next;
            w->nextCell = m->nextCell;
            for (size_t e = 0; e < m->entries; e++) {
                const fp_entry *entry = &c->entries[e];
                fp_map_put(L, entry->kind == FP_ENTRY_CELL ? &w->cells : &w->visited, w->maps, entry->key, entry->number);
            }
        }
        c->count = from;
        c->entryCount = fp_mark_entries(c, from);
        c->wordCount = fp_mark_words(c, from);
        memcpy(c->roots, w->stableRoots, sizeof c->roots);
        c->unwalked = w->unwalked;
    }
    int tables = w->anchors; /* each root's anchors, by its index + 1 */
    int recording = cached;
    for (int k = from; k < FP_STABLE; k++) {
        w->stableAt = k;
        if (recording) {
            lua_createtable(L, 0, 0);
            lua_createtable(L, 0, 1);
            lua_pushliteral(L, "v");
            lua_setfield(L, -2, "__mode");
            lua_setmetatable(L, -2);
            lua_pushvalue(L, -1);
            lua_rawseti(L, tables, k + 1);
            w->anchors = lua_gettop(L);
            w->anchored = 0;
            w->recording = 1;
            w->unkeepable = 0;
        }
        fp_value(w, base + k);
        w->recording = 0;
        if (!recording) continue;
        fp_cache *c = w->cache;
        /* The images, now that the root's walk made every lazy store it met (then it is not kept). */
        size_t e0 = fp_mark_entries(c, k), e1 = c->entryCount;
        fp_image x = { w, 1, 1, 0, 0 };
        lua_Integer anchor = 0;
        luaL_checkstack(L, 6, "fingerprint");
        for (size_t e = e0; e < e1 && !w->unkeepable && x.ok; e++) {
            if (c->entries[e].kind != FP_ENTRY_OBJECT) continue;
            lua_rawgeti(L, w->anchors, ++anchor);
            fp_image_object(&x, lua_gettop(L));
            lua_pop(L, 1);
        }
        lua_pop(L, 1); /* this root's anchors */
        w->anchors = tables;
        if (w->unkeepable || !x.ok) { recording = 0; continue; }
        c->marks[k] = (fp_mark){ w->h, w->next, w->nextCell, c->entryCount, c->wordCount };
        c->count = k + 1;
    }
    w->stableAt = -1;
    if (cached) {
        /* The buffers to their size: a runtime keeps them as long as it lives. */
        fp_cache *c = w->cache;
        if (c->entryCapacity > c->entryCount + c->entryCount / 4 + 16) {
            c->entries = fp_resize(L, w->holder, FP_HOLDER_ENTRIES, c->entries, c->entryCount, c->entryCount, sizeof(fp_entry));
            c->entryCapacity = c->entryCount;
        }
        if (c->wordCapacity > c->wordCount + c->wordCount / 4 + 64) {
            c->words = fp_resize(L, w->holder, FP_HOLDER_WORDS, c->words, c->wordCount, c->wordCount, sizeof(uint64_t));
            c->wordCapacity = c->wordCount;
        }
    }
}

int coordlua_fingerprint(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    fp_walk w;
    memset(&w, 0, sizeof w);
    w.L = L;
    w.h.a = 0x6A09E667F3BCC908ULL;
    w.h.b = 0xBB67AE8584CAA73BULL;
    lua_settop(L, 7);
    w.stableAt = -1;
    int registry = lua_toboolean(L, 3), cached = lua_toboolean(L, 6) && lua_isnil(L, 2);
    if (lua_toboolean(L, 7)) {
        /* The standard generator's state: the full userdata math.random keeps as its first upvalue. */
        if (lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE) == LUA_TTABLE) {
            lua_pushliteral(L, "math");
            if (lua_rawget(L, -2) == LUA_TTABLE) {
                lua_pushliteral(L, "random");
                if (lua_rawget(L, -2) == LUA_TFUNCTION && lua_iscfunction(L, -1) && lua_getupvalue(L, -1, 1) != NULL) {
                    if (lua_type(L, -1) == LUA_TUSERDATA) w.unwalked = lua_topointer(L, -1);
                    lua_pop(L, 1);
                }
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    if (lua_type(L, 2) == LUA_TTABLE) w.views = 2;
    if (lua_type(L, 4) == LUA_TTABLE) w.excluded = 4;
    if (lua_type(L, 5) == LUA_TFUNCTION) w.lazy = 5;
    if (lua_getfield(L, LUA_REGISTRYINDEX, "coordlua.functionCodes") != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, "coordlua.functionCodes");
    }
    w.ids = lua_gettop(L);
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &fp_maps_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 4, 0);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &fp_maps_key);
    }
    w.maps = lua_gettop(L);
    fp_map_open(L, &w.visited, w.maps, 1, 1024);
    fp_map_open(L, &w.cells, w.maps, 2, 256);
    fp_map_open(L, &w.local, w.maps, 3, 256);
    fp_map_open(L, &w.localCells, w.maps, 4, 64);
    if (registry) {
        int base = lua_gettop(L) + 1;
        fp_push_stable_roots(&w);
        fp_walk_stable(&w, base, cached);
        lua_settop(L, base - 1);
    }
    lua_Integer roots = (lua_Integer)lua_rawlen(L, 1);
    for (lua_Integer i = 1; i <= roots; i++) {
        lua_rawgeti(L, 1, i);
        fp_value(&w, -1);
        lua_pop(L, 1);
    }
    if (registry) {
        fp_registry(&w);
    } else {
        /* The metatables of the types that share one (a string's methods, say); an identity walk took them first. */
        lua_pushliteral(L, "");
        lua_pushinteger(L, 0);
        lua_pushboolean(L, 0);
        lua_pushnil(L);
        for (int i = -4; i < 0; i++) {
            if (lua_getmetatable(L, i)) { fp_value(&w, -1); lua_pop(L, 1); } else fp_tag(&w, '-');
        }
        lua_pop(L, 4);
    }
    lua_pushinteger(L, (lua_Integer)fp_mix(w.h.a ^ fp_rotl(w.h.b, 17)));
    lua_pushinteger(L, (lua_Integer)fp_mix(w.h.b ^ 0x9E3779B97F4A7C15ULL));
    return 2;
}

int coordlua_upvalue_sharers(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    lua_newtable(L); /* 2: the functions kept */
    lua_newtable(L); /* 3: the lists of cells seen */
    lua_Integer kept = 0, n = (lua_Integer)lua_rawlen(L, 1);
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, 1, i) != LUA_TFUNCTION) { lua_pop(L, 1); continue; }
        void *cells[64];
        int count = 0;
        for (; count < 64; count++) {
            void *id = lua_upvalueid(L, -1, count + 1);
            if (id == NULL) break;
            cells[count] = id;
        }
        if (count == 64) { lua_rawseti(L, 2, ++kept); continue; } /* too many to list: kept */
        lua_pushlstring(L, (const char *)cells, (size_t)count * sizeof cells[0]);
        if (lua_rawget(L, 3) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_pushlstring(L, (const char *)cells, (size_t)count * sizeof cells[0]);
            lua_pushboolean(L, 1);
            lua_rawset(L, 3);
            lua_rawseti(L, 2, ++kept);
        } else {
            lua_pop(L, 2);
        }
    }
    lua_settop(L, 2);
    return 1;
}
