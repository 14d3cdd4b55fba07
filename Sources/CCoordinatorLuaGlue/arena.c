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

/* Free blocks at least this large are left out of an image, but for their first line (which holds the
   free list's link): nothing reads a block's bytes before writing them, so what a free block held is no
   part of the state. Each one left out saves copying a kilobyte or more, for one step of a list walk. */
#define SKIPPED_FROM ((size_t)1024)

static int byOffset(const void *a, const void *b) {
    size_t x = ((const coordlua_ArenaRange *)a)->offset, y = ((const coordlua_ArenaRange *)b)->offset;
    return x < y ? -1 : x > y;
}

/* Makes room for `count` ranges in the image: 1, or 0 when there is no memory. */
static int roomForRanges(coordlua_ArenaImage *image, size_t count) {
    if (image->rangeCapacity >= count) return 1;
    size_t capacity = image->rangeCapacity * 2 > count ? image->rangeCapacity * 2 : count;
    if (capacity > SIZE_MAX / sizeof(coordlua_ArenaRange)) return 0;
    coordlua_ArenaRange *ranges = realloc(image->ranges, capacity * sizeof *ranges);
    if (ranges == NULL) return 0;
    image->ranges = ranges;
    image->rangeCapacity = capacity;
    return 1;
}

int coordlua_arena_checkpoint(const coordlua_Arena *arena, coordlua_ArenaImage *image, size_t used) {
    const Header *h = header(arena);
    size_t top = h->top, holes = 0, first = classOf(SKIPPED_FROM);
    for (size_t cls = first; cls < CLASSES; cls++)
        for (char *block = h->free[cls]; block != NULL; block = *(char **)block) holes++;
    /* The holes go at the end of the ranges, after the image's own (kept until the copy cannot fail) and
       after the holes + 1 gaps that replace them. */
    size_t below = image->rangeCount > holes + 1 ? image->rangeCount : holes + 1;
    if (holes > SIZE_MAX / 2 - below || !roomForRanges(image, below + holes)) return 0;
    coordlua_ArenaRange *hole = image->ranges + image->rangeCapacity - holes;
    size_t skipped = 0, n = 0;
    for (size_t cls = first; cls < CLASSES; cls++) {
        size_t size = classSize(cls);
        for (char *block = h->free[cls]; block != NULL; block = *(char **)block) {
            /* The block's inside from the line after its link to the last line it fills. */
            size_t offset = (size_t)(block - arena->base);
            size_t start = (offset + sizeof(void *) + LINE - 1) & ~(size_t)(LINE - 1);
            size_t end = (offset + size) & ~(size_t)(LINE - 1);
            hole[n++] = (coordlua_ArenaRange){ start, end - start };
            skipped += end - start;
        }
    }
    size_t kept = top - skipped;
    if (image->capacity < kept) {
        char *bytes = malloc(kept);
        if (bytes == NULL) return 0;
        free(image->bytes);
        image->bytes = bytes;
        image->capacity = kept;
    }
    qsort(hole, holes, sizeof *hole, byOffset);
    /* The kept ranges: what lies between the holes. */
    size_t from = 0, count = 0;
    for (size_t i = 0; i <= holes; i++) {
        size_t holeStart = i < holes ? hole[i].offset : top;
        if (holeStart > from) image->ranges[count++] = (coordlua_ArenaRange){ from, holeStart - from };
        from = i < holes ? holeStart + hole[i].length : top;
    }
    char *into = image->bytes;
    for (size_t i = 0; i < count; i++) {
        memcpy(into, arena->base + image->ranges[i].offset, image->ranges[i].length);
        into += image->ranges[i].length;
    }
    image->rangeCount = count;
    image->kept = kept;
    image->size = top;
    image->used = used;
    return 1;
}

void coordlua_arena_restore(coordlua_Arena *arena, const coordlua_ArenaImage *image) {
    size_t now = header(arena)->top;
    const char *from = image->bytes;
    for (size_t i = 0; i < image->rangeCount; i++) {
        memcpy(arena->base + image->ranges[i].offset, from, image->ranges[i].length);
        from += image->ranges[i].length;
    }
    if (now > image->size) memset(arena->base + image->size, 0, now - image->size);
}

size_t coordlua_arena_changed(const coordlua_Arena *arena, const coordlua_ArenaImage *image, size_t *lines, size_t capacity) {
    size_t now = header(arena)->top, found = 0;
    static const char zeros[LINE];
    const char *kept = image->bytes;
    /* The kept ranges start on a line; only the last (ending at the image's top) may end inside one. */
    for (size_t i = 0; i < image->rangeCount; i++) {
        size_t start = image->ranges[i].offset, end = start + image->ranges[i].length;
        for (size_t offset = start; offset < end; offset += LINE) {
            size_t length = end - offset < LINE ? end - offset : LINE;
            int differs = memcmp(arena->base + offset, kept + (offset - start), length) != 0;
            /* The rest of a line the image's top cuts, as far as the heap grew into it since, is compared with zeros. */
            size_t grownInto = length < LINE && now > end ? (now - end < LINE - length ? now - end : LINE - length) : 0;
            if (!differs && grownInto > 0) differs = memcmp(arena->base + end, zeros, grownInto) != 0;
            if (!differs) continue;
            if (lines != NULL && found < capacity) lines[found] = offset;
            found++;
        }
        kept += image->ranges[i].length;
    }
    size_t grown = (image->size + LINE - 1) & ~(size_t)(LINE - 1);
    for (size_t offset = grown; offset < now; offset += LINE) {
        size_t length = now - offset < LINE ? now - offset : LINE;
        if (memcmp(arena->base + offset, zeros, length) == 0) continue;
        if (lines != NULL && found < capacity) lines[found] = offset;
        found++;
    }
    return found;
}

void coordlua_arena_image_free(coordlua_ArenaImage *image) {
    free(image->bytes);
    free(image->ranges);
    memset(image, 0, sizeof *image);
}
