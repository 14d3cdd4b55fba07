/* CCoordinatorLuaGlue: coordlua_fingerprint (see coordlua_fingerprint.h for what it computes): the walk, which
   is the definition of "the same state"; the numbers it gives objects live in fingerprint_map.c, the cache of
   the stable roots' walk in fingerprint_cache.c. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include "fingerprint_parts.h"

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

/* The number of the object at idx when it was seen before; 0 after numbering it now. */
static lua_Integer fp_seen(fp_walk *w, int idx) {
    const void *key = lua_topointer(w->L, idx);
    lua_Integer n = fp_map_get(&w->visited, key);
    if (n == 0 && w->inItem) n = fp_map_get(&w->local, key);
    if (n != 0) return n;
    coordlua_fp_map_put(w->L, w->inItem ? &w->local : &w->visited, w->maps, key, ++w->next);
    if (w->recording) coordlua_fp_record(w, idx, key, w->next, lua_iscfunction(w->L, idx) && lua_upvalueid(w->L, idx, 1) == NULL ? FP_ENTRY_LIGHT : FP_ENTRY_OBJECT);
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
            coordlua_fp_value(w, order[i].slot);
            lua_pushvalue(L, order[i].slot);
            lua_rawget(L, idx);
            coordlua_fp_value(w, -1);
            lua_pop(L, 1);
        }
        lua_settop(L, base);
    }
    if (meta) { fp_tag(w, 'M'); coordlua_fp_value(w, -1); lua_pop(L, 1); } else fp_tag(w, '-');
}

static void fp_upvalues(fp_walk *w, int idx) {
    lua_State *L = w->L;
    for (int i = 1; lua_getupvalue(L, idx, i) != NULL; i++) {
        const void *cell = lua_upvalueid(L, idx, i);
        lua_Integer n = fp_map_get(&w->cells, cell);
        if (n == 0 && w->inItem) n = fp_map_get(&w->localCells, cell);
        if (n != 0) { fp_tag(w, 'U'); fp_word(w, (uint64_t)n); lua_pop(L, 1); continue; }
        coordlua_fp_map_put(L, w->inItem ? &w->localCells : &w->cells, w->maps, cell, ++w->nextCell);
        if (w->recording) coordlua_fp_record(w, 0, cell, w->nextCell, FP_ENTRY_CELL);
        fp_tag(w, 'u');
        coordlua_fp_value(w, -1);
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
        coordlua_fp_value(w, -1);
        lua_pop(L, 1);
    } else {
        fp_bytes(w, lua_touserdata(L, idx), lua_rawlen(L, idx)); /* plain C data: its bytes are its value */
    }
    for (int i = 1; lua_getiuservalue(L, idx, i) != LUA_TNONE; i++) { coordlua_fp_value(w, -1); lua_pop(L, 1); }
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
        coordlua_fp_value(w, -1);
        lua_pop(L, 1);
        fp_word(w, (uint64_t)(int64_t)ar.currentline);
        for (int n = 1; lua_getlocal(co, &ar, n) != NULL; n++) {
            lua_xmove(co, L, 1);
            coordlua_fp_value(w, -1);
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
            coordlua_fp_value(w, -1);
            lua_pop(L, 1);
        }
    }
}

void coordlua_fp_value(fp_walk *w, int idx) {
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
            coordlua_fp_value(w, -1);
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
    coordlua_fp_value(w, named);
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
            coordlua_fp_value(w, -1);
            sumA += fp_mix(w->h.a);
            sumB += fp_mix(w->h.b ^ 0x5555555555555555ULL);
            count++;
            w->next = next;
            w->nextCell = nextCell;
            w->inItem = 0;
            coordlua_fp_map_clear(&w->local);
            coordlua_fp_map_clear(&w->localCells);
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
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &coordlua_fp_maps_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 4, 0);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &coordlua_fp_maps_key);
    }
    w.maps = lua_gettop(L);
    coordlua_fp_map_open(L, &w.visited, w.maps, 1, 1024);
    coordlua_fp_map_open(L, &w.cells, w.maps, 2, 256);
    coordlua_fp_map_open(L, &w.local, w.maps, 3, 256);
    coordlua_fp_map_open(L, &w.localCells, w.maps, 4, 64);
    if (registry) {
        int base = lua_gettop(L) + 1;
        coordlua_fp_push_stable_roots(&w);
        coordlua_fp_walk_stable(&w, base, cached);
        lua_settop(L, base - 1);
    }
    lua_Integer roots = (lua_Integer)lua_rawlen(L, 1);
    for (lua_Integer i = 1; i <= roots; i++) {
        lua_rawgeti(L, 1, i);
        coordlua_fp_value(&w, -1);
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
            if (lua_getmetatable(L, i)) { coordlua_fp_value(&w, -1); lua_pop(L, 1); } else fp_tag(&w, '-');
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
