/* CCoordinatorLuaGlue: compiled chunks shared by every state of the process (see coordlua_chunks.h). */
#include "CCoordinatorLuaGlue.h"
#include <errno.h>

/* One compiled chunk: the text and name it was compiled from (compared whole: the hash only finds the
   bucket) and the dump. `refs` counts the states undumping it now, so emptying the store never frees a
   dump in use: a dropped entry is freed by its last reader. */
typedef struct Chunk {
    struct Chunk *next;
    uint64_t hash;
    char *name;
    char *text;
    size_t textSize;
    char *dump;
    size_t dumpSize;
    int refs;
    int dropped;
} Chunk;

#define BUCKETS 256

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Chunk *buckets[BUCKETS];
static size_t heldBytes, chunkCount, hits, misses;
static size_t limitBytes = 64u << 20;

static uint64_t hashOf(const char *name, const char *text, size_t size) {
    uint64_t h = 14695981039346656037ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = (h ^ *p) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
    for (size_t i = 0; i < size; i++) h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
    return h;
}

static size_t sizeOf(const Chunk *c) { return c->textSize + c->dumpSize + strlen(c->name) + 1 + sizeof(Chunk); }

static void freeChunk(Chunk *c) {
    free(c->name);
    free(c->text);
    free(c->dump);
    free(c);
}

/* Under the lock. */
static void clearLocked(void) {
    for (int b = 0; b < BUCKETS; b++) {
        Chunk *c = buckets[b];
        while (c != NULL) {
            Chunk *next = c->next;
            if (c->refs > 0) c->dropped = 1; else freeChunk(c);
            c = next;
        }
        buckets[b] = NULL;
    }
    heldBytes = 0;
    chunkCount = 0;
}

/* Under the lock: the chunk compiled from this text under this name, with a reference taken. */
static Chunk *findLocked(uint64_t hash, const char *name, const char *text, size_t size) {
    for (Chunk *c = buckets[hash % BUCKETS]; c != NULL; c = c->next) {
        if (c->hash == hash && c->textSize == size && strcmp(c->name, name) == 0 && memcmp(c->text, text, size) == 0) {
            c->refs++;
            return c;
        }
    }
    return NULL;
}

static void releaseChunk(Chunk *c) {
    pthread_mutex_lock(&lock);
    int freeIt = --c->refs == 0 && c->dropped;
    pthread_mutex_unlock(&lock);
    if (freeIt) freeChunk(c);
}

typedef struct Buffer { char *bytes; size_t size, capacity; int failed; } Buffer;

static int writeDump(lua_State *L, const void *p, size_t size, void *ud) {
    (void)L;
    Buffer *b = (Buffer *)ud;
    if (b->size + size > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        while (capacity < b->size + size) capacity *= 2;
        char *grown = realloc(b->bytes, capacity);
        if (grown == NULL) { b->failed = 1; return 1; }
        b->bytes = grown;
        b->capacity = capacity;
    }
    memcpy(b->bytes + b->size, p, size);
    b->size += size;
    return 0;
}

typedef struct Reading { const char *bytes; size_t size; } Reading;

static const char *readDump(lua_State *L, void *ud, size_t *size) {
    (void)L;
    Reading *r = (Reading *)ud;
    *size = r->size;
    r->size = 0;
    return *size > 0 ? r->bytes : NULL;
}

/* Keeps the function on top of the stack, compiled from `text`, as a new chunk (when it fits). */
static void store(lua_State *L, uint64_t hash, const char *name, const char *text, size_t size) {
    Buffer dump = {0};
    lua_dump(L, writeDump, &dump, 0);
    Chunk *c = calloc(1, sizeof(Chunk));
    char *nameCopy = strdup(name);
    char *textCopy = malloc(size > 0 ? size : 1);
    if (dump.failed || c == NULL || nameCopy == NULL || textCopy == NULL) {
        free(dump.bytes); free(c); free(nameCopy); free(textCopy);
        return;
    }
    memcpy(textCopy, text, size);
    *c = (Chunk){ .hash = hash, .name = nameCopy, .text = textCopy, .textSize = size, .dump = dump.bytes, .dumpSize = dump.size };
    pthread_mutex_lock(&lock);
    size_t bytes = sizeOf(c);
    if (bytes > limitBytes) {
        pthread_mutex_unlock(&lock);
        freeChunk(c);
        return;
    }
    Chunk *existing = findLocked(hash, name, text, size); /* another thread stored it meanwhile */
    if (existing != NULL) {
        existing->refs--;
        pthread_mutex_unlock(&lock);
        freeChunk(c);
        return;
    }
    if (heldBytes + bytes > limitBytes) clearLocked();
    c->next = buckets[hash % BUCKETS];
    buckets[hash % BUCKETS] = c;
    heldBytes += bytes;
    chunkCount++;
    pthread_mutex_unlock(&lock);
}

