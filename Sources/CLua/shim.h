/*
 * CLua: the C side of the Lua bridge.
 *
 * Swift cannot import Lua's function-like macros or call variadic C functions, and it must never be
 * unwound by longjmp (lua_error jumps). Everything here is `static inline`, so the system library target
 * needs no C sources. The rules this file implements:
 *
 *  - Swift callbacks are reached through clua_trampoline / clua_method_trampoline. The Swift dispatcher
 *    returns a result count, or -1 with the error object on top of the stack; the C trampoline raises
 *    that error *after* the Swift frame has returned. No jump ever crosses Swift code.
 *  - Lua API calls that can raise (metamethods on get/set/len/concat/tostring) have protected variants
 *    below (clua_p*), which run them under lua_pcall.
 *  - The allocator counts bytes and enforces a limit only while Lua code runs (`enforce`), so a push done
 *    by Swift code never raises a memory error in the middle of a Swift frame; Lua code that exceeds the
 *    limit gets an ordinary "not enough memory" error.
 *  - Hooks (instruction budget, interrupt) are installed only while needed: an idle hook in Lua 5.4 makes
 *    every instruction trap, which roughly doubles interpreter cost.
 */
#ifndef CLUA_SHIM_H
#define CLUA_SHIM_H

#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
#include <signal.h>
#include <pthread.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

/* ---- per-state runtime record, owned by Swift, reachable from every thread of the state ---- */

/* Swift dispatchers. `box` is an unretained pointer to a Swift object. Return >= 0 results, or -1 with
   the error object on top of the stack. */
typedef int (*clua_Dispatch)(lua_State *L, void *box);
typedef int (*clua_MethodDispatch)(lua_State *L, void *box, void *object);
typedef void (*clua_Release)(void *box);
typedef void (*clua_Warn)(void *owner, const char *msg, int tocont);

typedef struct clua_Runtime {
    clua_Dispatch dispatch;
    clua_MethodDispatch methodDispatch;
    clua_Release release;
    clua_Warn warn;
    void *owner;                 /* unretained pointer to the Swift core; valid while the state is open */
    lua_State *current;          /* the thread that is running now (main thread, or a callback's thread) */
    size_t used;                 /* bytes currently allocated by this state */
    size_t peak;                 /* high-water mark of `used` */
    size_t limit;                /* 0: no limit */
    int enforce;                 /* the limit applies only while Lua code runs */
    int tracebacks;              /* the message handler records a traceback */
    long long budget;            /* instructions left while `budgeted` */
    long long budgetTotal;       /* the budget a top-level call started with (for the message) */
    int budgeted;
    int hookCount;               /* instructions between two count hooks */
    volatile sig_atomic_t interruptRequested;
    char tracebackKey;           /* address used as a registry key */
} clua_Runtime;

static inline clua_Runtime *clua_runtime(lua_State *L) {
    return *(clua_Runtime **)lua_getextraspace(L);
}

/* ---- allocator ---- */

static inline void *clua_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
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

static inline lua_State *clua_newstate(clua_Runtime *rt) {
    lua_State *L = lua_newstate(clua_alloc, rt);
    if (L != NULL) *(clua_Runtime **)lua_getextraspace(L) = rt;
    return L;
}

/* ---- trampolines ---- */

/* upvalue 1: a box userdata whose block holds the Swift closure's pointer (NULL once released). */
static inline int clua_trampoline(lua_State *L) {
    clua_Runtime *rt = clua_runtime(L);
    void **slot = (void **)lua_touserdata(L, lua_upvalueindex(1));
    void *box = slot != NULL ? *slot : NULL;
    if (box == NULL) return luaL_error(L, "Swift function was released");
    lua_State *savedCurrent = rt->current;
    int savedEnforce = rt->enforce;
    rt->current = L;
    rt->enforce = 0;
    int n = rt->dispatch(L, box);
    rt->current = savedCurrent;
    rt->enforce = savedEnforce;
    if (n < 0) return lua_error(L);
    return n;
}

/* Every box userdata (Swift closures, Swift methods, Swift objects) is a block of two words:
   [0] the retained Swift object (NULL once released), [1] a class tag (NULL for closures). An object's tag
   names its registered class; a method's box carries the tag its `self` must have. */
