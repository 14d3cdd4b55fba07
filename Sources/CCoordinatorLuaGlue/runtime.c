/* CCoordinatorLuaGlue: the functions coordlua_runtime.h declares (see there for what each does). */
#include "CCoordinatorLuaGlue.h"

/* The reserve: one block per thread that runs Lua for Swift, not one per state (a host with a thousand
   runtimes on a few threads keeps a few). Only the thread whose allocation failed may spend it, and Swift
   code that makes values runs on one thread at a time per state, so a thread-local block needs no lock.
   The key's destructor frees it when the thread ends. */
static _Thread_local void *threadReserve;
static pthread_key_t reserveKey;
static pthread_once_t reserveKeyOnce = PTHREAD_ONCE_INIT;

static void coordlua_reserve_key(void) { pthread_key_create(&reserveKey, free); }

/* realloc, refused beyond the test limit `systemLimit` (which counts the reserve as used while the state holds it). */
static void *coordlua_system_realloc(coordlua_Runtime *rt, void *ptr, size_t osize, size_t nsize) {
    if (rt->systemLimit != 0 && nsize > osize) {
        size_t held = rt->used + (rt->reserveHeld ? COORDLUA_RESERVE : 0);
        if (held + (nsize - osize) > rt->systemLimit) return NULL;
    }
    if (rt->arena.base != NULL) return coordlua_arena_realloc(&rt->arena, ptr, osize, nsize);
    return coordlua_pool_realloc(&rt->pool, ptr, osize, nsize);
}

int coordlua_restore_reserve(coordlua_Runtime *rt) {
    if (rt->reserveHeld && threadReserve != NULL) return 1;
    if (rt->systemLimit != 0 && rt->used + COORDLUA_RESERVE > rt->systemLimit) return 0;
    if (threadReserve == NULL) {
        pthread_once(&reserveKeyOnce, coordlua_reserve_key);
        threadReserve = malloc(COORDLUA_RESERVE);
        if (threadReserve == NULL) return 0;
        pthread_setspecific(reserveKey, threadReserve);
    }
    rt->reserveHeld = 1;
    return 1;
}

void coordlua_free_reserve(coordlua_Runtime *rt) {
    rt->reserveHeld = 0; /* the thread's block stays for the other states it runs */
}

/* Frees the running thread's reserve so that the allocation that failed can be tried again. */
static int coordlua_spend_reserve(coordlua_Runtime *rt) {
    if (!rt->reserveHeld) return 0;
    rt->reserveHeld = 0;
    if (threadReserve != NULL) {
        free(threadReserve);
        threadReserve = NULL;
        pthread_setspecific(reserveKey, NULL);
    }
    return 1;
}

void *coordlua_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    coordlua_Runtime *rt = (coordlua_Runtime *)ud;
    if (ptr == NULL) osize = 0; /* when ptr is NULL, osize encodes the object's type */
    if (nsize == 0) {
        if (rt->arena.base != NULL) coordlua_arena_free(&rt->arena, ptr, osize);
        else coordlua_pool_free(&rt->pool, ptr, osize);
        rt->used -= osize;
        return NULL;
    }
    if (nsize > osize && rt->refuseNext) { /* Lua collects, then asks again */
        rt->refuseNext = 0;
        return NULL;
    }
    if (nsize > osize && rt->enforce && rt->limit != 0 && rt->used + (nsize - osize) > rt->limit)
        return NULL;
    void *block = coordlua_system_realloc(rt, ptr, osize, nsize);
    if (block == NULL && !rt->enforce && !rt->protectedPush) {
        /* Swift code is running: spend the reserve rather than raise over its frames */
        if (coordlua_spend_reserve(rt)) {
            rt->memoryShort = 1;
            block = coordlua_system_realloc(rt, ptr, osize, nsize);
        }
        if (block == NULL) {
            rt->memoryShort = 1;
            rt->unprotectedFailures++;
        }
    }
    if (block == NULL) return NULL;
    rt->used = rt->used - osize + nsize;
    if (rt->used > rt->peak) rt->peak = rt->used;
    return block;
}

void coordlua_release_memory(coordlua_Runtime *rt) {
    free(rt->ledger.made.boxes);
    free(rt->ledger.collected.boxes);
    rt->ledger = (coordlua_Ledger){0};
    if (rt->arena.base != NULL) coordlua_arena_close(&rt->arena);
    else coordlua_pool_release(&rt->pool);
}

int coordlua_checkpoint(coordlua_Runtime *rt, coordlua_ArenaImage *image) {
    return rt->arena.base != NULL && coordlua_arena_checkpoint(&rt->arena, image, rt->used);
}

void coordlua_restore(coordlua_Runtime *rt, const coordlua_ArenaImage *image) {
    coordlua_arena_restore(&rt->arena, image);
    rt->used = image->used;
}

lua_State *coordlua_newstate(coordlua_Runtime *rt) {
    lua_State *L = lua_newstate(coordlua_alloc, rt);
    if (L != NULL) {
        *(coordlua_Runtime **)lua_getextraspace(L) = rt;
        coordlua_restore_reserve(rt);
    }
    return L;
}

static void coordlua_note_box(coordlua_Ledger *ledger, coordlua_BoxLog *log, void *box) {
    if (log->count == log->capacity) {
        size_t capacity = log->capacity < 64 ? 64 : log->capacity * 2;
        void **grown = capacity > log->capacity ? realloc(log->boxes, capacity * sizeof(void *)) : NULL;
        if (grown == NULL) { ledger->lost = 1; return; }
        log->boxes = grown;
        log->capacity = capacity;
    }
    log->boxes[log->count++] = box;
}

