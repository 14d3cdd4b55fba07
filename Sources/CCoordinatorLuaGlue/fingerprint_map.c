/* CCoordinatorLuaGlue: the numbers the state identity's walk gives objects by address (see fingerprint_parts.h). */
#include "fingerprint_parts.h"

const char coordlua_fp_maps_key = 'm';

static fp_slots *fp_slots_new(lua_State *L, size_t capacity) {
    fp_slots *data = lua_newuserdatauv(L, sizeof(fp_slots) + capacity * sizeof(fp_slot), 0);
    memset(data->slots, 0, capacity * sizeof(fp_slot));
    data->mask = capacity - 1;
    data->stamp = 1;
    return data;
}

/* Map `index` of the state's maps (the table at `maps`), emptied: its userdata pushed and anchored at m->at. */
void coordlua_fp_map_open(lua_State *L, fp_map *m, int maps, int index, size_t capacity) {
    m->index = index;
    m->count = 0;
    if (lua_rawgeti(L, maps, index) == LUA_TUSERDATA) {
        m->data = lua_touserdata(L, -1);
        if (++m->data->stamp == 0) { /* the stamps went round: empty it for real */
            memset(m->data->slots, 0, (m->data->mask + 1) * sizeof(fp_slot));
            m->data->stamp = 1;
        }
    } else {
        lua_pop(L, 1);
        m->data = fp_slots_new(L, capacity);
        lua_pushvalue(L, -1);
        lua_rawseti(L, maps, index);
    }
    m->at = lua_gettop(L);
}

void coordlua_fp_map_put(lua_State *L, fp_map *m, int maps, const void *key, lua_Integer value) {
    fp_slots *d = m->data;
    if ((m->count + 1) * 2 > d->mask + 1) {
        size_t capacity = (d->mask + 1) * 2;
        fp_slots *grown = fp_slots_new(L, capacity);
        grown->stamp = d->stamp;
        for (size_t i = 0; i <= d->mask; i++) {
            if (d->slots[i].stamp != d->stamp) continue;
            size_t j = fp_map_place(grown->mask, d->slots[i].key);
            while (grown->slots[j].stamp == grown->stamp) j = (j + 1) & grown->mask;
            grown->slots[j] = d->slots[i];
        }
        lua_pushvalue(L, -1);
        lua_rawseti(L, maps, m->index);
        lua_replace(L, m->at); /* the old slots go with their userdata */
        m->data = d = grown;
    }
    size_t i = fp_map_place(d->mask, key);
    while (d->slots[i].stamp == d->stamp) i = (i + 1) & d->mask;
    d->slots[i].key = key;
    d->slots[i].value = value;
    d->slots[i].stamp = d->stamp;
    m->count++;
}

/* Empties a map within a walk (the registry's items each number their own objects). */
void coordlua_fp_map_clear(fp_map *m) {
    if (m->count == 0) return;
    if (++m->data->stamp == 0) {
        memset(m->data->slots, 0, (m->data->mask + 1) * sizeof(fp_slot));
        m->data->stamp = 1;
    }
    m->count = 0;
}
