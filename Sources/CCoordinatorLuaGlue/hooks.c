/* CCoordinatorLuaGlue: hooks (instruction budget, interrupt), Ctrl-C, function introspection, warnings (see
   coordlua_hooks.h). */
#include "CCoordinatorLuaGlue.h"
#include <errno.h>
#include <poll.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Set by a Ctrl-C that asked running Lua code to stop, cleared when a hook saw it: a second Ctrl-C while it
   is still set finds the code stuck where no hook runs (a long C call such as string.find over a huge
   subject), and ends the process, as lua.c's second Ctrl-C does. */
static _Thread_local volatile sig_atomic_t sigintUnseen;

/* A cancel flag: whether it is set, and the kernel id of the thread whose code it stops while watched. */
typedef struct {
    atomic_int set;
    atomic_int thread;
} coordlua_CancelFlag;

void *coordlua_cancel_new(void) {
    coordlua_CancelFlag *flag = malloc(sizeof *flag);
    if (flag != NULL) { atomic_init(&flag->set, 0); atomic_init(&flag->thread, 0); }
    return flag;
}

void coordlua_cancel_set(void *flag) {
    if (flag == NULL) return;
    coordlua_CancelFlag *f = flag;
    atomic_store_explicit(&f->set, 1, memory_order_seq_cst);
    int thread = atomic_load_explicit(&f->thread, memory_order_seq_cst);
    /* To this process's thread only; one that no longer watches the flag finds nothing to stop. */
    if (thread > 0) syscall(SYS_tgkill, getpid(), thread, COORDLUA_WATCH_SIGNAL);
}

int coordlua_cancel_test(void *flag) {
    return flag != NULL && atomic_load_explicit(&((coordlua_CancelFlag *)flag)->set, memory_order_relaxed) != 0;
}

void coordlua_cancel_free(void *flag) { free(flag); }

long long coordlua_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + (long long)now.tv_nsec;
}

void coordlua_install_hook(lua_State *L, coordlua_Runtime *rt) {
    lua_Hook hook = coordlua_hook;
    int mask, count;
    if (rt->interruptRequested || rt->stopArmed) { mask = LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT; count = 1; }
    else if (rt->budgeted) { /* spent: the next instruction stops */
        mask = LUA_MASKCOUNT;
        count = rt->budget <= 0 ? 1 : rt->hookCount;
    }
    else {
        /* Nothing asked for: the runtime's own hook goes, a script's (debug.sethook) stays. */
        if (lua_gethook(L) == coordlua_hook) lua_sethook(L, NULL, 0, 0);
        return;
    }
    /* Setting a hook restarts its count: a thread that already has this one keeps counting (a coroutine
       resumed every few instructions would otherwise never reach a count). */
    if (lua_gethook(L) == hook && lua_gethookmask(L) == mask && lua_gethookcount(L) == count) return;
    lua_sethook(L, hook, mask, count);
}

/* Raises "chunk:line: message" located at the innermost Lua function (level 0 inside a hook) of the user's
   code: the runtime's own chunks (named "=[...]", such as coroutine.wrap's "=[coroutine]") are passed over,
   unless there is nothing else. */
static void coordlua_hook_error(lua_State *L, const char *message) {
    lua_Debug where;
    for (int pass = 0; pass < 2; pass++) {
        for (int level = 0; lua_getstack(L, level, &where); level++) {
            lua_getinfo(L, "Sl", &where);
            int internal = where.source[0] == '=' && where.source[1] == '[';
            if (where.currentline > 0 && (pass == 1 || !internal)) {
                lua_pushfstring(L, "%s:%d: %s", where.short_src, where.currentline, message);
                lua_error(L);
                return;
            }
        }
    }
    lua_pushstring(L, message);
    lua_error(L);
}

