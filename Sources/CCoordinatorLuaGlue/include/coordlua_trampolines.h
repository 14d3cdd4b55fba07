/* CCoordinatorLua: trampolines from Lua into Swift: closures, methods, box userdata, class metamethods. Part of CCoordinatorLuaGlue.h, which includes the parts in order: not to be included alone. */
#ifndef COORDLUA_TRAMPOLINES_H
#define COORDLUA_TRAMPOLINES_H

/* ---- trampolines ---- */

/* upvalue 1: a box userdata whose block holds the Swift closure's pointer (NULL once released). */
int coordlua_trampoline(lua_State *L);

/* Every box userdata (Swift closures, Swift methods, Swift objects) is a block of two words:
   [0] the retained Swift object (NULL once released), [1] a class tag (NULL for closures). An object's tag
   names its registered class; a method's box carries the tag its `self` must have. */
typedef struct coordlua_Box { void *object; const void *tag; } coordlua_Box;

/* Runs the Swift method in box `method` on `self` (both checked) with the arguments on the stack; raises
   its error after the Swift frame has returned. */
int coordlua_dispatch_method(lua_State *L, coordlua_Box *method, coordlua_Box *self);

/* The userdata at 1 as `self` for the method in box `method`, or NULL when it is no object of the method's
   class (or was released: `released` says so). */
coordlua_Box *coordlua_method_self(lua_State *L, coordlua_Box *method, coordlua_Box *self, int *released);

/* upvalue 1: box of the method; upvalue 2: "Class.method"; upvalue 3: "Class", both for messages;
   upvalue 4: the stand-in field name, or nil. Checks `self` (size and class tag) before any Swift code runs.
   A table may stand for the object when the class names a stand-in field: its raw value there is `self`. */
int coordlua_method_trampoline(lua_State *L);

/* A class's __index or __newindex fallback (the box of a Swift method, upvalue `box`), run directly by the
   metamethod on (self, key[, value]): no Lua call in between. */
int coordlua_dispatch_fallback(lua_State *L, int box, const char *metamethod);

/* The Swift object of a box userdata at idx whose tag is `tag`, or NULL. */
void *coordlua_boxed_object(lua_State *L, int idx, const void *tag);

/* The tag of a box userdata at idx, or NULL. */
const void *coordlua_box_tag(lua_State *L, int idx);

/* Pushes a new box userdata holding `object` (already retained) with `tag`. */
void coordlua_pushbox(lua_State *L, void *object, const void *tag);

/* __gc of every box userdata (Swift closures and Swift objects): releases the Swift reference once. */
int coordlua_box_gc(lua_State *L);

/* __index for Swift classes: upvalue 1 methods, 2 getters (called with self), 3 class name, 4 the
   fallback's method box or nil. */
int coordlua_index(lua_State *L);

/* __newindex for Swift classes: upvalue 1 setters (self, value), 2 the fallback's method box or nil, 3
   class name. */
int coordlua_newindex(lua_State *L);

#endif /* COORDLUA_TRAMPOLINES_H */
