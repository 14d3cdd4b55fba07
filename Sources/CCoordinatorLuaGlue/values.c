/* CCoordinatorLuaGlue: the functions coordlua_values.h declares (see there for what each does). */
#include "CCoordinatorLuaGlue.h"

static uint32_t coordlua_image_u32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }

int coordlua_image_matches(lua_State *L, int idx, const unsigned char *p, int depth) {
    int type = lua_type(L, idx);
    switch (p[0]) {
    case 'f': return type == LUA_TBOOLEAN && !lua_toboolean(L, idx);
    case 't': return type == LUA_TBOOLEAN && lua_toboolean(L, idx);
    case 'i': {
        lua_Integer v; memcpy(&v, p + 1, 8);
        return type == LUA_TNUMBER && lua_isinteger(L, idx) && lua_tointegerx(L, idx, NULL) == v;
    }
    case 'd': {
        if (type != LUA_TNUMBER || lua_isinteger(L, idx)) return 0;
        lua_Number d = lua_tonumberx(L, idx, NULL);
        return memcmp(&d, p + 1, 8) == 0;
    }
    case 's': {
        if (type != LUA_TSTRING) return 0;
        size_t len; const char *s = lua_tolstring(L, idx, &len);
        return len == coordlua_image_u32(p + 1) && memcmp(s, p + 5, len) == 0;
    }
    case 'l': case 'r': {
        int list = p[0] == 'l';
        uint32_t n = coordlua_image_u32(p + 1);
        if (type != LUA_TTABLE || depth >= 64 || !lua_checkstack(L, 3)) return 0;
        if (list && (n == 0 || lua_rawlen(L, idx) != n)) return 0;
        idx = lua_absindex(L, idx);
        const unsigned char *items = p + 5, *next = items;
        uint32_t count = 0;
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            const unsigned char *value = NULL;
            if (++count <= n) {
                if (list) {
                    if (lua_isinteger(L, -2) && lua_tointegerx(L, -2, NULL) == (lua_Integer)count) value = next + 4;
                    next += 4 + coordlua_image_u32(next);
                } else if (lua_type(L, -2) == LUA_TSTRING) {
                    size_t klen; const char *key = lua_tolstring(L, -2, &klen);
                    const unsigned char *q = items;
                    for (uint32_t i = 0; i < n; i++) {
                        uint32_t kl = coordlua_image_u32(q);
                        const unsigned char *v = q + 4 + kl;
                        if (kl == klen && memcmp(q + 4, key, kl) == 0) { value = v + 4; break; }
                        q = v + 4 + coordlua_image_u32(v);
                    }
                }
            }
            if (value == NULL || !coordlua_image_matches(L, -1, value, depth + 1)) { lua_settop(L, -3); return 0; }
            lua_settop(L, -2);
        }
        return count == n;
    }
    default: return 0;
    }
}

int coordlua_number_format(double d, char *buffer, int size) {
    if (size < 3) return 0;
    int len = snprintf(buffer, (size_t)size - 2, LUA_NUMBER_FMT, d);
    if (len < 0) return 0;
    if (len > size - 3) len = size - 3;
    if (buffer[strspn(buffer, "-0123456789")] == '\0') { /* looks like an int */
        buffer[len++] = '.';
        buffer[len++] = '0';
        buffer[len] = '\0';
    }
    return len;
}