typedef struct clua_Box { void *object; const void *tag; } clua_Box;

/* Runs the Swift method in box `method` on `self` (both checked) with the arguments on the stack; raises
   its error after the Swift frame has returned. */
static inline int clua_dispatch_method(lua_State *L, clua_Box *method, clua_Box *self) {
    clua_Runtime *rt = clua_runtime(L);
    lua_State *savedCurrent = rt->current;
    int savedEnforce = rt->enforce;
    rt->current = L;
    rt->enforce = 0;
    int n = rt->methodDispatch(L, method->object, self->object);
    rt->current = savedCurrent;
    rt->enforce = savedEnforce;
    if (n < 0) return lua_error(L);
    return n;
}

/* The userdata at 1 as `self` for the method in box `method`, or NULL when it is no object of the method's
   class (or was released: `released` says so). */
static inline clua_Box *clua_method_self(lua_State *L, clua_Box *method, clua_Box *self, int *released) {
    *released = 0;
    /* (a light userdata has no length) */
    if (self == NULL || lua_rawlen(L, 1) != sizeof(clua_Box) || self->tag != method->tag) return NULL;
    if (self->object == NULL) { *released = 1; return NULL; }
    return self;
}

/* upvalue 1: box of the method; upvalue 2: "Class.method"; upvalue 3: "Class", both for messages;
   upvalue 4: the stand-in field name, or nil. Checks `self` (size and class tag) before any Swift code runs.
   A table may stand for the object when the class names a stand-in field: its raw value there is `self`. */
static inline int clua_method_trampoline(lua_State *L) {
    clua_Box *method = (clua_Box *)lua_touserdata(L, lua_upvalueindex(1));
    clua_Box *self = (clua_Box *)lua_touserdata(L, 1);
    int standIn = 0;
    if (self == NULL && lua_type(L, 1) == LUA_TTABLE && lua_type(L, lua_upvalueindex(4)) == LUA_TSTRING) {
        lua_pushvalue(L, lua_upvalueindex(4));
        lua_rawget(L, 1);
        lua_replace(L, 1);
        self = (clua_Box *)lua_touserdata(L, 1);
        standIn = 1;
    }
    if (method == NULL || method->object == NULL) return luaL_error(L, "Swift method was released");
    int released;
    self = clua_method_self(L, method, self, &released);
    if (released) return luaL_error(L, "'%s' called on a released object", lua_tostring(L, lua_upvalueindex(2)));
    if (self == NULL)
        return luaL_error(L, "bad self for '%s' (expected %s, got %s); call it with ':'",
                          lua_tostring(L, lua_upvalueindex(2)), lua_tostring(L, lua_upvalueindex(3)),
                          standIn ? "table" : luaL_typename(L, 1));
    return clua_dispatch_method(L, method, self);
}

/* A class's __index or __newindex fallback (the box of a Swift method, upvalue `box`), run directly by the
   metamethod on (self, key[, value]): no Lua call in between. */
static inline int clua_dispatch_fallback(lua_State *L, int box, const char *metamethod) {
    clua_Box *method = (clua_Box *)lua_touserdata(L, lua_upvalueindex(box));
    if (method == NULL || method->object == NULL) return luaL_error(L, "Swift method was released");
    int released;
    clua_Box *self = clua_method_self(L, method, (clua_Box *)lua_touserdata(L, 1), &released);
    if (self == NULL)
        return luaL_error(L, "%s of %s used on %s", metamethod, lua_tostring(L, lua_upvalueindex(3)),
                          released ? "a released object" : luaL_typename(L, 1));
    return clua_dispatch_method(L, method, self);
}

/* The Swift object of a box userdata at idx whose tag is `tag`, or NULL. */
static inline void *clua_boxed_object(lua_State *L, int idx, const void *tag) {
    clua_Box *box = (clua_Box *)lua_touserdata(L, idx);
    if (box == NULL || lua_type(L, idx) != LUA_TUSERDATA || lua_rawlen(L, idx) != sizeof(clua_Box)) return NULL;
    return box->tag == tag ? box->object : NULL;
}

