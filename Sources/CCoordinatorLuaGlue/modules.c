/* CCoordinatorLuaGlue: where a sandbox's `require` may read (see coordlua_modules.h). */
#include "CCoordinatorLuaGlue.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

int coordlua_readable(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return 0;
    struct stat info;
    int regular = fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
    close(fd);
    return regular;
}

/* ---- a descriptor Lua closes: the slot's __close (and __gc) closes it, so that an error raised while it is
   open (a memory limit, the instruction budget, a refusal) never leaks it ---- */

static const char descriptorMeta[] = "coordlua.descriptor";

static int closeDescriptor(lua_State *L) {
    int *fd = (int *)lua_touserdata(L, 1);
    if (fd != NULL && *fd >= 0) {
        close(*fd);
        *fd = -1;
    }
    return 0;
}

/* Pushes a to-be-closed slot holding no descriptor yet (-1); returns where to put one. */
static int *pushDescriptorSlot(lua_State *L) {
    int *fd = (int *)lua_newuserdatauv(L, sizeof(int), 0);
    *fd = -1;
    if (luaL_newmetatable(L, descriptorMeta)) {
        lua_pushcfunction(L, closeDescriptor);
        lua_setfield(L, -2, "__close");
        lua_pushcfunction(L, closeDescriptor);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    lua_toclose(L, -1);
    return fd;
}

/* The real path of the folder at the top of the stack, pushed (the folder as given when it cannot be
   resolved: nothing is found there then). */
static const char *pushRealFolder(lua_State *L, const char *folder) {
    char *real = realpath(folder, NULL);
    if (real == NULL) return lua_pushstring(L, folder);
    const char *pushed = lua_pushstring(L, real);
    free(real);
    return pushed;
}

/* Whether `path` is `folder` itself or inside it (both resolved). */
static int inside(const char *path, const char *folder) {
    size_t length = strlen(folder);
    if (length == 1 && folder[0] == '/') return path[0] == '/';
    return strncmp(path, folder, length) == 0 && (path[length] == '/' || path[length] == '\0');
}

/* The resolved path of the open descriptor `fd` (the file it reads, whatever was renamed since), pushed;
   NULL when it cannot be told. */
static const char *pushDescriptorPath(lua_State *L, int fd) {
    char link[64], target[PATH_MAX + 1];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, target, PATH_MAX);
    if (length <= 0) return NULL;
    return lua_pushlstring(L, target, (size_t)length);
}

/* Opens the candidate `path` of module `name` in `folder` (resolved as `real`) into `*fd`. 0: it is not there;
   1: opened, a regular file inside the folder. Raises an error naming the file when it is there but refused. */
static int openModule(lua_State *L, const char *name, const char *path, const char *real, int *fd) {
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (*fd < 0) {
        int error = errno;
        if (error == ENOENT || error == ENOTDIR) return 0;
        struct stat info;
        if (error == ELOOP && lstat(path, &info) == 0 && S_ISLNK(info.st_mode))
            return luaL_error(L, "module '%s': %s is a symbolic link, and the sandbox loads only regular files inside the app's folder", name, path);
        return luaL_error(L, "module '%s': cannot open %s: %s", name, path, strerror(error));
    }
    struct stat info;
    if (fstat(*fd, &info) != 0) return luaL_error(L, "module '%s': cannot read %s: %s", name, path, strerror(errno));
    if (!S_ISREG(info.st_mode)) {
        const char *kind = S_ISDIR(info.st_mode) ? "a folder" : S_ISFIFO(info.st_mode) ? "a FIFO"
            : S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode) ? "a device" : S_ISSOCK(info.st_mode) ? "a socket" : "not a file";
        return luaL_error(L, "module '%s': %s is %s, and the sandbox loads only regular files inside the app's folder", name, path, kind);
    }
    const char *resolved = pushDescriptorPath(L, *fd);
    if (resolved == NULL) {
        char *fallback = realpath(path, NULL);
        if (fallback == NULL) return luaL_error(L, "module '%s': cannot tell where %s is", name, path);
        resolved = lua_pushstring(L, fallback);
        free(fallback);
    }
    if (!inside(resolved, real))
        return luaL_error(L, "module '%s': %s is %s, outside the app's folder %s: the sandbox loads only files inside it", name, path, resolved, real);
    lua_pop(L, 1);
    return 1;
}

