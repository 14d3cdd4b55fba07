/* CCoordinatorLua: hooks (instruction budget, interrupt), Ctrl-C for command-line hosts, introspection, warnings. Part of CCoordinatorLuaGlue.h, which includes the parts in order: not to be included alone. */
#ifndef COORDLUA_HOOKS_H
#define COORDLUA_HOOKS_H

/* ---- hooks: instruction budget and interrupt ---- */

/* Installs the hook the runtime record asks for on thread L, or removes it. */
void coordlua_install_hook(lua_State *L, coordlua_Runtime *rt);

/* Both conditions are sticky until the Swift side ends the top-level call: Lua code that catches the error
   with pcall and loops again is stopped again at its next instruction. Count hooks never fire inside C
   functions, so message handlers run undisturbed. */
void coordlua_hook(lua_State *L, lua_Debug *ar);

/* Asks the running Lua code to stop with an "interrupted" error at its next instruction. Safe to call from
   a signal handler on the thread that runs Lua (the same technique as lua.c's Ctrl-C handling). */
void coordlua_interrupt(lua_State *L);

/* ---- time limits and cancellation: nothing until they fire ----
   A deadline is the runtime record's own (`deadline`), and so is a cancel flag (`cancel`). Neither costs a
   hook while code runs (any count hook makes Lua 5.4 trap every instruction: up to twice the time of
   call-heavy code). Instead, as lua.c's Ctrl-C: a runtime with either is on its thread's watch list
   (coordlua_watch), and a signal (COORDLUA_WATCH_SIGNAL) delivered to that thread, by a per-thread timer at
   the earliest deadline or by coordlua_cancel_set, arms the stop from the handler: stopArmed, and a hook
   that stops the next instruction of the running thread (and of any thread resumed after it). Signals go
   to the thread that runs the code (tgkill, a thread-directed timer), so runtimes on different threads
   each keep their own limits. The pattern matcher and os.execute read the clock and the flag themselves. */
#define COORDLUA_WATCH_SIGNAL (SIGRTMIN + 5)

/* Puts the runtime on this thread's watch list while it has a deadline or a cancel flag (and off it when it
   has neither), L being the thread it runs; arms the thread's timer at the earliest deadline of the list.
   Call it after changing `deadline` or `cancel`. */
void coordlua_watch(coordlua_Runtime *rt, lua_State *L);

/* CLOCK_MONOTONIC in nanoseconds. */
long long coordlua_monotonic_ns(void);

/* ---- work inside C functions ----
   Hooks run between Lua instructions, never inside a C function, so a C function that may work for long
   (the pattern matcher, coordlua_patterns.h) counts its steps in the runtime record's `credit`, one step
   for each character it tries; when the credit is spent it calls coordlua_spend, which charges the
   COORDLUA_SPEND_EVERY steps to the instruction budget as instructions and checks the limits as the count
   hook does (an interrupt, a cancel, the deadline: read here, not waited for), raising the same errors. */
#define COORDLUA_SPEND_EVERY 16384

void coordlua_spend(lua_State *L);

/* Counts `steps` steps of work on the running C function's behalf (see above). */
static inline void coordlua_step(lua_State *L, long long steps) {
    coordlua_Runtime *rt = coordlua_runtime(L);
    if ((rt->credit -= steps) <= 0) coordlua_spend(L);
}

/* ---- cancellation from another thread ----
   A flag in memory of its own, read and written only with C11 atomics: any thread may set it (a Swift
   task's cancellation handler) while the state's thread runs Lua. While the runtime record points at one
   (`cancel`), setting it sends COORDLUA_WATCH_SIGNAL to the thread that runs the code (the flag knows it while
   watched), whose handler stops the running code with "cancelled". Nothing but the flag and a signal cross
   threads: no lua_sethook across threads. */
void *coordlua_cancel_new(void);
void coordlua_cancel_set(void *flag);
int coordlua_cancel_test(void *flag);
void coordlua_cancel_free(void *flag);

