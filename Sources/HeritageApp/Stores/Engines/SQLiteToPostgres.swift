import PostgresStorage
import SQLiteStorage

/// `har migrate sqlite-to-postgres`: copies a single node's database (the data folder's SQLite file) into
/// an empty PostgreSQL database, row ids kept and the id sequences set past them, in one transaction,
/// then checks that every table holds as many rows on both sides.
enum SQLiteToPostgres {
    /// The application's tables, parents before children; the columns are the same in both dialects.
    static let tables = [
        "users", "sites", "kiosks", "web_sessions", "reports", "photos", "expired_drafts", "signin_failures",
        "user_roles",
        "review_audit", "kiosk_receipts", "refused_sessions", "delivery_attempts", "mail_outbox",
    ]
    /// Kept by triggers in both dialects (migration 8): the copy's inserts bump PostgreSQL's, which are
    /// then set to SQLite's numbers, so a list's ETag stays the same for the same list.
    static let derivedTables = ["list_versions"]
    /// Tables whose `id` is an identity column in PostgreSQL (its sequence is set after the copy).
    static let identityTables = [
        "users", "reports", "photos", "review_audit", "kiosks", "delivery_attempts", "mail_outbox", "sites",
    ]

    struct Copied: Sendable, Equatable {
        var rows: [String: Int]
    }

    static func copy(from source: SQLiteDatabase, to target: PostgresDatabase) throws -> Copied {
        var data: [String: [Row]] = [:]
        try source.read { db in
            for table in tables + derivedTables + ["instance"] {
                data[table] = try db.query("SELECT * FROM \(table) ORDER BY 1")
            }
        }
        return try PostgresDatabase.mapped {
            try target.pool.withConnection { db in
                try db.transaction(.serializable) {
                    for table in tables {
                        guard try db.scalar("SELECT count(*) FROM \(table)").int == 0 else {
                            throw StoreError(
                                .conflict, "the PostgreSQL database already holds \(table): copy only into an empty one"
                            )
                        }
                    }
                    for (key, value) in try instance(data["instance"] ?? []) {
                        try db.run(
                            "INSERT INTO instance (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                            .text(key), .text(value))
                    }
                    for table in tables {
                        for row in data[table] ?? [] {
                            let names = row.columnNames.joined(separator: ", ")
                            let marks = Array(repeating: "?", count: row.count).joined(separator: ", ")
                            try db.run("INSERT INTO \(table) (\(names)) VALUES (\(marks))", row.values)
                        }
                    }
                    for row in data["list_versions"] ?? [] {
                        try db.run(
                            """
                            INSERT INTO list_versions (user_id, version) VALUES (?, ?)
                            ON CONFLICT (user_id) DO UPDATE SET version = excluded.version
                            """, row.values)
                    }
                    for table in identityTables {
                        try db.run(
                            """
                            SELECT setval(pg_get_serial_sequence('\(table)', 'id'),
                                          COALESCE((SELECT max(id) FROM \(table)), 0) + 1, false)
                            """)
                    }
                    var counts: [String: Int] = [:]
                    for table in tables + derivedTables {
                        let copied = Int(try db.scalar("SELECT count(*) FROM \(table)").int ?? -1)
                        guard copied == data[table]?.count ?? 0 else {
                            throw StoreError(
                                .invariant, "\(table): \(data[table]?.count ?? 0) rows in SQLite, \(copied) copied")
                        }
                        counts[table] = copied
                    }
                    return Copied(rows: counts)
                }
            }
        }
    }

    private static func instance(_ rows: [Row]) throws -> [(String, String)] {
        try rows.compactMap { row in
            guard let key = try row.string("key"), let value = try row.string("value") else { return nil }
            return (key, value)
        }
    }
}