void coordlua_box_made(coordlua_Runtime *rt, void *box) {
    if (rt->ledger.on) coordlua_note_box(&rt->ledger, &rt->ledger.made, box);
}

void coordlua_box_collected(coordlua_Runtime *rt, void *box) {
    /* Deferred while an image is kept (a note that cannot be kept leaks the object rather than free what a
       restore may bring back). */
    if (rt->ledger.on) coordlua_note_box(&rt->ledger, &rt->ledger.collected, box);
    else rt->release(box);
}

void coordlua_ledger_start(coordlua_Runtime *rt) { rt->ledger.on = 1; }

/* The tags of a stream's entry in the ledger (coordlua_arena.h). */
#define COORDLUA_STREAM_FILE ((uintptr_t)1)
#define COORDLUA_STREAM_PIPE ((uintptr_t)2)
#define COORDLUA_STREAM_TAGS ((uintptr_t)3)

/* Settles an entry of the ledger: a box's object released, or a stream closed. */
static void coordlua_settle_entry(coordlua_Runtime *rt, void *entry) {
    uintptr_t bits = (uintptr_t)entry;
    if ((bits & COORDLUA_STREAM_TAGS) == 0) { rt->release(entry); return; }
    FILE *stream = (FILE *)(bits & ~COORDLUA_STREAM_TAGS);
    if ((bits & COORDLUA_STREAM_TAGS) == COORDLUA_STREAM_PIPE) pclose(stream);
    else fclose(stream);
}

int coordlua_ledger_rewind(coordlua_Runtime *rt, size_t made, size_t collected) {
    coordlua_Ledger *ledger = &rt->ledger;
    if (ledger->lost) return 0;
    if (ledger->collected.count > collected) ledger->collected.count = collected;
    /* Settled newest first; a release runs Swift deinitialisers, which never make boxes. */
    while (ledger->made.count > made) coordlua_settle_entry(rt, ledger->made.boxes[--ledger->made.count]);
    return 1;
}

void coordlua_ledger_settle(coordlua_Runtime *rt) {
    coordlua_Ledger *ledger = &rt->ledger;
    ledger->on = 0;
    ledger->lost = 0;
    ledger->made.count = 0;
    size_t count = ledger->collected.count;
    ledger->collected.count = 0;
    for (size_t i = 0; i < count; i++) coordlua_settle_entry(rt, ledger->collected.boxes[i]);
    free(ledger->made.boxes);
    free(ledger->collected.boxes);
    ledger->made = (coordlua_BoxLog){0};
    ledger->collected = (coordlua_BoxLog){0};
}

/* The allocation refused: a userdata Lua makes again after its emergency collection. */
static int coordlua_refused_allocation(lua_State *L) {
    coordlua_runtime(L)->refuseNext = 1;
    lua_newuserdatauv(L, 1, 0);
    return 0;
}

int coordlua_collect_without_finalizers(lua_State *L) {
    coordlua_Runtime *rt = coordlua_runtime(L);
    lua_pushcfunction(L, coordlua_refused_allocation); /* a light C function: nothing allocated */
    int status = lua_pcall(L, 0, 0, 0);
    rt->refuseNext = 0;
    if (status != LUA_OK) lua_pop(L, 1);
    return status == LUA_OK;
}

/* A stream's close (p->closef, which the io library calls once, marking the handle closed): done now, or,
   while an image is kept, deferred (the stream flushed) until none is, since a restore may bring the handle
   back open. */
static int coordlua_stream_close(lua_State *L, uintptr_t kind) {
    luaL_Stream *p = (luaL_Stream *)luaL_checkudata(L, 1, LUA_FILEHANDLE);
    coordlua_Runtime *rt = coordlua_runtime(L);
    if (rt->ledger.on) {
        fflush(p->f);
        coordlua_note_box(&rt->ledger, &rt->ledger.collected, (void *)((uintptr_t)p->f | kind));
        if (kind == COORDLUA_STREAM_PIPE) return luaL_execresult(L, 0); /* the status comes with the real close */
        return luaL_fileresult(L, 1, NULL);
    }
    if (kind == COORDLUA_STREAM_PIPE) return luaL_execresult(L, pclose(p->f));
    return luaL_fileresult(L, fclose(p->f) == 0, NULL);
}

static int coordlua_file_close(lua_State *L) { return coordlua_stream_close(L, COORDLUA_STREAM_FILE); }
static int coordlua_pipe_close(lua_State *L) { return coordlua_stream_close(L, COORDLUA_STREAM_PIPE); }

int coordlua_io_opening(lua_State *L) {
    int pipe = lua_toboolean(L, lua_upvalueindex(2));
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    coordlua_Runtime *rt = coordlua_runtime(L);
    int results = lua_gettop(L);
    for (int i = 1; i <= results; i++) {
        luaL_Stream *p = (luaL_Stream *)luaL_testudata(L, i, LUA_FILEHANDLE);
        if (p == NULL || p->closef == NULL || p->f == NULL || p->f == stdin || p->f == stdout || p->f == stderr) continue;
        if (p->closef == coordlua_file_close || p->closef == coordlua_pipe_close) continue; /* a default file again */
        p->closef = pipe ? coordlua_pipe_close : coordlua_file_close;
        if (rt->ledger.on) coordlua_note_box(&rt->ledger, &rt->ledger.made, (void *)((uintptr_t)p->f | (pipe ? COORDLUA_STREAM_PIPE : COORDLUA_STREAM_FILE)));
    }
    return results;
}