/* ---- Ctrl-C for command-line hosts (as lua.c does it) ----
   One process-wide SIGINT handler. A state is armed for the thread that armed it (a thread-local slot):
   the signal, when it lands on that thread, interrupts the Lua code running on the state's current
   thread; at any time it is counted, so a prompt can see that Ctrl-C was pressed. A Ctrl-C delivered to
   another thread of the process is passed on to the thread that installed the handler (pthread_kill), so
   a command-line host that runs Lua on its main thread sees every Ctrl-C. Runtimes armed on other
   threads (tests, servers) are never touched by a signal meant for one of them. The handler does nothing
   but async-signal-safe work: stores to sig_atomic_t and thread-local slots, lua_sethook, pthread_kill. */

/* Installs the handler without SA_RESTART, so a blocking read at a prompt returns EINTR. */
int coordlua_sigint_install(void);

void coordlua_sigint_uninstall(void);
/* Arms L for this thread; returns the state armed before (to give back to coordlua_sigint_disarm). */
lua_State *coordlua_sigint_arm(lua_State *L);
void coordlua_sigint_disarm(lua_State *previous);

/* How many times Ctrl-C was pressed since the last call. */
int coordlua_sigint_take(void);

/* Puts in the global `coroutine` table (when there is one) a resume and a wrap that call the library's own
   with the coroutine the running thread while it runs, given the running call's hooks (budget, interrupt,
   time limit, cancellation); coroutines.c. */
void coordlua_follow_coroutines(lua_State *L);

/* The message of a limit's stop reason (runtime record's interruptRequested): "interrupted", "interrupted!" (Ctrl-C), "timed out",
   "cancelled". */
const char *coordlua_stop_message(int reason);

/* Whether a limit stops the running code now: an interrupt, a timeout or a cancel raised, an instruction
   budget spent, a deadline passed. (A lua_CFunction: returns the answer as a boolean.) */
int coordlua_stopping(lua_State *L);

/* `xpcall`: the base library's (upvalue 2), with a Lua message handler that runs only while no limit stops
   the code: an error a limit raises inside a hook reaches the handler with hooks off (Lua calls it from the
   hook), where a handler that loops would loop for ever. Upvalue 1 makes the guard around a handler (a Lua
   function that tail-calls it, so that the handler's stack levels are as without it); a C handler is
   passed on as it is. */
int coordlua_xpcall(lua_State *L);

/* Makes the global `setmetatable` (the base library's, a C function) refuse a metatable with `__gc` ("__gc
   metamethods are not run here"): Lua runs finalizers with hooks off, where no limit could stop one that
   loops. 0 when the global is not a C function (nothing changed). */
int coordlua_refuse_finalizers(lua_State *L);
/* The sandbox's collectgarbage: the library's (upvalue 1) for no option, "collect", "count", "step" and "isrunning"; any other
   option an error at the caller's line (a script cannot stop the collector or tune it to grow without bound). */
int coordlua_collectgarbage_sandboxed(lua_State *L);

/* `os.execute` that a time limit, a cancel or Ctrl-C stops: while a deadline or a cancel flag is set, the
   command runs in a process group of its own, killed (SIGKILL) when the limit passes, and the call raises
   the limit's error; otherwise it is the library's (upvalue 1), as lua.c runs it. */
int coordlua_os_execute(lua_State *L);

/* ---- function introspection (for hot reload) ---- */

/* Pushes nothing; fills source/lines of the function at `index`. Returns 1 for a Lua function. */
/* The chunk (a file's whole path, else short_src) and current line of the function `level` levels up the stack (1: the caller of the
   running C function), or of the first one above it that is not the runtime's own ("=[...]" chunks); 0 when there is none or it is
   not Lua. Allocates nothing in Lua's heap. */
int coordlua_caller(lua_State *L, int level, char *source, int size, int *line);
int coordlua_funcinfo(lua_State *L, int index, const char **source, int *linedefined, int *lastlinedefined, int *nups, int *nparams);

/* Bytes the C allocator has handed out and not taken back (Lua's and Swift's allocations alike), for
   memory measurements; -1 where the C library cannot tell. */
long long coordlua_malloc_in_use(void);

/* ---- warnings ---- */

/* Routes the state's warnings (`warn "..."`) to the runtime record's `warn` function. */
void coordlua_setwarnf(lua_State *L, coordlua_Runtime *rt);

#endif /* COORDLUA_HOOKS_H */
