// SQLite 3 for Swift. SQLITE_TRANSIENT is a macro of a cast Swift cannot import: a typed constant.
#ifndef HAR_CSQLITE_SHIM_H
#define HAR_CSQLITE_SHIM_H
#include <sqlite3.h>
static inline sqlite3_destructor_type har_sqlite_transient(void) { return SQLITE_TRANSIENT; }
static inline int har_sqlite_config_log(void (*f)(void *, int, const char *), void *arg) {
    return sqlite3_config(SQLITE_CONFIG_LOG, f, arg);
}
#endif
