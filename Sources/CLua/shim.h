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
 *
 * The parts, included below in order (each uses the ones before it): clua_runtime.h (the runtime record
 * and the allocator), clua_trampolines.h, clua_errors.h, clua_hooks.h (hooks, Ctrl-C, introspection,
 * warnings), clua_calls.h (protected calls), clua_values.h (weak maps, macros, data images).
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

#include "clua_runtime.h"
#include "clua_trampolines.h"
#include "clua_errors.h"
#include "clua_hooks.h"
#include "clua_calls.h"
#include "clua_values.h"

#endif /* CLUA_SHIM_H */