/* The tag of a box userdata at idx, or NULL. */
static inline const void *clua_box_tag(lua_State *L, int idx) {
    clua_Box *box = (clua_Box *)lua_touserdata(L, idx);
    if (box == NULL || lua_type(L, idx) != LUA_TUSERDATA || lua_rawlen(L, idx) != sizeof(clua_Box)) return NULL;
    return box->tag;
}

/* Pushes a new box userdata holding `object` (already retained) with `tag`. */
static inline void clua_pushbox(lua_State *L, void *object, const void *tag) {
    clua_Box *box = (clua_Box *)lua_newuserdatauv(L, sizeof(clua_Box), 0);
    box->object = object;
    box->tag = tag;
}

/* __gc of every box userdata (Swift closures and Swift objects): releases the Swift reference once. */
static inline int clua_box_gc(lua_State *L) {
    void **block = (void **)lua_touserdata(L, 1);
    if (block != NULL && *block != NULL) {
        void *box = *block;
        *block = NULL;
        clua_runtime(L)->release(box);
    }
    return 0;
}

/* __index for Swift classes: upvalue 1 methods, 2 getters (called with self), 3 class name, 4 the
   fallback's method box or nil. */
static inline int clua_index(lua_State *L) {
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(2)) == LUA_TFUNCTION) {
        lua_pushvalue(L, 1);
        lua_call(L, 1, 1);
        return 1;
    }
    lua_pop(L, 1);
    if (lua_type(L, lua_upvalueindex(4)) == LUA_TUSERDATA) {
        lua_settop(L, 2);
        return clua_dispatch_fallback(L, 4, "__index") > 0 ? 1 : 0;
    }
    return 0;
}

/* __newindex for Swift classes: upvalue 1 setters (self, value), 2 the fallback's method box or nil, 3
   class name. */
static inline int clua_newindex(lua_State *L) {
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) == LUA_TFUNCTION) {
        lua_pushvalue(L, 1);
        lua_pushvalue(L, 3);
        lua_call(L, 2, 0);
        return 0;
    }
    lua_pop(L, 1);
    if (lua_type(L, lua_upvalueindex(2)) == LUA_TUSERDATA) {
        lua_settop(L, 3);
        clua_dispatch_fallback(L, 2, "__newindex");
        return 0;
    }
    if (lua_type(L, 2) == LUA_TSTRING)
        return luaL_error(L, "%s has no writable field '%s'", lua_tostring(L, lua_upvalueindex(3)), lua_tostring(L, 2));
    return luaL_error(L, "%s has no writable field of type %s", lua_tostring(L, lua_upvalueindex(3)), luaL_typename(L, 2));
}

/* ---- errors ---- */

/* Message handler for calls made from Swift: records a traceback beside the error object (which it
   returns unchanged, so tables and other error values survive). */
static inline int clua_msgh(lua_State *L) {
    clua_Runtime *rt = clua_runtime(L);
    if (rt->tracebacks) {
        luaL_traceback(L, L, NULL, 1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &rt->tracebackKey);
    }
    lua_settop(L, 1);
    return 1;
}

/* Pushes and clears the traceback the handler recorded (nil if none). */
static inline void clua_take_traceback(lua_State *L) {
    clua_Runtime *rt = clua_runtime(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &rt->tracebackKey);
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &rt->tracebackKey);
}

/* Raises the error object on top of the stack. Only ever called from C frames. */
static inline int clua_where_error(lua_State *L) {
    luaL_where(L, 1);
    lua_insert(L, -2);
    lua_concat(L, 2);
    return lua_error(L);
}

/* Pushes "chunk:line: " of the Lua code that called the running C function (from `level` up), or "" when
   that caller is a C function, as luaL_where does. Frames of library chunks (chunk names "=[...]", shown
   as "[name]") are skipped, so an error points at the user's line, not at the library's wrapper. */
static inline void clua_where(lua_State *L, int level) {
    lua_Debug ar;
    while (lua_getstack(L, level, &ar)) {
        lua_getinfo(L, "Sl", &ar);
        if (ar.currentline <= 0) break;
        if (strncmp(ar.source, "=[", 2) != 0) {
            lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
            return;
        }
        level++;
    }
    lua_pushliteral(L, "");
}

/* ---- hooks: instruction budget and interrupt ---- */

