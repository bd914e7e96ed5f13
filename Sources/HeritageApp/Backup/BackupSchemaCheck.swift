import SQLiteStorage

/// A snapshot may hold only what har's migrations make: a trigger, view, table or index of anyone
/// else's would run, or be read, in `har serve` once restored (a trigger fires on our own writes). So
/// before anything is swapped in, the snapshot's `sqlite_schema` (type, name, table, SQL) must equal
/// that of an empty database migrated here to the snapshot's version: whatever a migration makes (an
/// R*Tree's shadow tables included) is accepted because the reference has it too. SQLite's statistics
/// tables (`sqlite_stat1`…, written by `ANALYZE` / `PRAGMA optimize`) hold numbers, not code, and are
/// left out.
enum BackupSchemaCheck {
    static func check(_ snapshot: Database, version: Int, archive: String) throws(BackupFailure) {
        let found: Set<String>
        let expected: Set<String>
        do {
            found = try objects(snapshot)
            let reference = try Database(path: ":memory:")
            defer { reference.close() }
            _ = try Migrator.apply(AppMigrations.sqlite.filter { $0.version <= version }, to: reference)
            expected = try objects(reference)
        } catch {
            throw .databaseDamaged("\(archive): the database's schema cannot be read: \(error)")
        }
        let foreign = found.subtracting(expected).sorted()
        let missing = expected.subtracting(found).sorted()
        guard foreign.isEmpty && missing.isEmpty else {
            let named = (foreign.map { "not ours: \($0)" } + missing.map { "missing: \($0)" }).prefix(5)
            throw .foreignSchema(
                "\(archive): the database's schema is not what har's migrations make at version \(version) ("
                    + named.joined(separator: "; ") + "): refused, nothing restored")
        }
    }

    /// Each schema object as `type name ON table: SQL`.
    private static func objects(_ db: Database) throws -> Set<String> {
        let rows = try db.query(
            """
            SELECT type, name, tbl_name, coalesce(sql, '') AS sql FROM sqlite_schema
            WHERE name NOT LIKE 'sqlite_stat%'
            """)
        return Set(
            try rows.map { row in
                "\(try row.string("type") ?? "") \(try row.string("name") ?? "") ON \(try row.string("tbl_name") ?? ""): "
                    + (try row.string("sql") ?? "")
            })
    }
}