const char *coordlua_stop_message(int reason) {
    switch (reason) {
    case 2: return "timed out";
    case 3: return "cancelled";
    case 5: return "interrupted!";  /* Ctrl-C, in lua.c's words */
    default: return "interrupted";
    }
}

/* Why a limit stops the running code now: 0 nothing; else an interrupt's reason (1 interrupted, 5 Ctrl-C, 2
   timed out, 3 cancelled: asked already, or with `timed` the cancel flag set or the deadline passed) or 4,
   the instruction budget spent. */
static int coordlua_stop_reason(coordlua_Runtime *rt, int timed) {
    if (rt->interruptRequested) return rt->interruptRequested;
    if (timed && rt->cancel != NULL && coordlua_cancel_test(rt->cancel)) return 3;
    if (timed && rt->deadline != 0 && coordlua_monotonic_ns() >= rt->deadline) return 2;
    if (rt->budgeted && rt->budget <= 0) return 4;
    return 0;
}

/* Stops the running code if a limit says so, as the count hook does: `spent` instructions are charged to the
   budget first, and with `timed` the cancel flag and the deadline are read. Raises the limit's error (after
   setting a hook that stops the next instruction too); returns 0 when nothing stops. */
static int coordlua_enforce(lua_State *L, coordlua_Runtime *rt, long long spent, int timed) {
    if (rt->budgeted) rt->budget -= spent;
    int reason = coordlua_stop_reason(rt, timed);
    if (reason == 0) return 0;
    if (rt->interruptRequested) sigintUnseen = 0;
    lua_sethook(L, coordlua_hook, LUA_MASKCOUNT, 1);
    if (reason == 4) {
        lua_pushfstring(L, "instruction budget of %I instructions exhausted", (lua_Integer)rt->budgetTotal);
        coordlua_hook_error(L, lua_tostring(L, -1));
    } else {
        rt->interruptRequested = reason;
        coordlua_hook_error(L, coordlua_stop_message(reason));
    }
    return 1;
}

void coordlua_hook(lua_State *L, lua_Debug *ar) {
    coordlua_Runtime *rt = coordlua_runtime(L);
    int counted = ar->event == LUA_HOOKCOUNT;
    if (coordlua_enforce(L, rt, counted && !rt->stopArmed ? rt->hookCount : 0, 1) || rt->budgeted) return;
    lua_sethook(L, NULL, 0, 0); /* nothing asked for any more: a stale hook on this thread removes itself */
}

/* ---- the watch: deadlines and cancel flags armed by a signal to the thread that runs the code ---- */

#define COORDLUA_WATCH_MOST 16
/* The runtimes with a deadline or a cancel flag on this thread (nested ones: a REPL's time travel runs a
   fresh runtime inside a line of another), and this thread's timer. */
static _Thread_local coordlua_Runtime *volatile watchList[COORDLUA_WATCH_MOST];
static _Thread_local volatile int watchCount;
static _Thread_local timer_t watchTimer;
static _Thread_local int watchTimerMade;
static pthread_once_t watchHandlerOnce = PTHREAD_ONCE_INIT;
/* Deletes a thread's timer when the thread ends. */
static pthread_key_t watchTimerKey;

static void coordlua_watch_timer_delete(void *unused) {
    (void)unused;
    if (watchTimerMade) { timer_delete(watchTimer); watchTimerMade = 0; }
}

/* On the thread that runs the code: each watched runtime whose deadline passed or whose flag is set stops
   its running thread at the next instruction (async-signal-safe: the clock, atomics, lua_sethook). */
