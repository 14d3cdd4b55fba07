// libpq through dlopen (include/coordpq.h says why). The prototypes are libpq-fe.h's, written out so that
// building coordrun needs no PostgreSQL headers; libpq.so.5's ABI has kept them since PostgreSQL 8.
#include "coordpq.h"
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum { CONNECTION_OK = 0, PGRES_COMMAND_OK = 1, PGRES_TUPLES_OK = 2 };
typedef struct { char *relname; int be_pid; char *extra; void *next; } pg_notify;

static struct {
    coordpq_conn *(*connectdb)(const char *);
    int (*status)(const coordpq_conn *);
    char *(*error_message)(const coordpq_conn *);
    void (*finish)(coordpq_conn *);
    coordpq_result *(*exec)(coordpq_conn *, const char *);
    coordpq_result *(*exec_params)(coordpq_conn *, const char *, int, const unsigned *, const char *const *, const int *, const int *, int);
    int (*result_status)(const coordpq_result *);
    char *(*result_error_message)(const coordpq_result *);
    int (*ntuples)(const coordpq_result *);
    int (*nfields)(const coordpq_result *);
    char *(*getvalue)(const coordpq_result *, int, int);
    int (*getisnull)(const coordpq_result *, int, int);
    void (*clear)(coordpq_result *);
    int (*socket)(const coordpq_conn *);
    int (*consume_input)(coordpq_conn *);
    pg_notify *(*notifies)(coordpq_conn *);
    void (*freemem)(void *);
} pq;

static const char *load_error = "libpq is not loaded";
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libpq.5.dylib", RTLD_NOW | RTLD_LOCAL);
    if (!library) { load_error = "cannot load libpq, PostgreSQL's client library (Debian: apt-get install libpq5)"; return; }
#define LOAD(field, name) if (!(*(void **)&pq.field = dlsym(library, name))) { load_error = "libpq lacks " name; return; }
    LOAD(connectdb, "PQconnectdb") LOAD(status, "PQstatus") LOAD(error_message, "PQerrorMessage") LOAD(finish, "PQfinish")
    LOAD(exec, "PQexec") LOAD(exec_params, "PQexecParams") LOAD(result_status, "PQresultStatus")
    LOAD(result_error_message, "PQresultErrorMessage") LOAD(ntuples, "PQntuples") LOAD(nfields, "PQnfields")
    LOAD(getvalue, "PQgetvalue") LOAD(getisnull, "PQgetisnull") LOAD(clear, "PQclear") LOAD(socket, "PQsocket")
    LOAD(consume_input, "PQconsumeInput") LOAD(notifies, "PQnotifies") LOAD(freemem, "PQfreemem")
#undef LOAD
    load_error = NULL;
}

const char *coordpq_load(void) { pthread_once(&once, load); return load_error; }

coordpq_conn *coordpq_connect(const char *conninfo) { return pq.connectdb(conninfo); }
int coordpq_connected(const coordpq_conn *conn) { return conn && pq.status(conn) == CONNECTION_OK; }
const char *coordpq_error(const coordpq_conn *conn) { return conn ? pq.error_message(conn) : "out of memory"; }
void coordpq_finish(coordpq_conn *conn) { if (conn) pq.finish(conn); }

coordpq_result *coordpq_exec(coordpq_conn *conn, const char *sql, int count, const char *packed, const int *nulls) {
    if (count < 0) return NULL;
    const char **values = calloc(count > 0 ? (size_t)count : 1, sizeof *values);
    if (!values) return NULL;
    for (int i = 0; i < count; i++) {
        values[i] = nulls[i] ? NULL : packed;
        packed += strlen(packed) + 1;
    }
    coordpq_result *result = pq.exec_params(conn, sql, count, NULL, values, NULL, NULL, 0);
    free(values);
    return result;
}
coordpq_result *coordpq_exec_script(coordpq_conn *conn, const char *sql) { return pq.exec(conn, sql); }
int coordpq_succeeded(const coordpq_result *result) {
    if (!result) return 0;
    int status = pq.result_status(result);
    return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}
const char *coordpq_result_error(const coordpq_result *result) { return result ? pq.result_error_message(result) : "out of memory"; }
int coordpq_rows(const coordpq_result *result) { return pq.ntuples(result); }
int coordpq_columns(const coordpq_result *result) { return pq.nfields(result); }
const char *coordpq_value(const coordpq_result *result, int row, int column) {
    return pq.getisnull(result, row, column) ? NULL : pq.getvalue(result, row, column);
}
void coordpq_clear(coordpq_result *result) { if (result) pq.clear(result); }

int coordpq_wait(coordpq_conn *conn, int milliseconds) {
    int came = 0;
    for (int round = 0; round < 2; round++) {
        if (!pq.consume_input(conn)) return -1;
        pg_notify *notify;
        while ((notify = pq.notifies(conn))) { pq.freemem(notify); came = 1; }
        if (came || round == 1) return came;
        struct pollfd fd = { .fd = pq.socket(conn), .events = POLLIN };
        if (fd.fd < 0) return -1;
        int ready = poll(&fd, 1, milliseconds);
        if (ready < 0) return errno == EINTR ? 0 : -1;
        if (ready == 0) return 0;
    }
    return came;
}
