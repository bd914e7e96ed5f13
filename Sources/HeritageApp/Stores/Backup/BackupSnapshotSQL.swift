import PostgresStorage
import SQLiteStorage

/// A photo row of a backup's snapshot, as the manifest needs it.
struct PhotoRow {
    let localID: String?
    let state: String?
    let sha256: String?
}

/// What a backup reads from its snapshot (the manifest's schema, row counts and photo rows) and what
/// checking one reads back, written once for both engines: the backup runs on a snapshot file or an
/// exported PostgreSQL snapshot, with no running store, so these take a connection rather than a
/// `SQLBackend`. Only the list of tables differs, read from each engine's own catalogue.
/// The statements that stay in `Backup/`, being about the database file or server rather than its
/// rows: `VACUUM INTO`, `PRAGMA integrity_check`, the WAL checkpoint of a restored file, the schema
/// check of `sqlite_schema`, `sqlite_version()` and `SHOW server_version`, and on PostgreSQL the
/// exported snapshot's transaction, `pg_dump`/`pg_restore` and the catalogue reads around them.
enum BackupSnapshotSQL {
    /// The schema version the database's migrations reached.
    static func schemaVersion(_ db: some SQLConnection, migrationsTable: String) throws -> Int {
        Int(try db.scalar("SELECT max(version) FROM \(migrationsTable)", []).int ?? 0)
    }

    /// The application's tables in a SQLite snapshot, by name (not SQLite's own, not the virtual
    /// tables, whose shadow tables are counted instead).
    static func tables(_ db: Database) throws -> [String] {
        try db.query(
            """
            SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
              AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name
            """
        ).compactMap { try $0.string(0) }
    }

    /// The application's tables in a PostgreSQL database, by name.
    static func tables(_ db: PostgresConnection) throws -> [String] {
        try db.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
            .compactMap { try $0.string(0) }
    }

    /// The rows of one table; `table` must be a name the database's catalogue gave (it is quoted, never
    /// taken from a manifest unchecked).
    static func rowCount(_ db: some SQLConnection, table: String) throws -> Int64? {
        try db.scalar("SELECT count(*) FROM \"\(table)\"", []).int
    }

    /// The rows of each table, by name.
    static func rowCounts(_ db: some SQLConnection, tables: [String]) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in tables { counts[table] = Int(try rowCount(db, table: table) ?? 0) }
        return counts
    }

    /// Every photo row, in the order they were made.
    static func photos(_ db: some SQLConnection) throws -> [PhotoRow] {
        try db.query("SELECT local_id, state, sha256 FROM photos ORDER BY id", []).map {
            PhotoRow(localID: try $0.string("local_id"), state: try $0.string("state"), sha256: try $0.string("sha256"))
        }
    }

    /// The photos the platform does not have yet: a backup must hold their files (or name them missing).
    static func unstoredPhotoIDs(_ db: some SQLConnection) throws -> [String] {
        try db.query("SELECT local_id FROM photos WHERE state != 'stored' ORDER BY id", []).map {
            try $0.string("local_id") ?? ""
        }
    }
}
