/* CCoordinatorLua: a Lua heap in one region the runtime owns, which a checkpoint copies out and a restore
   copies back. Part of CCoordinatorLuaGlue.h (after coordlua_pool.h, before coordlua_runtime.h's record):
   not to be included alone. */
#ifndef COORDLUA_ARENA_H
#define COORDLUA_ARENA_H

/* A state opened with an arena (coordlua_arena_open before coordlua_newstate) allocates every block Lua
   asks for, large ones included, from one region of address space reserved for it: blocks are carved from
   the front to the back, and freed ones kept on a list per size class. The allocator's own bookkeeping
   (where the carved part ends, the lists' heads) lives at the region's start, inside it; so the state's
   whole heap, with everything that says which of it is free, is the bytes from the region's start to its
   `top`. Copied out (coordlua_arena_checkpoint), those bytes are an image of the state; copied back
   (coordlua_arena_restore), with the tail the state grew into since zeroed, the heap is byte for byte
   the image's, at the same addresses: every pointer inside it is right again. Byte for byte but for what
   no one reads: the insides of the large free blocks, which Lua writes before it reads, are left out of
   the image, so that a heap whose loading left much of it free costs only what is in use. Nothing outside the region
   is part of it (the runtime record, Swift's objects, the process's chunk store): what the runtime keeps
   outside must be put back by the runtime (the memory limit's accounting is saved with the image here).

   The region is reserved without memory (PROT_NONE) and made usable a megabyte at a time as the heap grows,
   so a large reservation costs address space only. Blocks are 16-byte aligned. Sizes are rounded to their
   class: 16-byte steps up to 256 bytes, then four classes to each power of two; a block Lua shrinks moves
   into a block of its new class when one is free or can be carved, else stays (shrinking never fails). */

typedef struct coordlua_Arena {
    char *base;        /* the region's start (NULL: no arena) */
    size_t reserved;   /* bytes of address space reserved */
    size_t usable;     /* bytes from base readable and writable */
} coordlua_Arena;

/* A stretch of the heap an image keeps: `length` bytes from `offset` bytes past the region's start. */
typedef struct coordlua_ArenaRange {
    size_t offset;
    size_t length;
} coordlua_ArenaRange;

/* An image of an arena's heap: its bytes up to `top` but for the insides of its large free blocks (each
   free block of a kilobyte or more keeps only its first 64-byte line, which links the free list), and the
   runtime's accounting of them. */
typedef struct coordlua_ArenaImage {
    char *bytes;                  /* malloc'd, `capacity` bytes: the kept ranges' bytes, one after another */
    size_t capacity;
    size_t kept;                  /* the bytes kept */
    coordlua_ArenaRange *ranges;  /* malloc'd, `rangeCapacity`: the ranges kept, in order, each starting on a line */
    size_t rangeCount;
    size_t rangeCapacity;
    size_t size;                  /* the heap's top when taken */
    size_t used;                  /* the runtime record's `used` when taken */
} coordlua_ArenaImage;

/* What a restore must settle outside the heap: the Swift objects Lua's boxes hold. A box retains its object
   when made (coordlua_pushbox) and releases it when collected (its `__gc`). While an image is kept, a box
   made since may vanish with a restore, and one collected since may come back: so each box made is noted
   in `made`, and a collected box's release is deferred into `collected` instead of done. A restore to an
   image whose marks were (m, c) releases the boxes made after m (their userdata is gone) and forgets the
   collections after c (their userdata is back, its object still retained); once no image is kept, the
   deferred releases are done. `lost` says a note could not be kept (no memory): no restore is exact then.

   The io library's streams are kept the same way (coordlua_io_opening): a stream opened while an image is
   kept is noted as made, and its close (explicit or by the collector) deferred, the handle marked closed; an
   entry for a stream is its FILE pointer with the low bits 1 (a file) or 2 (a pipe), never a box's. So a
   restore closes the streams opened since (their handle is gone) and reopens none: those closed since were
   never closed. */
typedef struct coordlua_BoxLog {
    void **boxes;      /* malloc'd */
    size_t count;
    size_t capacity;
} coordlua_BoxLog;

typedef struct coordlua_Ledger {
    int on;            /* an image is kept */
    int lost;          /* a note was lost since it went on */
    coordlua_BoxLog made;
    coordlua_BoxLog collected;
} coordlua_Ledger;

/* Reserves `bytes` of address space (rounded up to the page size) for the heap: 1, or 0 when the system
   refuses. */
int coordlua_arena_open(coordlua_Arena *arena, size_t bytes);

/* Gives the region back (after lua_close, or a coordlua_newstate that failed). */
void coordlua_arena_close(coordlua_Arena *arena);

/* realloc for Lua's blocks from the arena (nsize > 0; osize 0 when ptr is NULL): NULL when the region is
   full. */
void *coordlua_arena_realloc(coordlua_Arena *arena, void *ptr, size_t osize, size_t nsize);

/* Frees a block of osize bytes. */
void coordlua_arena_free(coordlua_Arena *arena, void *ptr, size_t osize);

/* The bytes the heap spans now (its top). */
size_t coordlua_arena_size(const coordlua_Arena *arena);

/* Copies the heap into `image` (grown as needed), with `used`: 1, or 0 when no memory was left for the
   copy (the image is then as before). */
int coordlua_arena_checkpoint(const coordlua_Arena *arena, coordlua_ArenaImage *image, size_t used);

/* Puts the heap back as `image` holds it: its bytes copied back, what the heap grew into since zeroed.
   The state must be one whose heap the image was taken of, and no C frame of it may be running. */
void coordlua_arena_restore(coordlua_Arena *arena, const coordlua_ArenaImage *image);

/* How many of the heap's 64-byte lines differ from `image`'s where it keeps them (bytes the heap grew into
   since count as differing where they are not zero): 0 exactly when a restore would change nothing. When `lines` is not
   NULL, the offsets of the first `capacity` of them are written there, in order. */
size_t coordlua_arena_changed(const coordlua_Arena *arena, const coordlua_ArenaImage *image, size_t *lines, size_t capacity);

/* Frees an image's bytes; the image is empty and usable again. */
void coordlua_arena_image_free(coordlua_ArenaImage *image);

#endif /* COORDLUA_ARENA_H */
