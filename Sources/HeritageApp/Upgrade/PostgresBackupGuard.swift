import PostgresStorage
import SQLiteStorage

/// PostgreSQL cannot be snapshotted from here the way SQLite is (the database is the operator's,
/// often large, often shared by several nodes), so start migrates it only on the operator's word that
/// a backup was taken: `har serve --i-have-a-backup` or `database_backup_taken`. An empty database has
/// nothing to lose and is migrated regardless.
enum PostgresBackupGuard {
    static func check(url: String, known: [Migration], backupTaken: Bool, log: Log) throws {
        let due: PendingMigrations
        do {
            due = try pending(url: url, known: known)
        } catch let error as PostgresError {
            throw StoreError(error)
        }
        let newest = known.map(\.version).max() ?? 0
        // A newer database is refused by the migrator itself, with its own message.
        guard !due.isFresh, !due.pending.isEmpty, due.current <= newest else { return }
        guard backupTaken else {
            throw ConfigurationError(
                "the PostgreSQL database at database_url is at schema v\(due.current) and this binary would "
                    + "apply \(due.summary); nothing was migrated. har serve cannot snapshot PostgreSQL: take a "
                    + "backup first (pg_dump -Fc -f har-before-upgrade.dump DATABASE), then start once with "
                    + "har serve --i-have-a-backup (or set database_backup_taken). See docs/INSTALL.md")
        }
        log.warning("applying \(due.summary) to PostgreSQL: the operator says a backup was taken")
    }

    /// What the database at `url` lacks of `known`, read under the migrations' advisory lock: a node
    /// starting beside one that is migrating a fresh database waits for it, rather than seeing half a
    /// schema and taking it for an old one.
    static func pending(url: String, known: [Migration]) throws -> PendingMigrations {
        let connection = try PostgresConnection(url)
        defer { connection.close() }
        return try connection.withAdvisoryLock(PostgresMigrator.lockKey) {
            let tables = try connection.scalar(
                "SELECT count(*) FROM information_schema.tables WHERE table_name = '\(PostgresMigrator.tableName)'")
            let applied = tables.int == 0 ? [] : try PostgresMigrator.appliedVersions(connection)
            return PendingMigrations(applied: applied, known: known)
        }
    }
}
