/* CCoordinatorLuaGlue: the functions coordlua_trampolines.h declares (see there for what each does). */
#include "CCoordinatorLuaGlue.h"

/* A Swift function ran short of memory (see coordlua_Runtime.reserveHeld): its results, if any, are dropped and
   "not enough memory" raised from here, in C. The message is Lua's own (a fixed string): pushing it
   allocates nothing. */
static int coordlua_raise_memory_short(lua_State *L, coordlua_Runtime *rt, int n) {
    rt->memoryShort = 0;
    if (n < 0) return lua_error(L);
    lua_settop(L, 0);
    lua_pushliteral(L, "not enough memory");
    return lua_error(L);
}

int coordlua_trampoline(lua_State *L) {
    coordlua_Runtime *rt = coordlua_runtime(L);
    void **slot = (void **)lua_touserdata(L, lua_upvalueindex(1));
    void *box = slot != NULL ? *slot : NULL;
    if (box == NULL) return luaL_error(L, "Swift function was released");
    lua_State *savedCurrent = rt->current;
    int savedEnforce = rt->enforce;
    rt->current = L;
    rt->enforce = 0;
    int n = rt->dispatch(L, box);
    rt->current = savedCurrent;
    rt->enforce = savedEnforce;
    if (rt->memoryShort) return coordlua_raise_memory_short(L, rt, n);
    if (n < 0) return lua_error(L);
    return n;
}

int coordlua_dispatch_method(lua_State *L, coordlua_Box *method, coordlua_Box *self) {
    coordlua_Runtime *rt = coordlua_runtime(L);
    lua_State *savedCurrent = rt->current;
    int savedEnforce = rt->enforce;
    rt->current = L;
    rt->enforce = 0;
    int n = rt->methodDispatch(L, method->object, self->object);
    rt->current = savedCurrent;
    rt->enforce = savedEnforce;
    if (rt->memoryShort) return coordlua_raise_memory_short(L, rt, n);
    if (n < 0) return lua_error(L);
    return n;
}

coordlua_Box *coordlua_method_self(lua_State *L, coordlua_Box *method, coordlua_Box *self, int *released) {
    *released = 0;
    /* (a light userdata has no length) */
    if (self == NULL || lua_rawlen(L, 1) != sizeof(coordlua_Box) || self->tag != method->tag) return NULL;
    if (self->object == NULL) { *released = 1; return NULL; }
    return self;
}

int coordlua_method_trampoline(lua_State *L) {
    coordlua_Box *method = (coordlua_Box *)lua_touserdata(L, lua_upvalueindex(1));
    coordlua_Box *self = (coordlua_Box *)lua_touserdata(L, 1);
    int standIn = 0;
    if (self == NULL && lua_type(L, 1) == LUA_TTABLE && lua_type(L, lua_upvalueindex(4)) == LUA_TSTRING) {
        lua_pushvalue(L, lua_upvalueindex(4));
        lua_rawget(L, 1);
        lua_replace(L, 1);
        self = (coordlua_Box *)lua_touserdata(L, 1);
        standIn = 1;
    }
    if (method == NULL || method->object == NULL) return luaL_error(L, "Swift method was released");
    int released;
    self = coordlua_method_self(L, method, self, &released);
    /* upvalues 2 and 3: the method's and the class's names, joined only for these messages */
    if (released)
        return luaL_error(L, "'%s.%s' called on a released object", lua_tostring(L, lua_upvalueindex(3)),
                          lua_tostring(L, lua_upvalueindex(2)));
    if (self == NULL)
        return luaL_error(L, "bad self for '%s.%s' (expected %s, got %s); call it with ':'",
                          lua_tostring(L, lua_upvalueindex(3)), lua_tostring(L, lua_upvalueindex(2)),
                          lua_tostring(L, lua_upvalueindex(3)), standIn ? "table" : luaL_typename(L, 1));
    return coordlua_dispatch_method(L, method, self);
}

int coordlua_dispatch_fallback(lua_State *L, int box, const char *metamethod) {
    coordlua_Box *method = (coordlua_Box *)lua_touserdata(L, lua_upvalueindex(box));
    if (method == NULL || method->object == NULL) return luaL_error(L, "Swift method was released");
    int released;
    coordlua_Box *self = coordlua_method_self(L, method, (coordlua_Box *)lua_touserdata(L, 1), &released);
    if (self == NULL)
        return luaL_error(L, "%s of %s used on %s", metamethod, lua_tostring(L, lua_upvalueindex(3)),
                          released ? "a released object" : luaL_typename(L, 1));
    return coordlua_dispatch_method(L, method, self);
}

void *coordlua_boxed_object(lua_State *L, int idx, const void *tag) {
    coordlua_Box *box = (coordlua_Box *)lua_touserdata(L, idx);
    if (box == NULL || lua_type(L, idx) != LUA_TUSERDATA || lua_rawlen(L, idx) != sizeof(coordlua_Box)) return NULL;
    return box->tag == tag ? box->object : NULL;
}

const void *coordlua_box_tag(lua_State *L, int idx) {
    coordlua_Box *box = (coordlua_Box *)lua_touserdata(L, idx);
    if (box == NULL || lua_type(L, idx) != LUA_TUSERDATA || lua_rawlen(L, idx) != sizeof(coordlua_Box)) return NULL;
    return box->tag;
}

void coordlua_pushbox(lua_State *L, void *object, const void *tag) {
    coordlua_Box *box = (coordlua_Box *)lua_newuserdatauv(L, sizeof(coordlua_Box), 0);
    box->object = object;
    box->tag = tag;
    coordlua_box_made(coordlua_runtime(L), object);
}

int coordlua_box_gc(lua_State *L) {
    void **block = (void **)lua_touserdata(L, 1);
    if (block != NULL && *block != NULL) {
        void *box = *block;
        *block = NULL;
        coordlua_box_collected(coordlua_runtime(L), box);
    }
    return 0;
}

int coordlua_index(lua_State *L) {
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(2)) == LUA_TFUNCTION) {
        lua_pushvalue(L, 1);
        lua_call(L, 1, 1);
        return 1;
    }
    lua_pop(L, 1);
    if (lua_type(L, lua_upvalueindex(4)) == LUA_TUSERDATA) {
        lua_settop(L, 2);
        return coordlua_dispatch_fallback(L, 4, "__index") > 0 ? 1 : 0;
    }
    return 0;
}

int coordlua_newindex(lua_State *L) {
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) == LUA_TFUNCTION) {
        lua_pushvalue(L, 1);
        lua_pushvalue(L, 3);
        lua_call(L, 2, 0);
        return 0;
    }
    lua_pop(L, 1);
    if (lua_type(L, lua_upvalueindex(2)) == LUA_TUSERDATA) {
        lua_settop(L, 3);
        coordlua_dispatch_fallback(L, 2, "__newindex");
        return 0;
    }
    if (lua_type(L, 2) == LUA_TSTRING)
        return luaL_error(L, "%s has no writable field '%s'", lua_tostring(L, lua_upvalueindex(3)), lua_tostring(L, 2));
    return luaL_error(L, "%s has no writable field of type %s", lua_tostring(L, lua_upvalueindex(3)), luaL_typename(L, 2));
}
