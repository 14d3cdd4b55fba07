/*
 * CCoordinatorLuaGlue: the C side of the Lua bridge (CoordinatorLua's only C), over Lua's C API (the system library CCoordinatorLua).
 *
 * Swift cannot import Lua's function-like macros or call variadic C functions, and it must never be
 * unwound by longjmp (lua_error jumps). A regular C target, so that SwiftPM rebuilds what uses it when any
 * of it changes: the functions live in the .c files beside this folder, except the one-line wrappers of
 * macros and API calls that Swift calls on every value it reads or pushes (coordlua_values.h, and
 * coordlua_runtime()), which stay `static inline` here so that they cost no call. The rules it implements:
 *
 *  - Swift callbacks are reached through coordlua_trampoline / coordlua_method_trampoline. The Swift dispatcher
 *    returns a result count, or -1 with the error object on top of the stack; the C trampoline raises
 *    that error *after* the Swift frame has returned. No jump ever crosses Swift code.
 *  - Lua API calls that can raise (metamethods on get/set/len/concat/tostring) have protected variants
 *    below (coordlua_p*), which run them under lua_pcall.
 *  - The allocator counts bytes and enforces a limit only while Lua code runs (`enforce`), so a push done
 *    by Swift code never raises a memory error in the middle of a Swift frame; Lua code that exceeds the
 *    limit gets an ordinary "not enough memory" error.
 *  - Hooks (instruction budget, interrupt) are installed only while needed: an idle hook in Lua 5.4 makes
 *    every instruction trap, which roughly doubles interpreter cost.
 *
 * The parts, included below in order (each uses the ones before it): coordlua_pool.h (a state's small
 * blocks), coordlua_arena.h (a heap in one region, which a checkpoint copies), coordlua_runtime.h (the runtime record and the allocator), coordlua_trampolines.h, coordlua_errors.h, coordlua_hooks.h (hooks, Ctrl-C, introspection,
 * warnings), coordlua_calls.h (protected calls), coordlua_chunks.h (compiled chunks shared by the process's
 * states), coordlua_modules.h (where a sandbox's `require` may read), coordlua_values.h (weak maps, macros, data images),
 * coordlua_fingerprint.h (state fingerprints), coordlua_patterns.h (pattern matching whose work counts).
 */
#ifndef COORDLUA_GLUE_H
#define COORDLUA_GLUE_H

#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
#include <signal.h>
#include <sys/time.h>
#include <pthread.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <stdint.h>
#include <stdatomic.h>

#include "coordlua_pool.h"
#include "coordlua_arena.h"
#include "coordlua_runtime.h"
#include "coordlua_trampolines.h"
#include "coordlua_errors.h"
#include "coordlua_hooks.h"
#include "coordlua_calls.h"
#include "coordlua_chunks.h"
#include "coordlua_modules.h"
#include "coordlua_values.h"
#include "coordlua_fingerprint.h"
#include "coordlua_patterns.h"

#endif /* COORDLUA_GLUE_H */
