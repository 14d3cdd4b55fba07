/* CLua: the runtime record every thread of a state reaches, and the counting allocator. Part of CLuaGlue.h, which includes the parts in order: not to be included alone. */
#ifndef CLUA_RUNTIME_H
#define CLUA_RUNTIME_H

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

void *clua_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

lua_State *clua_newstate(clua_Runtime *rt);

#endif /* CLUA_RUNTIME_H */
