/// Applies the migrations a database lacks and records them in `schema_migrations`.
public enum Migrator {
    public static let tableName = "schema_migrations"

    /// Applies each missing migration in version order, each in its own transaction.
    ///
    /// Idempotent: already-recorded versions are skipped. Returns the versions applied now.
    @discardableResult
    public static func apply(_ migrations: [Migration], to database: Database) throws -> [Int] {
        let plan = try MigrationPlan(migrations)
        let alreadyApplied = try database.transaction {
            try database.execute(
                """
                CREATE TABLE IF NOT EXISTS \(tableName) (
                    version INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at TEXT NOT NULL
                )
                """)
            return try appliedVersions(in: database)
        }
        var appliedNow: [Int] = []
        for migration in try plan.pending(applied: alreadyApplied) {
            let didApply = try database.transaction { () throws -> Bool in
                // Re-checked under the write lock: another process may have migrated meanwhile.
                let recorded = try database.scalar(
                    "SELECT count(*) FROM \(tableName) WHERE version = ?", .integer(Int64(migration.version)))
                guard recorded.int == 0 else { return false }
                do {
                    try database.execute(migration.sql)
                } catch let error as SQLiteError {
                    throw MigrationError.failed(version: migration.version, name: migration.name, underlying: error)
                }
                try database.run(
                    """
                    INSERT INTO \(tableName) (version, name, applied_at)
                    VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                    """, .integer(Int64(migration.version)), .text(migration.name))
                return true
            }
            if didApply { appliedNow.append(migration.version) }
        }
        return appliedNow
    }

    /// The versions recorded in `schema_migrations` (empty when the table does not exist yet).
    public static func appliedVersions(in database: Database) throws -> Set<Int> {
        let exists = try database.scalar(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?", .text(tableName))
        guard exists.int == 1 else { return [] }
        let rows = try database.query("SELECT version FROM \(tableName)")
        return Set(try rows.compactMap { try $0.int(0).map(Int.init) })
    }
}
