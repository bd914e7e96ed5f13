/// One numbered schema change. Versions are applied in ascending order and never edited once shipped.
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    /// A script of statements; it runs inside the migration's transaction, so no BEGIN/COMMIT.
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

public enum MigrationError: Error, CustomStringConvertible, Equatable {
    /// Two migrations in the code share a version.
    case duplicateVersion(Int)
    /// The database was migrated by newer code (a downgrade): running on it could corrupt data.
    case databaseIsNewer(databaseVersion: Int, newestKnownVersion: Int)
    /// The database records a version the code does not have (a migration removed, or another branch).
    case unknownAppliedVersion(Int)
    /// A migration's SQL failed; its transaction was rolled back.
    case failed(version: Int, name: String, underlying: SQLiteError)

    public var description: String {
        switch self {
        case .duplicateVersion(let version):
            return "migration version \(version) is defined more than once"
        case .databaseIsNewer(let databaseVersion, let newestKnownVersion):
            return "database schema is at version \(databaseVersion), newer than this program knows "
                + "(\(newestKnownVersion)); refusing to run an older program on it"
        case .unknownAppliedVersion(let version):
            return "database records migration \(version), which this program does not define"
        case .failed(let version, let name, let underlying):
            return "migration \(version) (\(name)) failed: \(underlying)"
        }
    }
}

/// Applies the migrations a database lacks and records them in `schema_migrations`.
public enum Migrator {
    public static let tableName = "schema_migrations"

    /// Applies each missing migration in version order, each in its own transaction.
    ///
    /// Idempotent: already-recorded versions are skipped. Returns the versions applied now.
    @discardableResult
    public static func apply(_ migrations: [Migration], to database: Database) throws -> [Int] {
        var byVersion: [Int: Migration] = [:]
        for migration in migrations {
            guard byVersion.updateValue(migration, forKey: migration.version) == nil else {
                throw MigrationError.duplicateVersion(migration.version)
            }
        }
        let ordered = migrations.sorted { $0.version < $1.version }

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
        let newestKnown = ordered.last?.version ?? 0
        if let newestApplied = alreadyApplied.max(), newestApplied > newestKnown {
            throw MigrationError.databaseIsNewer(databaseVersion: newestApplied, newestKnownVersion: newestKnown)
        }
        if let unknown = alreadyApplied.sorted().first(where: { byVersion[$0] == nil }) {
            throw MigrationError.unknownAppliedVersion(unknown)
        }

        var appliedNow: [Int] = []
        for migration in ordered where !alreadyApplied.contains(migration.version) {
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