static inline void clua_hook(lua_State *L, lua_Debug *ar);

/* Installs the hook the runtime record asks for on thread L, or removes it. */
static inline void clua_install_hook(lua_State *L, clua_Runtime *rt) {
    if (rt->interruptRequested)
        lua_sethook(L, clua_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
    else if (rt->budgeted)
        lua_sethook(L, clua_hook, LUA_MASKCOUNT, rt->hookCount);
    else
        lua_sethook(L, NULL, 0, 0);
}

/* Raises "chunk:line: message" located at the innermost Lua function (level 0 inside a hook). */
static inline void clua_hook_error(lua_State *L, const char *message) {
    lua_Debug where;
    for (int level = 0; lua_getstack(L, level, &where); level++) {
        lua_getinfo(L, "Sl", &where);
        if (where.currentline > 0) {
            lua_pushfstring(L, "%s:%d: %s", where.short_src, where.currentline, message);
            lua_error(L);
            return;
        }
    }
    lua_pushstring(L, message);
    lua_error(L);
}

/* Both conditions are sticky until the Swift side ends the top-level call: Lua code that catches the error
   with pcall and loops again is stopped again at its next instruction. Count hooks never fire inside C
   functions, so message handlers run undisturbed. */
static inline void clua_hook(lua_State *L, lua_Debug *ar) {
    clua_Runtime *rt = clua_runtime(L);
    if (rt->interruptRequested) {
        lua_sethook(L, clua_hook, LUA_MASKCOUNT, 1);
        clua_hook_error(L, "interrupted");
        return;
    }
    if (rt->budgeted) {
        if (ar->event == LUA_HOOKCOUNT) rt->budget -= rt->hookCount;
        if (rt->budget <= 0) {
            lua_sethook(L, clua_hook, LUA_MASKCOUNT, 1);
            lua_pushfstring(L, "instruction budget of %I instructions exhausted", (lua_Integer)rt->budgetTotal);
            clua_hook_error(L, lua_tostring(L, -1));
        }
        return;
    }
    lua_sethook(L, NULL, 0, 0); /* nothing asked for any more: a stale hook on this thread removes itself */
}

/* Asks the running Lua code to stop with an "interrupted" error at its next instruction. Safe to call from
   a signal handler on the thread that runs Lua (the same technique as lua.c's Ctrl-C handling). */
static inline void clua_interrupt(lua_State *L) {
    clua_Runtime *rt = clua_runtime(L);
    rt->interruptRequested = 1;
    lua_sethook(L, clua_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

/* ---- Ctrl-C for command-line hosts (as lua.c does it) ----
   One process-wide SIGINT handler. While a state is armed, the signal interrupts the Lua code running on
   that state's current thread; at any time it is counted, so a prompt can see that Ctrl-C was pressed.
   Only these functions touch the two statics, and only LuaKit calls them, so there is one copy of each.
   The handler does nothing but async-signal-safe work: two volatile stores and lua_sethook. */
/* Function-local statics: Swift's importer emits static inline functions but not file-scope statics. */
static inline lua_State *volatile *clua_sigint_state(void) {
    static lua_State *volatile state;
    return &state;
}
static inline volatile sig_atomic_t *clua_sigint_counter(void) {
    static volatile sig_atomic_t count;
    return &count;
}

static inline void clua_sigint_handler(int sig) {
    (void)sig;
    *clua_sigint_counter() = *clua_sigint_counter() + 1;
    lua_State *L = *clua_sigint_state();
    if (L != NULL) {
        lua_State *running = clua_runtime(L)->current;
        clua_interrupt(running != NULL ? running : L);
    }
}

/* Installs the handler without SA_RESTART, so a blocking read at a prompt returns EINTR. */
static inline int clua_sigint_install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = clua_sigint_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    if (sigaction(SIGINT, &action, NULL) != 0) return -1;
    /* A process started with SIGINT blocked (some harnesses do that) would never see Ctrl-C. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    return pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static inline void clua_sigint_uninstall(void) { signal(SIGINT, SIG_DFL); }
static inline void clua_sigint_arm(lua_State *L) { *clua_sigint_state() = L; }
static inline void clua_sigint_disarm(void) { *clua_sigint_state() = NULL; }

/* How many times Ctrl-C was pressed since the last call. */
static inline int clua_sigint_take(void) {
    int count = *clua_sigint_counter();
    *clua_sigint_counter() = 0;
    return count;
}

/* ---- function introspection (for hot reload) ---- */

/* Pushes nothing; fills source/lines of the function at `index`. Returns 1 for a Lua function. */
static inline int clua_funcinfo(lua_State *L, int index, const char **source, int *linedefined, int *lastlinedefined, int *nups) {
    lua_Debug ar;
    lua_pushvalue(L, index);
    lua_getinfo(L, ">Su", &ar);
    *source = ar.source;
    *linedefined = ar.linedefined;
    *lastlinedefined = ar.lastlinedefined;
    *nups = ar.nups;
    return ar.what[0] == 'L' || ar.what[0] == 'm';
}

/* Bytes the C allocator has handed out and not taken back (Lua's and Swift's allocations alike), for
   memory measurements; -1 where the C library cannot tell. */
static inline long long clua_malloc_in_use(void) {
#if defined(__GLIBC__)
    struct mallinfo2 info = mallinfo2();
    return (long long)info.uordblks;
#else
    return -1;
#endif
}

/* ---- warnings ---- */

static inline void clua_warnf(void *ud, const char *msg, int tocont) {
    clua_Runtime *rt = (clua_Runtime *)ud;
    if (rt->warn != NULL && rt->owner != NULL) rt->warn(rt->owner, msg, tocont);
}

static inline void clua_setwarnf(lua_State *L, clua_Runtime *rt) { lua_setwarnf(L, clua_warnf, rt); }

/* ---- protected calls ---- */

/* lua_pcall with the message handler, with the memory limit enforced while the Lua code runs. The function
   and its arguments are on top of the stack. */
static inline int clua_pcall(lua_State *L, int nargs, int nresults) {
    clua_Runtime *rt = clua_runtime(L);
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, clua_msgh);
    lua_insert(L, base);
    int savedEnforce = rt->enforce;
    rt->enforce = 1;
    int status = lua_pcall(L, nargs, nresults, base);
    rt->enforce = savedEnforce;
    lua_remove(L, base);
    return status;
}

/* Pushes the message handler: push it first, then the function and its arguments, and call
   clua_pcall_with_handler, which saves clua_pcall's two stack rotations. Only needed for tracebacks. */
static inline void clua_pushmsgh(lua_State *L) { lua_pushcfunction(L, clua_msgh); }

/* lua_pcall with the memory limit enforced; when `handler` is 1 the message handler is already below the
   function (at base - 1) and stays on the stack (the caller restores its top), when 0 there is none (no
   traceback is wanted, and the error object comes back as it is). */
static inline int clua_pcall_with_handler(lua_State *L, int nargs, int nresults, int withHandler) {
    clua_Runtime *rt = clua_runtime(L);
    int handler = withHandler ? lua_gettop(L) - nargs - 1 : 0;
    int savedEnforce = rt->enforce;
    rt->enforce = 1;
    int status = lua_pcall(L, nargs, nresults, handler);
    rt->enforce = savedEnforce;
    return status;
}

static inline int clua_load(lua_State *L, const char *buf, size_t size, const char *name, const char *mode) {
    clua_Runtime *rt = clua_runtime(L);
    int savedEnforce = rt->enforce;
    rt->enforce = 1;
    int status = luaL_loadbufferx(L, buf, size, name, mode);
    rt->enforce = savedEnforce;
    return status;
}

static inline int clua_k_gettable(lua_State *L) { lua_gettable(L, 1); return 1; }
static inline int clua_k_settable(lua_State *L) { lua_settable(L, 1); return 0; }
static inline int clua_k_tostring(lua_State *L) { luaL_tolstring(L, 1, NULL); return 1; }
static inline int clua_k_len(lua_State *L) { lua_len(L, 1); return 1; }
static inline int clua_k_equal(lua_State *L) { lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPEQ)); return 1; }