static void coordlua_watch_handler(int sig) {
    (void)sig;
    int saved = errno;
    for (int i = 0; i < watchCount; i++) {
        coordlua_Runtime *rt = watchList[i];
        if (rt == NULL || coordlua_stop_reason(rt, 1) == 0) continue;
        rt->stopArmed = 1;
        lua_State *running = rt->current != NULL ? rt->current : rt->watchedThread;
        if (running != NULL) lua_sethook(running, coordlua_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
    }
    errno = saved;
}

static void coordlua_watch_install_handler(void) {
    pthread_key_create(&watchTimerKey, coordlua_watch_timer_delete);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = coordlua_watch_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(COORDLUA_WATCH_SIGNAL, &action, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, COORDLUA_WATCH_SIGNAL);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

/* Sets this thread's timer to the earliest deadline on its watch list (or disarms it). */
static void coordlua_watch_timer(void) {
    long long earliest = 0;
    for (int i = 0; i < watchCount; i++) {
        long long deadline = watchList[i]->deadline;
        if (deadline != 0 && (earliest == 0 || deadline < earliest)) earliest = deadline;
    }
    if (!watchTimerMade) {
        if (earliest == 0) return;
        struct sigevent event;
        memset(&event, 0, sizeof event);
        event.sigev_notify = SIGEV_THREAD_ID;
        event.sigev_signo = COORDLUA_WATCH_SIGNAL;
        event._sigev_un._tid = (pid_t)syscall(SYS_gettid);
        if (timer_create(CLOCK_MONOTONIC, &event, &watchTimer) != 0) return; /* then the clock is read where C code works long */
        watchTimerMade = 1;
        pthread_setspecific(watchTimerKey, (void *)1);
    }
    struct itimerspec when;
    memset(&when, 0, sizeof when);
    if (earliest != 0) {
        when.it_value.tv_sec = (time_t)(earliest / 1000000000LL);
        when.it_value.tv_nsec = (long)(earliest % 1000000000LL);
    }
    timer_settime(watchTimer, TIMER_ABSTIME, &when, NULL);
}

void coordlua_watch(coordlua_Runtime *rt, lua_State *L) {
    pthread_once(&watchHandlerOnce, coordlua_watch_install_handler);
    int wanted = rt->deadline != 0 || rt->cancel != NULL;
    int thread = (int)syscall(SYS_gettid);
    if (rt->cancel != NULL) atomic_store(&((coordlua_CancelFlag *)rt->cancel)->thread, thread);
    if (wanted && !rt->watched && watchCount < COORDLUA_WATCH_MOST) {
        /* Worker threads (libdispatch's, Swift concurrency's) start with signals blocked: this one must take it. */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, COORDLUA_WATCH_SIGNAL);
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        rt->watchedThread = L;
        watchList[watchCount] = rt;
        watchCount = watchCount + 1;
        rt->watched = 1;
    } else if (!wanted && rt->watched) {
        for (int i = 0; i < watchCount; i++) {
            if (watchList[i] != rt) continue;
            watchList[i] = watchList[watchCount - 1];
            watchCount = watchCount - 1;
            break;
        }
        rt->watched = 0;
        rt->stopArmed = 0;
    }
    coordlua_watch_timer();
    /* A deadline already passed or a flag already set stops the code at once. */
    if (wanted && coordlua_stop_reason(rt, 1) != 0) coordlua_watch_handler(COORDLUA_WATCH_SIGNAL);
    coordlua_install_hook(L, rt);
}

void coordlua_spend(lua_State *L) {
    coordlua_Runtime *rt = coordlua_runtime(L);
    long long spent = COORDLUA_SPEND_EVERY - rt->credit;
    rt->credit = COORDLUA_SPEND_EVERY;
    coordlua_enforce(L, rt, spent, 1);
}

static void coordlua_interrupt_for(lua_State *L, int reason) {
    coordlua_Runtime *rt = coordlua_runtime(L);
    rt->interruptRequested = reason;
    lua_sethook(L, coordlua_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

void coordlua_interrupt(lua_State *L) { coordlua_interrupt_for(L, 1); }



/* The state Ctrl-C interrupts on this thread while it is armed, the thread that installed the handler, and
   how many times Ctrl-C was pressed. */
static _Thread_local lua_State *volatile sigintState;
static pthread_t sigintInstaller;
static volatile sig_atomic_t sigintInstalled;
static volatile sig_atomic_t sigintCount;

static void coordlua_sigint_handler(int sig) {
    (void)sig;
    lua_State *L = sigintState;
    if (L == NULL && sigintInstalled && !pthread_equal(pthread_self(), sigintInstaller)) {
        pthread_kill(sigintInstaller, SIGINT); /* Ctrl-C is the installing thread's */
        return;
    }
    sigintCount = sigintCount + 1;
    if (L != NULL) {
        if (sigintUnseen) {
            signal(SIGINT, SIG_DFL);
            raise(SIGINT);
            return;
        }
        sigintUnseen = 1;
        lua_State *running = coordlua_runtime(L)->current;
        coordlua_interrupt_for(running != NULL ? running : L, 5);
    }
}

int coordlua_sigint_install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = coordlua_sigint_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    sigintInstaller = pthread_self();
    sigintInstalled = 1;
    if (sigaction(SIGINT, &action, NULL) != 0) { sigintInstalled = 0; return -1; }
    /* A process started with SIGINT blocked (some harnesses do that) would never see Ctrl-C. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    return pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

void coordlua_sigint_uninstall(void) {
    signal(SIGINT, SIG_DFL);
    sigintInstalled = 0;
}

lua_State *coordlua_sigint_arm(lua_State *L) {
    lua_State *previous = sigintState;
    sigintState = L;
    return previous;
}

void coordlua_sigint_disarm(lua_State *previous) {
    sigintState = previous;
    sigintUnseen = 0;
}

int coordlua_sigint_take(void) {
    int count = sigintCount;
    sigintCount = 0;
    return count;
}

int coordlua_funcinfo(lua_State *L, int index, const char **source, int *linedefined, int *lastlinedefined, int *nups, int *nparams) {
    lua_Debug ar;
    lua_pushvalue(L, index);
    lua_getinfo(L, ">Su", &ar);
    *source = ar.source;
    *linedefined = ar.linedefined;
    *lastlinedefined = ar.lastlinedefined;
    *nups = ar.nups;
    *nparams = ar.nparams;
    return ar.what[0] == 'L' || ar.what[0] == 'm';
}

long long coordlua_malloc_in_use(void) {
#if defined(__GLIBC__)
    struct mallinfo2 info = mallinfo2();
    return (long long)info.uordblks;
#else
    return -1;
#endif
}

static void coordlua_warnf(void *ud, const char *msg, int tocont) {
    coordlua_Runtime *rt = (coordlua_Runtime *)ud;
    if (rt->warn != NULL && rt->owner != NULL) rt->warn(rt->owner, msg, tocont);
}

void coordlua_setwarnf(lua_State *L, coordlua_Runtime *rt) { lua_setwarnf(L, coordlua_warnf, rt); }

int coordlua_caller(lua_State *L, int level, char *source, int size, int *line) {
    lua_Debug ar;
    if (size <= 0) return 0;
    for (;; level++) { /* past the runtime's own chunks ("=[coordinator]"), as coordlua_where */
        if (!lua_getstack(L, level, &ar) || !lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0) return 0;
        if (strncmp(ar.source, "=[", 2) != 0) break;
    }
    /* Files by their whole path (short_src would shorten a long one to ".../end/of/path"). */
    snprintf(source, (size_t)size, "%s", ar.source[0] == '@' ? ar.source + 1 : ar.short_src);
    *line = ar.currentline;
    return 1;
}

int coordlua_stopping(lua_State *L) {
    lua_pushboolean(L, coordlua_stop_reason(coordlua_runtime(L), 1) != 0);
    return 1;
}

int coordlua_xpcall(lua_State *L) {
    luaL_checktype(L, 2, LUA_TFUNCTION);
    if (!lua_iscfunction(L, 2)) {
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_pushvalue(L, 2);
        lua_call(L, 1, 1);
        lua_replace(L, 2);
    }
    return lua_tocfunction(L, lua_upvalueindex(2))(L);
}

/* setmetatable that refuses `__gc`: upvalue 1 is the library's. */
static int coordlua_setmetatable_without_finalizers(lua_State *L) {
    if (lua_type(L, 1) == LUA_TTABLE && lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        int finalizer = lua_rawget(L, 2) != LUA_TNIL;
        lua_settop(L, -2);
        if (finalizer) return luaL_error(L, "__gc metamethods are not run here (they could not be stopped)");
    }
    return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

int coordlua_refuse_finalizers(lua_State *L) {
    lua_getglobal(L, "setmetatable");
    lua_CFunction library = lua_tocfunction(L, -1);
    lua_settop(L, -2);
    if (library == NULL) return 0;
    lua_pushcfunction(L, library);
    lua_pushcclosure(L, coordlua_setmetatable_without_finalizers, 1);
    lua_setglobal(L, "setmetatable");
    return 1;
}

int coordlua_collectgarbage_sandboxed(lua_State *L) {
    static const char *const allowed[] = {"collect", "count", "step", "isrunning", NULL};
    if (!lua_isnoneornil(L, 1)) {
        int ok = 0;
        if (lua_type(L, 1) == LUA_TSTRING) {
            const char *option = lua_tostring(L, 1);
            for (int i = 0; allowed[i] != NULL; i++) if (strcmp(option, allowed[i]) == 0) ok = 1;
        }
        if (!ok) return luaL_error(L, "collectgarbage('%s') is not allowed in the sandbox", luaL_tolstring(L, 1, NULL));
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* os.execute under a deadline or a cancel flag: the command runs in a process group of its own, watched
   (a pidfd polled, or every 10 ms where there is none); when a limit says stop, the group is killed and
   the limit's error raised. Otherwise, and for os.execute(), the library's own (upvalue 1). */
int coordlua_os_execute(lua_State *L) {
    coordlua_Runtime *rt = coordlua_runtime(L);
    const char *command = luaL_optstring(L, 1, NULL);
    if (command == NULL || (rt->deadline == 0 && rt->cancel == NULL)) {
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_insert(L, 1);
        lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
        return lua_gettop(L);
    }
    posix_spawnattr_t attributes;
    sigset_t defaults, mask;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGQUIT);
    sigaddset(&defaults, SIGPIPE);
    sigemptyset(&mask);
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setsigmask(&attributes, &mask);
    char *argv[] = { "sh", "-c", (char *)command, NULL };
    pid_t pid;
    int failed = posix_spawn(&pid, "/bin/sh", NULL, &attributes, argv, environ);
    posix_spawnattr_destroy(&attributes);
    if (failed != 0) { errno = failed; return luaL_execresult(L, -1); }
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    for (;;) {
        int status;
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid || (done < 0 && errno != EINTR)) {
            if (pidfd >= 0) close(pidfd);
            return luaL_execresult(L, done == pid ? status : -1);
        }
        if (coordlua_stop_reason(rt, 1) != 0) {
            kill(-pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
            if (pidfd >= 0) close(pidfd);
            coordlua_enforce(L, rt, 0, 1);
            return luaL_error(L, "interrupted");
        }
        long long wait = 100000000LL, now = coordlua_monotonic_ns(); /* 100 ms: a cancel flag is read at least that often */
        if (rt->deadline != 0 && rt->deadline - now < wait) wait = rt->deadline > now ? rt->deadline - now : 0;
        if (pidfd >= 0) {
            struct pollfd watch = { .fd = pidfd, .events = POLLIN, .revents = 0 };
            poll(&watch, 1, (int)(wait / 1000000LL) + 1);
        } else {
            struct timespec pause = { 0, wait < 10000000LL ? wait : 10000000LL };
            nanosleep(&pause, NULL);
        }
    }
}
