import Basics
import SQLiteStorage

/// The rows `bench/run` reads through `/bench/rows`, in a database of their own (never the app's).
protocol BenchmarkStore: Sendable {
    /// The first 50 sample rows, by id, as text for the page: columns `name`, `address`, `created`.
    func sampleRows() throws -> TextTable
    func close()
}

/// `BenchmarkStore` on SQLite: 50 rows made by its one migration.
struct SQLiteBenchmarkStore: BenchmarkStore {
    let database: SQLiteDatabase

    init(path: String) throws {
        database = try SQLiteDatabase(
            path: path,
            migrations: [
                Migration(
                    version: 1, name: "sample_rows",
                    sql: """
                        CREATE TABLE sample_rows (
                            id INTEGER PRIMARY KEY, name TEXT NOT NULL, address TEXT NOT NULL, created TEXT NOT NULL
                        ) STRICT;
                        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50)
                        INSERT INTO sample_rows (name, address, created)
                        SELECT 'Chapel of St Ninian & <Friends> no. ' || i, i || ' Church Lane, Whithorn',
                               strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-' || i || ' days') FROM n;
                        """)
            ])
    }

    /// One statement, so read as the stores' other one-statement reads are (`readOneStatement`): its
    /// own snapshot, without the BEGIN and COMMIT around it (~6,000 instructions of the page).
    func sampleRows() throws -> TextTable {
        try database.readOneStatement { db in
            try db.queryText("SELECT name, address, created FROM sample_rows ORDER BY id LIMIT 50")
        }
    }

    func close() { database.close() }
}
