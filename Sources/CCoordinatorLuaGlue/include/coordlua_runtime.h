/* CCoordinatorLua: the runtime record every thread of a state reaches, and the counting allocator. Part of CCoordinatorLuaGlue.h, which includes the parts in order: not to be included alone. */
#ifndef COORDLUA_RUNTIME_H
#define COORDLUA_RUNTIME_H

/* ---- per-state runtime record, owned by Swift, reachable from every thread of the state ---- */

/* Swift dispatchers. `box` is an unretained pointer to a Swift object. Return >= 0 results, or -1 with
   the error object on top of the stack. */
typedef int (*coordlua_Dispatch)(lua_State *L, void *box);
typedef int (*coordlua_MethodDispatch)(lua_State *L, void *box, void *object);
typedef void (*coordlua_Release)(void *box);
typedef void (*coordlua_Warn)(void *owner, const char *msg, int tocont);

typedef struct coordlua_Runtime {
    coordlua_Dispatch dispatch;
    coordlua_MethodDispatch methodDispatch;
    coordlua_Release release;
    coordlua_Warn warn;
    void *owner;                 /* unretained pointer to the Swift core; valid while the state is open */
    lua_State *current;          /* the thread that is running now (main thread, or a callback's thread) */
    lua_CFunction coroutineResume; /* the coroutine library's resume, which coroutines.c's wrappers call */
    size_t used;                 /* bytes currently allocated by this state */
    size_t peak;                 /* high-water mark of `used` */
    size_t limit;                /* 0: no limit */
    int enforce;                 /* the limit applies only while Lua code runs */
    /* Running out of memory while Swift code makes Lua values must not raise over Swift frames (a longjmp
       skips Swift's releases and exclusivity bookkeeping). So a reserve is kept (one block per thread, shared by
       the states that thread runs): when the system
       refuses an allocation made while Swift code runs (enforce == 0), the reserve is freed, the allocation
       tried again, and memoryShort set; Swift code checks it between values and raises "not enough memory"
       itself (LuaStack.checkMemory), and the trampolines raise it from C when a Swift function returns.
       Between two checks Swift makes at most one value of bounded size (larger strings and tables are
       made in protected mode: coordlua_ppushlstring, coordlua_pcreatetable), so the reserve covers it. */
    int reserveHeld;             /* the running thread's COORDLUA_RESERVE bytes are kept back for this state; 0 while spent */
    int memoryShort;             /* the reserve was spent or an allocation for Swift failed: Swift must stop */
    size_t systemLimit;          /* for tests: the system's memory as this state sees it (used + reserve); 0: none */
    int protectedPush;           /* inside coordlua_ppushlstring / coordlua_pcreatetable: a failure raises into C */
    size_t unprotectedFailures;  /* allocations refused while Swift code ran with no reserve left (each raised over Swift) */
    int tracebacks;              /* the message handler records a traceback */
    long long budget;            /* instructions left while `budgeted` */
    long long budgetTotal;       /* the budget a top-level call started with (for the message) */
    int budgeted;
    int hookCount;               /* instructions between two count hooks */
    long long deadline;          /* CLOCK_MONOTONIC nanoseconds after which running code stops ("timed out"); 0: none */
    long long credit;            /* steps a C function may still work before coordlua_spend checks the limits (coordlua_hooks.h) */
    void *cancel;                /* a cancellation flag (coordlua_cancel_new) another thread may set: running code stops ("cancelled"); NULL: none */
    size_t sharedChunkLoads;     /* chunks this state took compiled from the process's store (coordlua_chunks.h) */
    int binaryChunks;            /* binary chunks load (the debug library is open: the scripts are trusted with everything) */
    coordlua_Pool pool;          /* the state's small blocks (coordlua_pool.h), given back by coordlua_release_memory */
    coordlua_Arena arena;        /* the state's whole heap, when it has one (coordlua_arena.h): then the pool is unused */
    coordlua_Ledger ledger;      /* the boxes made and collected while an image is kept (coordlua_arena.h) */
    int refuseNext;              /* the next allocation that grows is refused (coordlua_collect_without_finalizers) */
    volatile sig_atomic_t interruptRequested;
    volatile sig_atomic_t stopArmed; /* a deadline passed or the cancel flag was set while code ran: every thread it resumes stops (coordlua_watch) */
    int watched;                 /* on its thread's watch list (coordlua_watch) */
    lua_State *watchedThread;    /* the thread it was watched with, when no other runs */
    char tracebackKey;           /* address used as a registry key */
} coordlua_Runtime;

