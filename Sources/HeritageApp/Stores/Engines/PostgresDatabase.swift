import PostgresStorage
import SQLiteStorage

/// The PostgreSQL database the PostgreSQL stores share, for several web nodes on one database: a
/// `PostgresPool` sized in configuration, every write one SERIALIZABLE transaction run again on a
/// serialization failure, every read one snapshot; every PostgreSQL and migration error turned into a
/// `StoreError` before it leaves the stores.
final class PostgresDatabase: Sendable {
    let pool: PostgresPool

    /// Connects to `url` (a `postgresql://` URL or a libpq key=value string) and applies `migrations`
    /// under the migrations' advisory lock (nodes starting together migrate once).
    init(url: String, poolSize: Int, migrations: [Migration]) throws {
        pool = try Self.mapped {
            let pool = try PostgresPool(url, configuration: .init(size: poolSize))
            _ = try pool.withConnection { try PostgresMigrator.apply(migrations, to: $0) }
            return pool
        }
    }

    /// A read in one snapshot (REPEATABLE READ, read only).
    func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try Self.mapped { try pool.read(body) }
    }

    /// A read of one statement, outside any transaction (one round trip instead of three; the
    /// statement sees one snapshot). `body` runs a single statement: several go through `read`.
    func readStatement<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try Self.mapped { try pool.readStatement(body) }
    }

    /// One SERIALIZABLE transaction, run again from the start on a serialization failure: `body` does
    /// database work only.
    func write<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try Self.mapped { try pool.write(body) }
    }

    func close() { pool.close() }

    static func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            throw StoreError(error)
        } catch let error as MigrationError {
            throw StoreError(.unavailable, error.description)
        }
    }
}

extension StoreError {
    init(_ error: PostgresError) {
        let kind: Kind =
            error.isConstraintViolation ? .conflict : error.isSerializationFailure ? .busy : .unavailable
        self.init(kind, error.description, isDiskFull: error.sqlState == "53100")
    }
}
