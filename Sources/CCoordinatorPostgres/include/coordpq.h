// libpq, the PostgreSQL client library, loaded when a queue is first used (dlopen), not linked: linking
// it would load it and its two dozen libraries (TLS, Kerberos, LDAP) at every start of coordrun, for a
// feature few runs use. The functions below are the part of libpq's stable ABI (libpq.so.5) that
// `coordrun explore --queue` needs, with the same meaning; each handle is libpq's own.
#ifndef COORDPQ_H
#define COORDPQ_H

/// A connection (libpq's PGconn).
typedef struct coordpq_conn coordpq_conn;
/// A query's result (libpq's PGresult).
typedef struct coordpq_result coordpq_result;

/// Loads libpq once; NULL when it is loaded, else why it could not be (a static message).
const char *coordpq_load(void);

/// Connects with a connection string or a postgres:// URI (PQconnectdb); never NULL once loaded.
coordpq_conn *coordpq_connect(const char *conninfo);
/// Whether the connection is up (PQstatus is CONNECTION_OK).
int coordpq_connected(const coordpq_conn *conn);
/// The connection's last error message (PQerrorMessage).
const char *coordpq_error(const coordpq_conn *conn);
/// Closes the connection and frees it (PQfinish).
void coordpq_finish(coordpq_conn *conn);

/// Runs one statement with text parameters $1... (PQexecParams, results as text); NULL only out of memory.
/// The parameters come packed: `count` NUL-terminated strings one after the other in `packed`, and
/// `nulls[i]` nonzero where parameter i is SQL NULL (its string is then empty).
coordpq_result *coordpq_exec(coordpq_conn *conn, const char *sql, int count, const char *packed, const int *nulls);
/// Runs statements without parameters (PQexec).
coordpq_result *coordpq_exec_script(coordpq_conn *conn, const char *sql);
/// Whether the statement succeeded (PGRES_COMMAND_OK or PGRES_TUPLES_OK).
int coordpq_succeeded(const coordpq_result *result);
/// The result's error message (PQresultErrorMessage).
const char *coordpq_result_error(const coordpq_result *result);
/// Rows and columns (PQntuples, PQnfields).
int coordpq_rows(const coordpq_result *result);
int coordpq_columns(const coordpq_result *result);
/// A value as text, NULL for SQL NULL (PQgetisnull, PQgetvalue).
const char *coordpq_value(const coordpq_result *result, int row, int column);
/// Frees the result (PQclear).
void coordpq_clear(coordpq_result *result);

/// Waits up to `milliseconds` for a notification (LISTEN) and consumes every one that came: 1 when one
/// came, 0 when none did, -1 when the connection failed.
int coordpq_wait(coordpq_conn *conn, int milliseconds);

#endif
