import SQLiteStorage

public enum PostgresMigrationError: Error, CustomStringConvertible, Equatable {
    case duplicateVersion(Int)
    /// The database was migrated by newer code: running an older program on it could corrupt data.
    case databaseIsNewer(databaseVersion: Int, newestKnownVersion: Int)
    /// The database records a version the code does not have (a removed migration, another branch).
    case unknownAppliedVersion(Int)
    /// The database lacks migrations this program has, and was not to be migrated.
    case databaseIsOlder(missing: [Int])
    case failed(version: Int, name: String, underlying: PostgresError)

    public var description: String {
        switch self {
        case .duplicateVersion(let version):
            return "migration version \(version) is defined more than once"
        case .databaseIsNewer(let databaseVersion, let newestKnownVersion):
            return "database schema is at version \(databaseVersion), newer than this program knows "
                + "(\(newestKnownVersion)); refusing to run an older program on it"
        case .unknownAppliedVersion(let version):
            return "database records migration \(version), which this program does not define"
        case .databaseIsOlder(let missing):
            return "database schema lacks migrations \(missing.map(String.init).joined(separator: ", ")) "
                + "of this program"
        case .failed(let version, let name, let underlying):
            return "migration \(version) (\(name)) failed: \(underlying)"
        }
    }
}

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
        let ordered = try check(migrations)
        return try connection.withAdvisoryLock(lockKey) {
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS \(tableName) (
                    version bigint PRIMARY KEY,
                    name text NOT NULL,
                    applied_at text NOT NULL
                )
                """)
            let applied = try appliedVersions(connection)
            try verifyNotAhead(applied, of: ordered)
            var appliedNow: [Int] = []
            for migration in ordered where !applied.contains(migration.version) {
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
                    throw PostgresMigrationError.failed(
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
        let ordered = try check(migrations)
        let exists = try connection.scalar("SELECT to_regclass(?) IS NOT NULL", .text(tableName)).int == 1
        let applied = exists ? try appliedVersions(connection) : []
        try verifyNotAhead(applied, of: ordered)
        let missing = ordered.map(\.version).filter { !applied.contains($0) }
        if !missing.isEmpty { throw PostgresMigrationError.databaseIsOlder(missing: missing) }
    }

    public static func appliedVersions(_ connection: PostgresConnection) throws -> Set<Int> {
        Set(try connection.query("SELECT version FROM \(tableName)").compactMap { try $0.int(0).map(Int.init) })
    }

    private static func check(_ migrations: [Migration]) throws -> [Migration] {
        var seen: Set<Int> = []
        for migration in migrations where !seen.insert(migration.version).inserted {
            throw PostgresMigrationError.duplicateVersion(migration.version)
        }
        return migrations.sorted { $0.version < $1.version }
    }

    private static func verifyNotAhead(_ applied: Set<Int>, of ordered: [Migration]) throws {
        let newestKnown = ordered.last?.version ?? 0
        if let newest = applied.max(), newest > newestKnown {
            throw PostgresMigrationError.databaseIsNewer(databaseVersion: newest, newestKnownVersion: newestKnown)
        }
        let known = Set(ordered.map(\.version))
        if let unknown = applied.sorted().first(where: { !known.contains($0) }) {
            throw PostgresMigrationError.unknownAppliedVersion(unknown)
        }
    }
}
