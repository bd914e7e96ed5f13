import PostgresStorage
import SQLiteStorage

// What SQLite's and PostgreSQL's connections have in common, so that SQL written once in the shared
// words of both dialects (`?` placeholders, `ON CONFLICT`, `RETURNING`, `COALESCE`) runs on either:
// the outbox's transitions and the worker's leases are written once, against this, and
// what differs between the engines is named in `SQLDialect` and `SQLBackend`, and nowhere else.

/// A row's typed reads as the stores name them: SQLCore's `ValueReading`, which both drivers' rows have.
typealias SQLRowReading = ValueReading

/// One connection, inside a transaction the backend opened.
protocol SQLConnection {
    associatedtype ResultRow: SQLRowReading
    func run(_ sql: String, _ parameters: [SQLValue]) throws -> Int
    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [ResultRow]
    func scalar(_ sql: String, _ parameters: [SQLValue]) throws -> SQLValue
}

extension SQLConnection {
    @discardableResult
    func run(_ sql: String, _ parameters: SQLValue...) throws -> Int { try run(sql, parameters) }
    func query(_ sql: String, _ parameters: SQLValue...) throws -> [ResultRow] { try query(sql, parameters) }
    func scalar(_ sql: String, _ parameters: SQLValue...) throws -> SQLValue { try scalar(sql, parameters) }
}

extension Database: SQLConnection {}
extension PostgresConnection: SQLConnection {}

/// A database the stores write to, with the few things the dialects do differently.
protocol SQLBackend: Sendable {
    associatedtype Connection: SQLConnection
    /// A read in one snapshot.
    func read<T>(_ body: (Connection) throws -> T) throws -> T
    /// A read of one statement (PostgreSQL: outside a transaction, one round trip instead of three;
    /// SQLite: outside a transaction too, the statement's own read transaction its snapshot).
    func readStatement<T>(_ body: (Connection) throws -> T) throws -> T
    /// One write transaction that sees every commit before it (SQLite: the one writer; PostgreSQL:
    /// SERIALIZABLE, run again on a serialization failure).
    func write<T>(_ body: (Connection) throws -> T) throws -> T
    /// One write transaction whose `SELECT … \(skipLocked)` locks the rows it returns and passes over
    /// rows another transaction holds (PostgreSQL: READ COMMITTED, where SERIALIZABLE would turn the
    /// claimers' overlapping reads into retries; SQLite: the one writer, which needs no row locks).
    func claiming<T>(_ body: (Connection) throws -> T) throws -> T
    /// A read of one statement whose answer the connection may keep under `key` while nothing is
    /// committed (SQLite: the reader's memo, checked against the file's data version; PostgreSQL: read
    /// every time). For the hottest read, the session lookup.
    func readKept<Key: Hashable, Value>(key: Key, _ body: (Connection) throws -> Value?) throws -> Value?
    /// Runs `body`, whose reads of any store on this backend may share one snapshot (SQLite: one
    /// reader and one read transaction for all of them, `DatabasePool.readTogether`; PostgreSQL: each
    /// read as it would be alone, since a transaction around one-statement reads only adds BEGIN and
    /// COMMIT's round trips). For a page that reads several aggregates at once; reads only.
    func readTogether<T>(_ body: () throws -> T) throws -> T
    /// The list's page of the user's reports (`ReportStore.page`): the hottest page, tuned per engine.
    func reportPage(userID: Int64, limit: Int?) throws -> ReportPage
    /// Runs `body`, mapping the engine's own errors to `StoreError`.
    static func mapped<T>(_ body: () throws -> T) throws -> T
    /// What the engine's SQL can do, by name (`SQLDialect`), for the few statements that differ.
    static var dialect: SQLDialect { get }
    /// Whether one process at a time uses the database (SQLite: the data folder's lock): then no
    /// other node can hold a lease, and whatever leases the database records are a former run's.
    static var isExclusive: Bool { get }
}

extension SQLBackend {
    /// Ends a `SELECT` in `claiming` (`SQLDialect.skipLocked`).
    static var skipLocked: String { dialect.skipLocked }
}

extension SQLiteDatabase: SQLBackend {
    func readStatement<T>(_ body: (Database) throws -> T) throws -> T { try readOneStatement(body) }
    func readKept<Key: Hashable, Value>(key: Key, _ body: (Database) throws -> Value?) throws -> Value? {
        try readMemoized { (db, memo: inout [Key: Value]) -> Value? in
            if let kept = memo[key] { return kept }
            let read = try body(db)
            if let read { memo[key] = read }
            return read
        }
    }
    func claiming<T>(_ body: (Database) throws -> T) throws -> T { try write(body) }
    func readTogether<T>(_ body: () throws -> T) throws -> T { try Self.mapped { try pool.readTogether(body) } }
    static var isExclusive: Bool { true }
    static var dialect: SQLDialect { .sqlite }
}

extension PostgresDatabase: SQLBackend {
    func readKept<Key: Hashable, Value>(key: Key, _ body: (PostgresConnection) throws -> Value?) throws -> Value? {
        try readStatement(body)
    }
    func claiming<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try Self.mapped { try pool.withConnection { db in try db.transaction(.readCommitted) { try body(db) } } }
    }
    func readTogether<T>(_ body: () throws -> T) throws -> T { try body() }
    static var isExclusive: Bool { false }
    static var dialect: SQLDialect { .postgres }
}
