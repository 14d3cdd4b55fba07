/* CCoordinatorLuaGlue: a Lua heap in one region the runtime owns (see coordlua_arena.h). */
#include "CCoordinatorLuaGlue.h"
#include <sys/mman.h>
#include <unistd.h>

/* Size classes: 16 of 16-byte steps up to 256 bytes, then four to each power of two up to 2^47. */
#define SMALL_CLASSES 16
#define CLASSES (SMALL_CLASSES + 4 * 40)
#define GROWTH ((size_t)1 << 20)   /* the heap is made usable a megabyte at a time */
#define LINE 64

/* The allocator's bookkeeping, at the region's start: saved and restored with the blocks. */
typedef struct Header {
    size_t top;              /* offset of the first byte never carved */
    void *free[CLASSES];     /* each class's free blocks, linked through their first word */
} Header;

#define FIRST_BLOCK ((sizeof(Header) + LINE - 1) & ~(size_t)(LINE - 1))

static inline Header *header(const coordlua_Arena *arena) { return (Header *)arena->base; }

/* The class of a block of `size` bytes (size >= 1): above 256 bytes, with 2^p < size <= 2^(p+1), the four
   classes 2^p + k * 2^(p-2), k = 1...4. */
static inline size_t classOf(size_t size) {
    if (size <= 256) return (size + 15) / 16 - 1;
    size_t p = 63 - (size_t)__builtin_clzll((unsigned long long)(size - 1));
    size_t step = (size_t)1 << (p - 2);
    size_t k = (size - ((size_t)1 << p) + step - 1) / step;
    return SMALL_CLASSES + (p - 8) * 4 + (k - 1);
}

/* The size of the blocks of class `cls`. */
static inline size_t classSize(size_t cls) {
    if (cls < SMALL_CLASSES) return (cls + 1) * 16;
    size_t p = 8 + (cls - SMALL_CLASSES) / 4, k = (cls - SMALL_CLASSES) % 4 + 1;
    return ((size_t)1 << p) + k * ((size_t)1 << (p - 2));
}

/* Makes the region usable up to `end` bytes from its start: 1, or 0 past the reservation or when the
   system refuses. */
static int makeUsable(coordlua_Arena *arena, size_t end) {
    if (end <= arena->usable) return 1;
    if (end > arena->reserved) return 0;
    size_t grown = (end + GROWTH - 1) & ~(GROWTH - 1);
    if (grown > arena->reserved) grown = arena->reserved;
    if (mprotect(arena->base + arena->usable, grown - arena->usable, PROT_READ | PROT_WRITE) != 0) return 0;
    arena->usable = grown;
    return 1;
}

int coordlua_arena_open(coordlua_Arena *arena, size_t bytes) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (bytes < FIRST_BLOCK + GROWTH) bytes = FIRST_BLOCK + GROWTH;
    if (bytes > SIZE_MAX - GROWTH) return 0;
    bytes = (bytes + GROWTH - 1) & ~(GROWTH - 1);
    if (bytes % page != 0) return 0;
    void *region = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (region == MAP_FAILED) return 0;
    arena->base = region;
    arena->reserved = bytes;
    arena->usable = 0;
    if (!makeUsable(arena, FIRST_BLOCK)) {
        munmap(region, bytes);
        memset(arena, 0, sizeof *arena);
        return 0;
    }
    header(arena)->top = FIRST_BLOCK; /* the rest of the header is zero: no free blocks */
    return 1;
}

void coordlua_arena_close(coordlua_Arena *arena) {
    if (arena->base != NULL) munmap(arena->base, arena->reserved);
    memset(arena, 0, sizeof *arena);
}

/* A block of class `cls`: a free one, else carved at the top; NULL when the region is full. */
static void *take(coordlua_Arena *arena, size_t cls) {
    Header *h = header(arena);
    void *block = h->free[cls];
    if (block != NULL) {
        h->free[cls] = *(void **)block;
        return block;
    }
    size_t size = classSize(cls);
    if (h->top > arena->reserved - size || !makeUsable(arena, h->top + size)) return NULL;
    block = arena->base + h->top;
    h->top += size;
    return block;
}

static inline void give(coordlua_Arena *arena, void *block, size_t size) {
    size_t cls = classOf(size);
    *(void **)block = header(arena)->free[cls];
    header(arena)->free[cls] = block;
}

/* The largest block: the classes end at 2^47 bytes. */
#define LARGEST ((size_t)1 << 47)

void *coordlua_arena_realloc(coordlua_Arena *arena, void *ptr, size_t osize, size_t nsize) {
    if (nsize > LARGEST) return nsize < osize ? ptr : NULL;
    size_t want = classOf(nsize);
    if (ptr == NULL) return take(arena, want);
    if (want == classOf(osize)) return ptr; /* the block already holds at least its class's size */
    void *block = take(arena, want);
    if (block == NULL) return nsize < osize ? ptr : NULL; /* shrinking never fails: it stays, a little larger */
    memcpy(block, ptr, nsize < osize ? nsize : osize);
    give(arena, ptr, osize);
    return block;
}

void coordlua_arena_free(coordlua_Arena *arena, void *ptr, size_t osize) {
    if (ptr != NULL && osize > 0) give(arena, ptr, osize);
}

size_t coordlua_arena_size(const coordlua_Arena *arena) { return arena->base != NULL ? header(arena)->top : 0; }

int coordlua_arena_checkpoint(const coordlua_Arena *arena, coordlua_ArenaImage *image, size_t used) {
    size_t size = header(arena)->top;
    if (image->capacity < size) {
        char *bytes = malloc(size);
        if (bytes == NULL) return 0;
        free(image->bytes);
        image->bytes = bytes;
        image->capacity = size;
    }
    memcpy(image->bytes, arena->base, size);
    image->size = size;
    image->used = used;
    return 1;
}

void coordlua_arena_restore(coordlua_Arena *arena, const coordlua_ArenaImage *image) {
    size_t now = header(arena)->top;
    memcpy(arena->base, image->bytes, image->size);
    if (now > image->size) memset(arena->base + image->size, 0, now - image->size);
}

size_t coordlua_arena_changed(const coordlua_Arena *arena, const coordlua_ArenaImage *image, size_t *lines, size_t capacity) {
    size_t now = header(arena)->top, end = now > image->size ? now : image->size, found = 0;
    static const char zeros[LINE];
    for (size_t offset = 0; offset < end; offset += LINE) {
        size_t length = end - offset < LINE ? end - offset : LINE;
        const char *mine = arena->base + offset;
        int differs;
        if (offset + length <= image->size) differs = memcmp(mine, image->bytes + offset, length) != 0;
        else if (offset >= image->size) differs = memcmp(mine, zeros, length) != 0;
        else differs = memcmp(mine, image->bytes + offset, image->size - offset) != 0
                       || memcmp(mine + (image->size - offset), zeros, length - (image->size - offset)) != 0;
        if (!differs) continue;
        if (lines != NULL && found < capacity) lines[found] = offset;
        found++;
    }
    return found;
}

void coordlua_arena_image_free(coordlua_ArenaImage *image) {
    free(image->bytes);
    memset(image, 0, sizeof *image);
}