/* Runs k with the values at the given absolute indices (n of them) copied as its arguments. */
static inline int clua_protect(lua_State *L, lua_CFunction k, int n, int a, int b, int c, int nresults) {
    lua_pushcfunction(L, k);
    int args[3] = {a, b, c};
    for (int i = 0; i < n; i++) lua_pushvalue(L, args[i]);
    return clua_pcall(L, n, nresults);
}

/* t[k] when every step of the lookup is a plain table: t raw, then each `__index` that is a table, raw
   (what Lua does, minus calling functions). Replaces the key on top with the value and returns LUA_OK;
   returns -1 with the stack unchanged when t is not a table or a step's `__index` is not a table, for
   the caller to go the protected way (clua_pgettable). Needs room for four values. */
static inline int clua_gettable_tables(lua_State *L, int t) {
    t = lua_absindex(L, t);
    int k = lua_gettop(L);
    if (lua_type(L, t) != LUA_TTABLE) return -1;
    lua_pushvalue(L, t);                                          /* k, t */
    for (int loop = 0; loop < 100; loop++) {
        lua_pushvalue(L, k);
        if (lua_rawget(L, -2) != LUA_TNIL || !lua_getmetatable(L, -2)) {   /* k, t, v  (or k, t, nil) */
            lua_replace(L, k);
            lua_settop(L, k);
            return LUA_OK;
        }
        lua_pushliteral(L, "__index");                            /* k, t, nil, mt, "__index" */
        int index = lua_rawget(L, -2);                            /* k, t, nil, mt, h */
        if (index == LUA_TNIL) { lua_pushnil(L); lua_replace(L, k); lua_settop(L, k); return LUA_OK; }
        if (index != LUA_TTABLE) { lua_settop(L, k); return -1; }
        lua_replace(L, k + 1);                                    /* k, h, nil, mt */
        lua_settop(L, k + 1);
    }
    lua_settop(L, k);
    return -1;
}

