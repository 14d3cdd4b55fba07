/* CCoordinatorLuaGlue: the functions coordlua_runtime.h declares (see there for what each does). */
#include "CCoordinatorLuaGlue.h"

/* realloc, refused beyond the test limit `systemLimit` (which counts the reserve as used). */
static void *coordlua_system_realloc(coordlua_Runtime *rt, void *ptr, size_t osize, size_t nsize) {
    if (rt->systemLimit != 0 && nsize > osize) {
        size_t held = rt->used + (rt->reserve != NULL ? COORDLUA_RESERVE : 0);
        if (held + (nsize - osize) > rt->systemLimit) return NULL;
    }
    return realloc(ptr, nsize);
}

int coordlua_restore_reserve(coordlua_Runtime *rt) {
    if (rt->reserve != NULL) return 1;
    if (rt->systemLimit != 0 && rt->used + COORDLUA_RESERVE > rt->systemLimit) return 0;
    rt->reserve = malloc(COORDLUA_RESERVE);
    return rt->reserve != NULL;
}

void coordlua_free_reserve(coordlua_Runtime *rt) {
    free(rt->reserve);
    rt->reserve = NULL;
}

void *coordlua_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    coordlua_Runtime *rt = (coordlua_Runtime *)ud;
    if (ptr == NULL) osize = 0; /* when ptr is NULL, osize encodes the object's type */
    if (nsize == 0) {
        free(ptr);
        rt->used -= osize;
        return NULL;
    }
    if (nsize > osize && rt->enforce && rt->limit != 0 && rt->used + (nsize - osize) > rt->limit)
        return NULL;
    void *block = coordlua_system_realloc(rt, ptr, osize, nsize);
    if (block == NULL && !rt->enforce && !rt->protectedPush) {
        /* Swift code is running: spend the reserve rather than raise over its frames */
        if (rt->reserve != NULL) {
            free(rt->reserve);
            rt->reserve = NULL;
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

lua_State *coordlua_newstate(coordlua_Runtime *rt) {
    lua_State *L = lua_newstate(coordlua_alloc, rt);
    if (L != NULL) {
        *(coordlua_Runtime **)lua_getextraspace(L) = rt;
        coordlua_restore_reserve(rt);
    }
    return L;
}
