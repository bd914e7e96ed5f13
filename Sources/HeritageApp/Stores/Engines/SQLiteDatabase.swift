import SQLiteStorage

/// The data folder's SQLite file as the SQLite stores share it: one `DatabasePool` (WAL, one writer,
/// readers in parallel, synchronous=FULL), with every SQLite and migration error turned into a
/// `StoreError` before it leaves the stores.
final class SQLiteDatabase: Sendable {
    let pool: DatabasePool

    /// Opens (creating if needed) the database at `path` and applies `migrations`.
    init(path: String, migrations: [Migration]) throws {
        pool = try Self.mapped { try DatabasePool(path: path, configuration: .init(migrations: migrations)) }
    }

    init(pool: DatabasePool) { self.pool = pool }

    /// A read in one snapshot (see `DatabasePool.read`).
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try Self.mapped { try pool.read(body) }
    }

    /// A read of one statement, outside a transaction (see `DatabasePool.readOneStatement`).
    func readOneStatement<T>(_ body: (Database) throws -> T) throws -> T {
        try Self.mapped { try pool.readOneStatement(body) }
    }

    /// A read that may be answered from the reader's memo (see `DatabasePool.readMemoized`).
    func readMemoized<Key: Hashable, Value, T>(_ body: (Database, inout [Key: Value]) throws -> T) throws -> T {
        try Self.mapped { try pool.readMemoized(body) }
    }

    /// One IMMEDIATE transaction, committed durably when `body` returns (see `DatabasePool.write`).
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try Self.mapped { try pool.write(body) }
    }

    func close() { pool.close() }

    /// Runs `body`, giving any SQLite or migration error back as a `StoreError`.
    static func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw StoreError(error)
        } catch let error as MigrationError {
            throw StoreError(.unavailable, error.description)
        }
    }
}

extension StoreError {
    init(_ error: SQLiteError) {
        let kind: Kind = error.isConstraintViolation ? .conflict : error.isBusy ? .busy : .unavailable
        self.init(kind, error.description, isDiskFull: error.code == 13)  // SQLITE_FULL
    }
}