/* t[k] with metamethods; key on top of the stack is replaced by the value (or the error). */
static inline int clua_pgettable(lua_State *L, int t) {
    t = lua_absindex(L, t);
    int k = lua_gettop(L);
    int status = clua_protect(L, clua_k_gettable, 2, t, k, 0, 1);
    lua_remove(L, k);
    return status;
}

/* t[k] = v with metamethods; key and value on top of the stack are popped (the error pushed on failure). */
static inline int clua_psettable(lua_State *L, int t) {
    t = lua_absindex(L, t);
    int v = lua_gettop(L);
    int status = clua_protect(L, clua_k_settable, 3, t, v - 1, v, 0);
    if (status == LUA_OK) { lua_pop(L, 2); }
    else { lua_rotate(L, v - 1, 1); lua_pop(L, 2); }
    return status;
}

/* Pushes luaL_tolstring(idx) (honours __tostring and __name), or the error. */
static inline int clua_ptostring(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    return clua_protect(L, clua_k_tostring, 1, idx, 0, 0, 1);
}

/* Pushes #v (honours __len), or the error. */
static inline int clua_plen(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    return clua_protect(L, clua_k_len, 1, idx, 0, 0, 1);
}

/* Pushes a == b (honours __eq) as a boolean, or the error. */
static inline int clua_pequal(lua_State *L, int a, int b) {
    a = lua_absindex(L, a);
    b = lua_absindex(L, b);
    return clua_protect(L, clua_k_equal, 2, a, b, 0, 1);
}

/* t[name] = value (popped) for the table at idx, name given as len bytes that are also NUL-terminated: through
   lua_setfield (Lua's cache of recent C strings finds repeated names without hashing them) unless the bytes hold
   a NUL, then by the bytes. For names of a few bytes the scan is a handful of instructions (no strlen call). */
static inline void clua_setfield_bytes(lua_State *L, int idx, const char *name, size_t len) {
    for (size_t i = 0; i < len; i++) {
        if (name[i] == 0) {
            idx = lua_absindex(L, idx);
            lua_pushlstring(L, name, len);
            lua_rotate(L, -2, 1);
            lua_rawset(L, idx);
            return;
        }
    }
    lua_setfield(L, idx, name);
}

/* The Swift object of the box tagged `tag` in field `name` of the metatable of the value at idx (read raw),
   or NULL; the stack is unchanged (it needs two free slots). */
