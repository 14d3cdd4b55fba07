/* CCoordinatorLuaGlue: the state identity's stable roots and the cache of their walk (see fingerprint_parts.h). */
#include "fingerprint_parts.h"

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

void coordlua_fp_record(fp_walk *w, int idx, const void *key, lua_Integer number, int kind) {
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
void coordlua_fp_push_stable_roots(fp_walk *w) {
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
void coordlua_fp_walk_stable(fp_walk *w, int base, int cached) {
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
                coordlua_fp_map_put(L, entry->kind == FP_ENTRY_CELL ? &w->cells : &w->visited, w->maps, entry->key, entry->number);
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
        coordlua_fp_value(w, base + k);
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
