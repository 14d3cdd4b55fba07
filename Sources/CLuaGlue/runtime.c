/* CLuaGlue: the functions clua_runtime.h declares (see there for what each does). */
#include "CLuaGlue.h"

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
    void *block = realloc(ptr, nsize);
    if (block == NULL) return NULL;
    rt->used = rt->used - osize + nsize;
    if (rt->used > rt->peak) rt->peak = rt->used;
    return block;
}

lua_State *clua_newstate(clua_Runtime *rt) {
    lua_State *L = lua_newstate(clua_alloc, rt);
    if (L != NULL) *(clua_Runtime **)lua_getextraspace(L) = rt;
    return L;
}