int coordlua_load_shared(lua_State *L, const char *text, size_t size, const char *name) {
    coordlua_Runtime *rt = coordlua_runtime(L);
    if (rt->binaryChunks && size > 0 && text[0] == LUA_SIGNATURE[0]) {
        /* A precompiled chunk (luac's output), where the state takes them: loaded as lua.c would. */
        int savedEnforce = rt->enforce;
        rt->enforce = 1;
        int status = luaL_loadbufferx(L, text, size, name, "b");
        rt->enforce = savedEnforce;
        return status;
    }
    uint64_t hash = hashOf(name, text, size);
    pthread_mutex_lock(&lock);
    int storing = limitBytes > 0;
    Chunk *found = storing ? findLocked(hash, name, text, size) : NULL;
    if (found != NULL) hits++; else misses++;
    pthread_mutex_unlock(&lock);
    int savedEnforce = rt->enforce;
    rt->enforce = 1;
    int status;
    if (found != NULL) {
        Reading reading = { found->dump, found->dumpSize };
        status = lua_load(L, readDump, &reading, name, "b");
        releaseChunk(found);
        if (status == LUA_OK) rt->sharedChunkLoads++;
    } else {
        status = luaL_loadbufferx(L, text, size, name, "t");
        if (status == LUA_OK && storing) store(L, hash, name, text, size);
    }
    rt->enforce = savedEnforce;
    return status;
}

/* The file's text as luaL_loadfilex gives it to the parser: a UTF-8 BOM dropped, a first line starting
   with '#' replaced by its newline. */
static int readFile(lua_State *L, const char *filename, char **text, size_t *size, size_t *skip) {
    FILE *f = fopen(filename, "rb");
    if (f == NULL) {
        lua_pushfstring(L, "cannot open %s: %s", filename, strerror(errno));
        return LUA_ERRFILE;
    }
    size_t capacity = 4096, length = 0;
    char *bytes = malloc(capacity);
    while (bytes != NULL) {
        length += fread(bytes + length, 1, capacity - length, f);
        if (length < capacity) break;
        char *grown = capacity <= SIZE_MAX / 2 ? realloc(bytes, capacity * 2) : NULL;
        if (grown == NULL) { free(bytes); bytes = NULL; break; }
        bytes = grown;
        capacity *= 2;
    }
    int failed = bytes == NULL || ferror(f);
    int error = errno;
    fclose(f);
    if (failed) {
        free(bytes);
        if (bytes == NULL) { lua_pushliteral(L, "not enough memory"); return LUA_ERRMEM; }
        lua_pushfstring(L, "cannot read %s: %s", filename, strerror(error));
        return LUA_ERRFILE;
    }
    size_t start = coordlua_chunk_text(bytes, &length);
    *text = bytes;
    *size = length - start;
    *skip = start;
    return LUA_OK;
}

size_t coordlua_chunk_text(char *bytes, size_t *length) {
    size_t start = 0;
    if (*length >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0) start = 3;
    if (start < *length && bytes[start] == '#') {
        const char *newline = memchr(bytes + start, '\n', *length - start);
        if (newline != NULL) {
            start = (size_t)(newline - bytes);
        } else {
            bytes[start] = '\n';
            *length = start + 1;
        }
    }
    return start;
}

int coordlua_loadfile_shared(lua_State *L, const char *filename) {
    char *bytes;
    size_t size, skip;
    int status = readFile(L, filename, &bytes, &size, &skip);
    if (status != LUA_OK) return status;
    lua_pushfstring(L, "@%s", filename);
    status = coordlua_load_shared(L, bytes + skip, size, lua_tostring(L, -1));
    free(bytes);
    lua_remove(L, -2); /* the name */
    return status;
}

coordlua_ChunkStats coordlua_chunks_stats(void) {
    pthread_mutex_lock(&lock);
    coordlua_ChunkStats stats = { chunkCount, heldBytes, hits, misses, limitBytes };
    pthread_mutex_unlock(&lock);
    return stats;
}

size_t coordlua_chunks_limit(size_t bytes) {
    pthread_mutex_lock(&lock);
    size_t previous = limitBytes;
    limitBytes = bytes;
    if (heldBytes > limitBytes) clearLocked();
    pthread_mutex_unlock(&lock);
    return previous;
}

void coordlua_chunks_clear(void) {
    pthread_mutex_lock(&lock);
    clearLocked();
    pthread_mutex_unlock(&lock);
}