static inline void *clua_metafield_object(lua_State *L, int idx, const char *name, const void *tag) {
    if (!lua_getmetatable(L, idx)) return NULL;
    lua_pushstring(L, name);
    lua_rawget(L, -2);
    void *object = clua_boxed_object(L, -1, tag);
    lua_settop(L, -3);
    return object;
}

/* ---- Weak maps: a registry table from addresses to values, weak in its values (the object cache, and the
   state's views: LuaStack.pushView in LuaKit). */

/* Pushes map[key] for the map in registry slot `ref` and returns 1, or pushes nothing and returns 0. */
static inline int clua_weakmap_get(lua_State *L, int ref, const void *key) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    if (lua_rawgetp(L, -1, key) == LUA_TNIL) {
        lua_settop(L, -3);
        return 0;
    }
    lua_remove(L, -2);
    return 1;
}

/* map[key] = the value at idx (nil removes the entry), for the map in registry slot `ref`. */
static inline void clua_weakmap_set(lua_State *L, int ref, const void *key, int idx) {
    idx = lua_absindex(L, idx);
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_pushvalue(L, idx);
    lua_rawsetp(L, -2, key);
    lua_settop(L, -2);
}

/* A new weak-valued table in a registry slot; its slot. */
static inline int clua_weakmap_new(lua_State *L) {
    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "v");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    return luaL_ref(L, LUA_REGISTRYINDEX);
}

/* ---- macros Swift cannot import ---- */

static inline int clua_registryindex(void) { return LUA_REGISTRYINDEX; }
static inline int clua_upvalueindex(int i) { return lua_upvalueindex(i); }
static inline void clua_pop(lua_State *L, int n) { lua_pop(L, n); }
static inline void clua_newtable(lua_State *L) { lua_newtable(L); }
static inline void clua_insert(lua_State *L, int idx) { lua_insert(L, idx); }
static inline void clua_remove(lua_State *L, int idx) { lua_remove(L, idx); }
static inline void clua_replace(lua_State *L, int idx) { lua_replace(L, idx); }
/* lua_tolstring and lua_tointegerx as values: Swift reads the results without taking the address of a
   local (which costs a stack guard and a larger frame on every call). */
typedef struct clua_String { const char *bytes; size_t length; } clua_String;
static inline clua_String clua_tostring_bytes(lua_State *L, int idx) {
    clua_String result;
    result.bytes = lua_tolstring(L, idx, &result.length);
    return result;
}
typedef struct clua_Integer { lua_Integer value; int ok; } clua_Integer;
static inline clua_Integer clua_tointeger(lua_State *L, int idx) {
    clua_Integer result;
    result.value = lua_tointegerx(L, idx, &result.ok);
    return result;
}

/* ---- Data images (LuaDataImage in LuaKit): plain data encoded for comparison with a Lua value in one walk.
   A value is a tag byte and its payload: 'f'/'t' booleans; 'i' an 8-byte integer; 'd' the 8-byte bits of a
   float; 's' a 4-byte length and the bytes; 'l' a list: 4-byte count, then each item as a 4-byte size and the
   item; 'r' a record: 4-byte count, then each field as 4-byte key length, the key, 4-byte size, the value.
   Integers are in the machine's byte order. */
static inline uint32_t clua_image_u32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }

/* Whether the value at idx is exactly the data at p: a list is a table whose pairs are 1..n in traversal order
   (what a table constructor or appends build), a record a table with exactly the fields, string keys only.
   Raw access only; never raises. */
