/* CLua: hooks (instruction budget, interrupt), Ctrl-C for command-line hosts, introspection, warnings. Part of shim.h, which includes the parts in order: not to be included alone. */
#ifndef CLUA_HOOKS_H
#define CLUA_HOOKS_H

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

#endif /* CLUA_HOOKS_H */
