import CSQLite
let _t = har_sqlite_transient()
