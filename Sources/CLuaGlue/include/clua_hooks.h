/* CLua: hooks (instruction budget, interrupt), Ctrl-C for command-line hosts, introspection, warnings. Part of CLuaGlue.h, which includes the parts in order: not to be included alone. */
#ifndef CLUA_HOOKS_H
#define CLUA_HOOKS_H

/* ---- hooks: instruction budget and interrupt ---- */

/* Installs the hook the runtime record asks for on thread L, or removes it. */
void clua_install_hook(lua_State *L, clua_Runtime *rt);

/* Both conditions are sticky until the Swift side ends the top-level call: Lua code that catches the error
   with pcall and loops again is stopped again at its next instruction. Count hooks never fire inside C
   functions, so message handlers run undisturbed. */
void clua_hook(lua_State *L, lua_Debug *ar);

/* Asks the running Lua code to stop with an "interrupted" error at its next instruction. Safe to call from
   a signal handler on the thread that runs Lua (the same technique as lua.c's Ctrl-C handling). */
void clua_interrupt(lua_State *L);

/* ---- Ctrl-C for command-line hosts (as lua.c does it) ----
   One process-wide SIGINT handler. While a state is armed, the signal interrupts the Lua code running on
   that state's current thread; at any time it is counted, so a prompt can see that Ctrl-C was pressed.
   The armed state and the count are two statics of hooks.c, so the process has one of each. The handler
   does nothing but async-signal-safe work: two volatile stores and lua_sethook. */

/* Installs the handler without SA_RESTART, so a blocking read at a prompt returns EINTR. */
int clua_sigint_install(void);

void clua_sigint_uninstall(void);
void clua_sigint_arm(lua_State *L);
void clua_sigint_disarm(void);

/* A time limit for the armed state: after `microseconds`, its running code stops with "timed out" (SIGALRM,
   a real-time timer; one per process). Stopped by clua_timeout_stop. */
int clua_timeout_start(long long microseconds);
void clua_timeout_stop(void);

/* How many times Ctrl-C was pressed since the last call. */
int clua_sigint_take(void);

/* coroutine.resume over the library's own (upvalue 1): the coroutine is the running thread while it runs,
   and gets the running call's hooks (budget, interrupt). */
int clua_coresume(lua_State *L);

/* ---- function introspection (for hot reload) ---- */

/* Pushes nothing; fills source/lines of the function at `index`. Returns 1 for a Lua function. */
/* The chunk (a file's whole path, else short_src) and current line of the function `level` levels up the stack (1: the caller of the
   running C function); 0 when there is none or it is not Lua. Allocates nothing in Lua's heap. */
int clua_caller(lua_State *L, int level, char *source, int size, int *line);
int clua_funcinfo(lua_State *L, int index, const char **source, int *linedefined, int *lastlinedefined, int *nups, int *nparams);

/* Bytes the C allocator has handed out and not taken back (Lua's and Swift's allocations alike), for
   memory measurements; -1 where the C library cannot tell. */
long long clua_malloc_in_use(void);

/* ---- warnings ---- */

/* Routes the state's warnings (`warn "..."`) to the runtime record's `warn` function. */
void clua_setwarnf(lua_State *L, clua_Runtime *rt);

#endif /* CLUA_HOOKS_H */
