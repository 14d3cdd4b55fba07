/* CCoordinatorLuaGlue: coroutine.resume and coroutine.wrap that follow the running coroutine (see
   coordlua_hooks.h).

   While a coroutine runs it is the runtime record's running thread and it has the hooks the running call
   needs, so that Ctrl-C, a time limit or a cancellation reaches code inside it and an instruction budget
   counts it. Both resume their coroutine with lua_resume inside that bracket (resume_moving), as cheap as
   the library's own: coroutine.resume puts its boolean in front of the results, a function
   coroutine.wrap made returns them as they are.

   Neither runs in a protected call (which would cost a third of a resume), so the record must be put back
   on every way out, and a resume has no way out but its return: the coroutine's own errors come back as a
   status; arguments are checked before the record changes; and what else could raise, an allocation,
   never happens, because the only strings a resume makes (its five messages below, all short and so
   interned by Lua) are kept alive in the registry ("coordlua.resumeMessages"), where making one again finds
   the existing string. */
#include "CCoordinatorLuaGlue.h"

/* The messages the library's resume may make: kept alive, so that making them allocates nothing. */
static const char *const resumeMessages[] = {
    "cannot resume non-suspended coroutine", "cannot resume dead coroutine", "C stack overflow",
    "too many arguments to resume", "too many results to resume",
};

/* Resumes `co` with the `nargs` values on top of L's stack, `co` the running thread meanwhile: the number
   of values it yielded or returned, moved to L's stack, or -1 with the error on top of L's stack (`co`'s
   own error, or one of the messages kept alive). */
static int resume_moving(lua_State *L, lua_State *co, int nargs) {
    if (!lua_checkstack(co, nargs)) {
        lua_pushstring(L, resumeMessages[3]);
        return -1;
    }
    coordlua_Runtime *rt = coordlua_runtime(L);
    lua_State *outer = rt->current;
    lua_xmove(L, co, nargs);
    rt->current = co;
    /* Nothing asked for and no hook of the runtime's on it: nothing to install (the common case, checked
       here rather than in a call). */
    if (rt->interruptRequested || rt->stopArmed || rt->budgeted || lua_gethook(co) == coordlua_hook) coordlua_install_hook(co, rt);
    int yielded = 0;
    int status = lua_resume(co, L, nargs, &yielded);
    rt->current = outer;
    /* A stop asked for while the coroutine ran holds here too. */
    if (rt->interruptRequested || rt->budgeted || rt->deadline || rt->cancel) coordlua_install_hook(L, rt);
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_xmove(co, L, 1);
        return -1;
    }
    if (!lua_checkstack(L, yielded + 1)) {
        lua_settop(co, -yielded - 1);
        lua_pushstring(L, resumeMessages[4]);
        return -1;
    }
    lua_xmove(co, L, yielded);
    return yielded;
}

/* coroutine.resume: true and what the coroutine yielded or returned, or false and its error. */
static int resume(lua_State *L) {
    lua_State *co = lua_tothread(L, 1);
    if (co == NULL) return coordlua_runtime(L)->coroutineResume(L);  /* its own argument error, from this frame */
    int results = resume_moving(L, co, lua_gettop(L) - 1);
    lua_pushboolean(L, results >= 0);
    if (results < 0) results = 1;  /* the error */
    lua_rotate(L, -(results + 1), 1);
    return results + 1;
}

/* A function coroutine.wrap made: upvalue 1 is its coroutine. An error ends the call as coroutine.wrap's
   do: a coroutine that died of it is closed first (its to-be-closed variables run, their error replacing
   it), and a string gets the caller's position. */
static int wrapped(lua_State *L) {
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int results = resume_moving(L, co, lua_gettop(L));
    if (results >= 0) return results;
    int status = lua_status(co);
    if (status != LUA_OK && status != LUA_YIELD) {
        status = lua_resetthread(co);
        lua_xmove(co, L, 1);
    }
    if (status == LUA_ERRMEM || lua_type(L, -1) != LUA_TSTRING) return lua_error(L);
    return coordlua_where_error(L);
}

/* coroutine.wrap: upvalue 1 is the library's create. */
static int wrap(lua_State *L) {
    lua_tocfunction(L, lua_upvalueindex(1))(L);  /* the new coroutine on top (or create's own argument error) */
    lua_pushcclosure(L, wrapped, 1);
    return 1;
}

void coordlua_follow_coroutines(lua_State *L) {
    if (lua_getglobal(L, "coroutine") != LUA_TTABLE) {
        lua_settop(L, -2);
        return;
    }
    lua_getfield(L, -1, "resume");
    lua_getfield(L, -2, "create");
    lua_CFunction libraryResume = lua_tocfunction(L, -2);
    lua_CFunction libraryCreate = lua_tocfunction(L, -1);
    lua_settop(L, -3);
    if (libraryResume == NULL || libraryCreate == NULL) {
        lua_settop(L, -2);
        return;
    }
    coordlua_runtime(L)->coroutineResume = libraryResume;
    int count = (int)(sizeof resumeMessages / sizeof resumeMessages[0]);
    lua_createtable(L, count, 0);
    for (int i = 0; i < count; i++) {
        lua_pushstring(L, resumeMessages[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, LUA_REGISTRYINDEX, "coordlua.resumeMessages");
    lua_pushcfunction(L, resume);
    lua_setfield(L, -2, "resume");
    lua_pushcfunction(L, libraryCreate);
    lua_pushcclosure(L, wrap, 1);
    lua_setfield(L, -2, "wrap");
    lua_settop(L, -2);
}