static inline coordlua_Runtime *coordlua_runtime(lua_State *L) {
    return *(coordlua_Runtime **)lua_getextraspace(L);
}

/* ---- allocator ---- */

void *coordlua_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

/* The reserve's size: more than the largest value Swift makes between two checks (a string of
   COORDLUA_PROTECTED_STRING bytes, a table of COORDLUA_PROTECTED_TABLE slots) with Lua's own growth beside it. */
#define COORDLUA_RESERVE (1 << 20)
/* Strings longer than this and tables presized for more slots are made in protected mode. */
#define COORDLUA_PROTECTED_STRING (64 << 10)
#define COORDLUA_PROTECTED_TABLE 4096

/* Takes the reserve back when it was spent (or the thread has none yet) and the system has the memory
   again (called as Lua code is entered from Swift); 1 when the reserve is in place. Cheap when it is. */
int coordlua_restore_reserve(coordlua_Runtime *rt);

/* Lets go of the reserve when the state closes (the thread's block stays for its other states). */
void coordlua_free_reserve(coordlua_Runtime *rt);

lua_State *coordlua_newstate(coordlua_Runtime *rt);

/* Gives back the pages of the state's small blocks, or its arena: after lua_close (or a failed
   coordlua_newstate). */
void coordlua_release_memory(coordlua_Runtime *rt);

/* An image of the state's heap (a state with an arena), with the memory limit's accounting: 1, or 0 when
   no memory was left for the copy. */
int coordlua_checkpoint(coordlua_Runtime *rt, coordlua_ArenaImage *image);

/* Puts the state's heap back as `image` holds it, and the accounting; the running thread is the main one
   again. Only between calls: no Lua or C frame of the state may be running. */
void coordlua_restore(coordlua_Runtime *rt, const coordlua_ArenaImage *image);

/* A box was made holding a retained object: noted while an image is kept. */
void coordlua_box_made(coordlua_Runtime *rt, void *box);

/* A box was collected: its object is released, or the release deferred while an image is kept. */
void coordlua_box_collected(coordlua_Runtime *rt, void *box);

/* Starts noting boxes (the first image is kept). */
void coordlua_ledger_start(coordlua_Runtime *rt);

/* A restore to an image taken when the logs held `made` and `collected` boxes: the boxes made since are
   released, the collections since forgotten. 0 when a note was lost (the restore cannot be exact). */
int coordlua_ledger_rewind(coordlua_Runtime *rt, size_t made, size_t collected);

/* No image is kept any more: the deferred releases are done, the notes dropped. */
void coordlua_ledger_settle(coordlua_Runtime *rt);

/* A full collection that runs no finalizer: Lua's emergency collection, the one it makes when an allocation
   fails, brought about by refusing one allocation (which Lua then makes again, after collecting). Unreachable
   objects with a finalizer stay, waiting for the next collection that runs finalizers; their entries in weak
   tables are gone. Between calls only (no Lua code of the state running). 1 when it ran; 0 when the
   allocation failed again (the state is out of memory), nothing changed but what was collected. */
int coordlua_collect_without_finalizers(lua_State *L);

/* An io function that opens a stream (upvalue 1: the io library's; upvalue 2: true for io.popen), in a state
   whose heap is imaged: the streams among its results close through the box ledger (coordlua_arena.h), so
   that a restore closes those opened since and never leaves a handle it brings back with its stream closed. */
int coordlua_io_opening(lua_State *L);

#endif /* COORDLUA_RUNTIME_H */
