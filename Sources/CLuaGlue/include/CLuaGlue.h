/*
 * CLuaGlue: the C side of the Lua bridge (LuaKit's only C), over Lua's C API (the system library CLua).
 *
 * Swift cannot import Lua's function-like macros or call variadic C functions, and it must never be
 * unwound by longjmp (lua_error jumps). A regular C target, so that SwiftPM rebuilds what uses it when any
 * of it changes: the functions live in the .c files beside this folder, except the one-line wrappers of
 * macros and API calls that Swift calls on every value it reads or pushes (clua_values.h, and
 * clua_runtime()), which stay `static inline` here so that they cost no call. The rules it implements:
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
#ifndef CLUA_GLUE_H
#define CLUA_GLUE_H

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

#include "clua_runtime.h"
#include "clua_trampolines.h"
#include "clua_errors.h"
#include "clua_hooks.h"
#include "clua_calls.h"
#include "clua_values.h"

#endif /* CLUA_GLUE_H */