static int clua_image_matches(lua_State *L, int idx, const unsigned char *p, int depth) {
    int type = lua_type(L, idx);
    switch (p[0]) {
    case 'f': return type == LUA_TBOOLEAN && !lua_toboolean(L, idx);
    case 't': return type == LUA_TBOOLEAN && lua_toboolean(L, idx);
    case 'i': {
        lua_Integer v; memcpy(&v, p + 1, 8);
        return type == LUA_TNUMBER && lua_isinteger(L, idx) && lua_tointegerx(L, idx, NULL) == v;
    }
    case 'd': {
        if (type != LUA_TNUMBER || lua_isinteger(L, idx)) return 0;
        lua_Number d = lua_tonumberx(L, idx, NULL);
        return memcmp(&d, p + 1, 8) == 0;
    }
    case 's': {
        if (type != LUA_TSTRING) return 0;
        size_t len; const char *s = lua_tolstring(L, idx, &len);
        return len == clua_image_u32(p + 1) && memcmp(s, p + 5, len) == 0;
    }
    case 'l': case 'r': {
        int list = p[0] == 'l';
        uint32_t n = clua_image_u32(p + 1);
        if (type != LUA_TTABLE || depth >= 64 || !lua_checkstack(L, 3)) return 0;
        if (list && (n == 0 || lua_rawlen(L, idx) != n)) return 0;
        idx = lua_absindex(L, idx);
        const unsigned char *items = p + 5, *next = items;
        uint32_t count = 0;
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            const unsigned char *value = NULL;
            if (++count <= n) {
                if (list) {
                    if (lua_isinteger(L, -2) && lua_tointegerx(L, -2, NULL) == (lua_Integer)count) value = next + 4;
                    next += 4 + clua_image_u32(next);
                } else if (lua_type(L, -2) == LUA_TSTRING) {
                    size_t klen; const char *key = lua_tolstring(L, -2, &klen);
                    const unsigned char *q = items;
                    for (uint32_t i = 0; i < n; i++) {
                        uint32_t kl = clua_image_u32(q);
                        const unsigned char *v = q + 4 + kl;
                        if (kl == klen && memcmp(q + 4, key, kl) == 0) { value = v + 4; break; }
                        q = v + 4 + clua_image_u32(v);
                    }
                }
            }
            if (value == NULL || !clua_image_matches(L, -1, value, depth + 1)) { lua_settop(L, -3); return 0; }
            lua_settop(L, -2);
        }
        return count == n;
    }
    default: return 0;
    }
}
static inline void clua_pushglobaltable(lua_State *L) { lua_pushglobaltable(L); }
static inline int clua_gc_collect(lua_State *L) { return lua_gc(L, LUA_GCCOLLECT); }
static inline int clua_gc_count_kb(lua_State *L) { return lua_gc(L, LUA_GCCOUNT); }
static inline int clua_gc_count_b(lua_State *L) { return lua_gc(L, LUA_GCCOUNTB); }
static inline int clua_gc_stop(lua_State *L) { return lua_gc(L, LUA_GCSTOP); }
static inline int clua_gc_restart(lua_State *L) { return lua_gc(L, LUA_GCRESTART); }
static inline int clua_gc_generational(lua_State *L) { return lua_gc(L, LUA_GCGEN, 0, 0); }
static inline int clua_gc_incremental(lua_State *L) { return lua_gc(L, LUA_GCINC, 0, 0, 0); }
static inline void clua_pushclosure(lua_State *L, int nup) { lua_pushcclosure(L, clua_trampoline, nup); }
static inline void clua_pushmethod(lua_State *L) { lua_pushcclosure(L, clua_method_trampoline, 4); }
static inline void clua_pushindex(lua_State *L) { lua_pushcclosure(L, clua_index, 4); }
static inline void clua_pushnewindex(lua_State *L) { lua_pushcclosure(L, clua_newindex, 3); }
static inline void clua_pushboxgc(lua_State *L) { lua_pushcfunction(L, clua_box_gc); }
static inline int clua_ref(lua_State *L) { return luaL_ref(L, LUA_REGISTRYINDEX); }
static inline void clua_unref(lua_State *L, int ref) { luaL_unref(L, LUA_REGISTRYINDEX, ref); }
static inline int clua_rawgetref(lua_State *L, int ref) { return lua_rawgeti(L, LUA_REGISTRYINDEX, ref); }
/* Pushes entry `n` (raw) of the table in registry slot `ref`; returns the entry's type. */
static inline int clua_push_entry(lua_State *L, int ref, lua_Integer n) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    int type = lua_rawgeti(L, -1, n);
    lua_copy(L, -1, -2);
    lua_settop(L, -2);
    return type;
}

/* Opens one standard library by its luaopen function and stores it like luaL_openlibs does. */
static inline void clua_requiref(lua_State *L, const char *name, lua_CFunction open) {
    luaL_requiref(L, name, open, 1);
    lua_pop(L, 1);
}

#endif
