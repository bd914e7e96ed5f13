import SQLCore

/// Applies numbered migrations (SQLiteStorage's `Migration`: the same type and version numbers as SQLite's,
/// with PostgreSQL's SQL) and records them in `schema_migrations`.
///
/// Everything happens under one session-level advisory lock, so that nodes starting together migrate
/// once: the first takes the lock and migrates, the others wait, then find every version recorded.
public enum PostgresMigrator {
    public static let tableName = "schema_migrations"
    /// The advisory lock key of migrations ("har-mig" in ASCII).
    public static let lockKey: Int64 = 0x68_61_72_2D_6D_69_67

    /// Applies each missing migration in version order, each in its own transaction; returns the
    /// versions applied now.
    @discardableResult
    public static func apply(_ migrations: [Migration], to connection: PostgresConnection) throws -> [Int] {
        let plan = try MigrationPlan(migrations)
        return try connection.withAdvisoryLock(lockKey) {
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS \(tableName) (
                    version bigint PRIMARY KEY,
                    name text NOT NULL,
                    applied_at text NOT NULL
                )
                """)
            var appliedNow: [Int] = []
            for migration in try plan.pending(applied: try appliedVersions(connection)) {
                do {
                    try connection.transaction(.readCommitted) {
                        try connection.execute(migration.sql)
                        try connection.run(
                            """
                            INSERT INTO \(tableName) (version, name, applied_at)
                            VALUES (?, ?, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                            """, .integer(Int64(migration.version)), .text(migration.name))
                    }
                } catch let error as PostgresError {
                    throw MigrationError.failed(
                        version: migration.version, name: migration.name, underlying: error)
                }
                appliedNow.append(migration.version)
            }
            return appliedNow
        }
    }

    /// Throws unless the database records exactly `migrations` (neither behind nor ahead): for a
    /// program that must not migrate, only run on a schema it knows.
    public static func verify(_ migrations: [Migration], on connection: PostgresConnection) throws {
        let plan = try MigrationPlan(migrations)
        let exists = try connection.scalar("SELECT to_regclass(?) IS NOT NULL", .text(tableName)).int == 1
        let missing = try plan.pending(applied: exists ? try appliedVersions(connection) : []).map(\.version)
        if !missing.isEmpty { throw MigrationError.databaseIsOlder(missing: missing) }
    }

    public static func appliedVersions(_ connection: PostgresConnection) throws -> Set<Int> {
        Set(try connection.query("SELECT version FROM \(tableName)").compactMap { try $0.int(0).map(Int.init) })
    }
}
