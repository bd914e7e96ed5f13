// libpq (PostgreSQL's client library) for Swift. The diagnostic field codes are character macros
// Swift does not import: typed constants.
#ifndef HAR_CPOSTGRESQL_SHIM_H
#define HAR_CPOSTGRESQL_SHIM_H
#include <libpq-fe.h>
static inline int har_pg_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int har_pg_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }
#endif
