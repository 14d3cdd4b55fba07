/* CLuaGlue: the functions clua_runtime.h declares (see there for what each does). */
#include "CLuaGlue.h"

/* realloc, refused beyond the test limit `systemLimit` (which counts the reserve as used). */
static void *clua_system_realloc(clua_Runtime *rt, void *ptr, size_t osize, size_t nsize) {
    if (rt->systemLimit != 0 && nsize > osize) {
        size_t held = rt->used + (rt->reserve != NULL ? CLUA_RESERVE : 0);
        if (held + (nsize - osize) > rt->systemLimit) return NULL;
    }
    return realloc(ptr, nsize);
}

int clua_restore_reserve(clua_Runtime *rt) {
    if (rt->reserve != NULL) return 1;
    if (rt->systemLimit != 0 && rt->used + CLUA_RESERVE > rt->systemLimit) return 0;
    rt->reserve = malloc(CLUA_RESERVE);
    return rt->reserve != NULL;
}

void clua_free_reserve(clua_Runtime *rt) {
    free(rt->reserve);
    rt->reserve = NULL;
}

void *clua_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    clua_Runtime *rt = (clua_Runtime *)ud;
    if (ptr == NULL) osize = 0; /* when ptr is NULL, osize encodes the object's type */
    if (nsize == 0) {
        free(ptr);
        rt->used -= osize;
        return NULL;
    }
    if (nsize > osize && rt->enforce && rt->limit != 0 && rt->used + (nsize - osize) > rt->limit)
        return NULL;
    void *block = clua_system_realloc(rt, ptr, osize, nsize);
    if (block == NULL && !rt->enforce && !rt->protectedPush) {
        /* Swift code is running: spend the reserve rather than raise over its frames */
        if (rt->reserve != NULL) {
            free(rt->reserve);
            rt->reserve = NULL;
            rt->memoryShort = 1;
            block = clua_system_realloc(rt, ptr, osize, nsize);
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

lua_State *clua_newstate(clua_Runtime *rt) {
    lua_State *L = lua_newstate(clua_alloc, rt);
    if (L != NULL) {
        *(clua_Runtime **)lua_getextraspace(L) = rt;
        clua_restore_reserve(rt);
    }
    return L;
}
