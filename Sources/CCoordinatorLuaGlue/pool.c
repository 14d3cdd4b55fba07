/* CCoordinatorLuaGlue: the small-block pool of a Lua state (see coordlua_pool.h). */
#include "CCoordinatorLuaGlue.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COORDLUA_POOL_OFF 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define COORDLUA_POOL_OFF 1
#endif

#ifndef COORDLUA_POOL_OFF
static inline size_t pool_class(size_t size) { return (size + 15) / 16 - 1; } /* 1..256 -> 0..15 */

static inline size_t page_slot(uintptr_t page, size_t capacity) {
    return (size_t)((page / COORDLUA_POOL_PAGE) * 0x9E3779B97F4A7C15ull >> 20) & (capacity - 1);
}

static int pool_has_page(const coordlua_Pool *pool, uintptr_t page) {
    if (pool->pageCapacity == 0) return 0;
    for (size_t i = page_slot(page, pool->pageCapacity);; i = (i + 1) & (pool->pageCapacity - 1)) {
        if (pool->pages[i] == page) return 1;
        if (pool->pages[i] == 0) return 0;
    }
}

/* Adds a page to the set, growing it at half full: 0 when the system refuses. */
static int pool_add_page(coordlua_Pool *pool, uintptr_t page) {
    if ((pool->pageCount + 1) * 2 > pool->pageCapacity) {
        size_t capacity = pool->pageCapacity ? pool->pageCapacity * 2 : 32;
        uintptr_t *pages = calloc(capacity, sizeof(uintptr_t));
        if (pages == NULL) return 0;
        for (size_t i = 0; i < pool->pageCapacity; i++) {
            uintptr_t old = pool->pages[i];
            if (old == 0) continue;
            size_t j = page_slot(old, capacity);
            while (pages[j] != 0) j = (j + 1) & (capacity - 1);
            pages[j] = old;
        }
        free(pool->pages);
        pool->pages = pages;
        pool->pageCapacity = capacity;
    }
    size_t i = page_slot(page, pool->pageCapacity);
    while (pool->pages[i] != 0) i = (i + 1) & (pool->pageCapacity - 1);
    pool->pages[i] = page;
    pool->pageCount++;
    return 1;
}

/* A block of the class: from its free list, else carved from the newest page, else from a new page. */
static void *pool_take(coordlua_Pool *pool, size_t cls) {
    void *block = pool->free[cls];
    if (block != NULL) {
        pool->free[cls] = *(void **)block;
        return block;
    }
    size_t size = (cls + 1) * 16;
    if (pool->bumpLeft < size) {
        /* What is left of the old page serves the smaller classes. */
        while (pool->bumpLeft >= 16) {
            size_t c = pool_class(pool->bumpLeft < COORDLUA_POOL_LARGEST ? pool->bumpLeft & ~(size_t)15 : COORDLUA_POOL_LARGEST);
            size_t piece = (c + 1) * 16;
            *(void **)pool->bump = pool->free[c];
            pool->free[c] = pool->bump;
            pool->bump += piece;
            pool->bumpLeft -= piece;
        }
        void *page = aligned_alloc(COORDLUA_POOL_PAGE, COORDLUA_POOL_PAGE);
        if (page == NULL) return NULL;
        if (!pool_add_page(pool, (uintptr_t)page)) { free(page); return NULL; }
        pool->bump = page;
        pool->bumpLeft = COORDLUA_POOL_PAGE;
    }
    block = pool->bump;
    pool->bump += size;
    pool->bumpLeft -= size;
    return block;
}

static inline void pool_give(coordlua_Pool *pool, void *block, size_t size) {
    size_t cls = pool_class(size);
    *(void **)block = pool->free[cls];
    pool->free[cls] = block;
}

/* Whether a block of `size` bytes at `ptr` is the pool's. */
static inline int pool_owns(const coordlua_Pool *pool, void *ptr, size_t size) {
    return size <= COORDLUA_POOL_LARGEST && pool_has_page(pool, (uintptr_t)ptr & ~(uintptr_t)(COORDLUA_POOL_PAGE - 1));
}

#endif /* COORDLUA_POOL_OFF */

void *coordlua_pool_realloc(coordlua_Pool *pool, void *ptr, size_t osize, size_t nsize) {
#ifdef COORDLUA_POOL_OFF
    (void)pool; (void)osize;
    return realloc(ptr, nsize);
#else
    if (ptr == NULL) return nsize <= COORDLUA_POOL_LARGEST ? pool_take(pool, pool_class(nsize)) : malloc(nsize);
    int pooled = pool_owns(pool, ptr, osize);
    if (nsize <= osize) {
        if (pooled) {
            if (nsize == 0 || pool_class(nsize) == pool_class(osize)) return ptr;
            /* Into a block of its new class, the old one back to its own: a block freed later by its new
               size must be of that size's class, or the large classes would drain into the small ones (a
               parser's arrays grow then shrink to fit: every chunk compiled would cost fresh pages). */
            void *block = pool_take(pool, pool_class(nsize));
            if (block == NULL) return ptr; /* never fails when shrinking: it stays, a little larger */
            memcpy(block, ptr, nsize);
            pool_give(pool, ptr, osize);
            return block;
        }
        void *block = realloc(ptr, nsize);
        return block != NULL ? block : ptr; /* never fails when shrinking */
    }
    if (!pooled) return realloc(ptr, nsize);
    if (pool_class(nsize) == pool_class(osize)) return ptr;
    void *block = nsize <= COORDLUA_POOL_LARGEST ? pool_take(pool, pool_class(nsize)) : malloc(nsize);
    if (block == NULL) return NULL;
    memcpy(block, ptr, osize);
    pool_give(pool, ptr, osize);
    return block;
#endif
}

void coordlua_pool_free(coordlua_Pool *pool, void *ptr, size_t osize) {
    if (ptr == NULL) return;
#ifdef COORDLUA_POOL_OFF
    (void)pool; (void)osize;
    free(ptr);
#else
    if (pool_owns(pool, ptr, osize)) pool_give(pool, ptr, osize);
    else free(ptr);
#endif
}

void coordlua_pool_release(coordlua_Pool *pool) {
    for (size_t i = 0; i < pool->pageCapacity; i++) {
        if (pool->pages[i] != 0) free((void *)pool->pages[i]);
    }
    free(pool->pages);
    memset(pool, 0, sizeof *pool);
}
