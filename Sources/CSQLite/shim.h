// SQLite 3 for Swift. SQLITE_TRANSIENT is a macro of a cast Swift cannot import: a typed constant.
#ifndef HAR_CSQLITE_SHIM_H
#define HAR_CSQLITE_SHIM_H
#include <sqlite3.h>
static inline sqlite3_destructor_type har_sqlite_transient(void) { return SQLITE_TRANSIENT; }
// sqlite3_config is variadic, which Swift cannot call. Without memory statistics, sqlite3_malloc takes
// no process-wide mutex: every connection's allocations went through one lock (strace -k, under wrk).
// SQLITE_MISUSE when SQLite was already initialised (the setting is then left as it was).
static inline int har_sqlite_config_no_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