/* Reads the open regular file `fd` (`size` bytes by fstat) into a block the memory limit counts, pushed as
   a userdata; each byte a step of the budget. Its length in `*length` (shorter when the file shrank). */
static char *readModule(lua_State *L, int fd, const char *name, const char *path, size_t *length) {
    struct stat info;
    if (fstat(fd, &info) != 0) { luaL_error(L, "module '%s': cannot read %s: %s", name, path, strerror(errno)); return NULL; }
    size_t size = (size_t)info.st_size;
    char *bytes = (char *)lua_newuserdatauv(L, size > 0 ? size : 1, 0); /* over the memory limit: "not enough memory" */
    size_t done = 0;
    while (done < size) {
        ssize_t got = read(fd, bytes + done, size - done);
        if (got < 0) {
            if (errno == EINTR) continue;
            luaL_error(L, "module '%s': cannot read %s: %s", name, path, strerror(errno));
            return NULL;
        }
        if (got == 0) break;
        done += (size_t)got;
    }
    coordlua_step(L, (long long)done); /* a step a byte: the budget, the deadline, a cancel */
    *length = done;
    return bytes;
}

int coordlua_searcher_sandboxed(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    if (lua_getfield(L, LUA_REGISTRYINDEX, "coordlua.moduleFolders") != LUA_TTABLE) { /* 2 */
        lua_pushliteral(L, "no module folder in the sandbox");
        return 1;
    }
    const char *relative = luaL_gsub(L, name, ".", "/"); /* 3 */
    int *fd = pushDescriptorSlot(L); /* 4 */
    luaL_Buffer tried;
    lua_Integer folders = luaL_len(L, 2);
    for (lua_Integer i = 1; i <= folders; i++) {
        if (lua_rawgeti(L, 2, i) != LUA_TSTRING) { lua_pop(L, 1); continue; }
        const char *folder = lua_tostring(L, -1);
        const char *real = pushRealFolder(L, folder);
        static const char *const forms[] = { "%s/%s.lua", "%s/%s/init.lua" };
        for (int form = 0; form < 2; form++) {
            const char *path = lua_pushfstring(L, forms[form], folder, relative);
            if (openModule(L, name, path, real, fd)) {
                size_t length;
                char *bytes = readModule(L, *fd, name, path, &length);
                close(*fd);
                *fd = -1;
                size_t start = coordlua_chunk_text(bytes, &length);
                const char *chunkname = lua_pushfstring(L, "@%s", path);
                if (coordlua_load_shared(L, bytes + start, length - start, chunkname) != LUA_OK)
                    return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, path, lua_tostring(L, -1));
                lua_pushvalue(L, -4); /* the path, after the loader */
                return 2;
            }
            lua_pop(L, 1); /* the path */
        }
        lua_pop(L, 2); /* the folder, resolved and as given */
    }
    /* Found nowhere: the files tried, as package.searchpath lists them (require puts each searcher's list
       on a line of its message). */
    luaL_buffinit(L, &tried);
    for (lua_Integer i = 1; i <= folders; i++) {
        if (lua_rawgeti(L, 2, i) != LUA_TSTRING) { lua_pop(L, 1); continue; }
        const char *folder = lua_tostring(L, -1);
        lua_pushfstring(L, "%sno file '%s/%s.lua'\n\tno file '%s/%s/init.lua'", i > 1 ? "\n\t" : "", folder, relative, folder, relative);
        lua_remove(L, -2);
        luaL_addvalue(&tried);
    }
    luaL_pushresult(&tried);
    return 1;
}
