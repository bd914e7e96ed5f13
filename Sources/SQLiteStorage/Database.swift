import Basics
import CSQLite

/// One SQLite connection.
///
/// Not `Sendable`: a connection is used by one thread at a time. `DatabasePool` hands connections
/// to threads under its locks, which is why they are opened with `SQLITE_OPEN_NOMUTEX`.
public final class Database {
    public enum Mode: Sendable {
        case readWrite
        case readOnly
    }

    /// The file this connection opened (or `":memory:"`).
    public let path: String
    public let mode: Mode
    private(set) var handle: OpaquePointer?
    private var savepointCounter = 0
    /// Statements of `query`, `run`, `scalar` and transaction control, prepared once per connection
    /// and reused by SQL text: parsing and planning cost more than running a small query (callgrind:
    /// sqlite3_prepare plus sqlite3_exec's parse of BEGIN and COMMIT were a large share of a read).
    /// SQLite re-prepares a kept statement by itself if the schema changes.
    /// Off for a connection opened on its own, whose statements all end with the call that made
    /// them; `DatabasePool` turns it on for the connections it keeps for the process's lifetime.
    var reusesStatements = false
    /// The kept statements by SQL text; nil while the one kept is in use. Taken out by emptying its
    /// slot, not by removing the key: removing from a Dictionary re-hashes the keys after it in its
    /// probe run, SQL texts of hundreds of bytes, ~8,000 instructions per statement (callgrind).
    private var reusableStatements: [String: OpaquePointer?] = [:]
    static let reusableStatementLimit = 64
    /// `PRAGMA data_version`'s statement, kept apart from `reusableStatements` (`dataVersion`, once per
    /// memoized read): through the dictionary its SQL text was hashed twice per read.
    var dataVersionStatement: OpaquePointer?
    /// Values kept with this connection while its data version stays `memoVersion` (`withMemo`):
    /// one typed table per key and value type.
    var memoTables: [ObjectIdentifier: MemoTableBase] = [:]
    var memoVersion: Int64 = -1
    /// The WAL index's header when `memoVersion` was last confirmed (read just before that
    /// `PRAGMA data_version`): while the header is still this one, no commit has ended since, and the
    /// memo stands without a statement (`withMemo`).
    var memoHeader: WALIndexHeader?
    var walIndexAccess = WALIndexAccess.unknown
    static let memoLimit = 1_024

    /// SQLite's process-wide settings, made once before the first connection opens: no memory
    /// statistics, whose upkeep took one mutex of the whole process in every `sqlite3_malloc` of
    /// every connection, so that reader threads waited on each other (futex waits in most requests
    /// of the list under wrk, `strace -k`; docs/BENCHMARKS.md). Nothing here reads those statistics
    /// (`sqlite3_memory_used` is 0 without them, a soft heap limit does nothing; the connection-leak
    /// test counts open files instead). Too late if SQLite already started, which only leaves the
    /// statistics on.
    static let processSettings: Int32 = har_sqlite_config_no_memory_statistics()

    /// Opens (and by default creates) the database at `path`.
    ///
    /// The file header is read before this returns, so a file that is not a database, or one that
    /// cannot be opened, fails here with its path rather than on some later query.
    public init(
        path: String, mode: Mode = .readWrite, create: Bool = true, busyTimeout: Duration = .seconds(5)
    ) throws {
        self.path = path
        self.mode = mode
        _ = Self.processSettings
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readWrite: flags |= SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(handle: handle, code: code, path: path)
            // sqlite3_open_v2 usually allocates a handle even when it fails; it must still be closed.
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        do {
            try setBusyTimeout(busyTimeout)
            // Touching the schema reads page 1: garbage files and unreadable paths fail now.
            try execute("SELECT count(*) FROM sqlite_schema")
            if mode == .readWrite {
                try execute("PRAGMA foreign_keys = ON")
            }
        } catch let error as SQLiteError {
            close()
            throw SQLiteError(
                code: error.code, extendedCode: error.extendedCode, message: error.message, path: path)
        }
    }

    deinit {
        close()
    }

    /// Closes the connection. Statements still alive keep it as a zombie until they are finalized
    /// (`sqlite3_close_v2`), so this never fails; using the database afterwards throws.
    public func close() {
        walIndexAccess = .unavailable
        memoHeader = nil
        for case let statement? in reusableStatements.values { sqlite3_finalize(statement) }
        reusableStatements.removeAll()
        if let dataVersionStatement { sqlite3_finalize(dataVersionStatement) }
        dataVersionStatement = nil
        if let handle {
            sqlite3_close_v2(handle)
            self.handle = nil
        }
    }

    public var isOpen: Bool { handle != nil }

    func openHandle(sql: String? = nil) throws -> OpaquePointer {
        guard let handle else { throw SQLiteError.misuse("database \(path) is closed", sql: sql) }
        return handle
    }

    /// How long a statement waits for another connection's lock before failing with `SQLITE_BUSY`.
    public func setBusyTimeout(_ timeout: Duration) throws {
        let (seconds, attoseconds) = timeout.components
        let milliseconds = max(0, min(Int64(Int32.max), seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        let code = sqlite3_busy_timeout(try openHandle(), Int32(milliseconds))
        guard code == SQLITE_OK else { throw SQLiteError(handle: handle, code: code) }
    }

    /// Runs a script of one or more statements that take no parameters (schema, pragmas).
    public func execute(_ sql: String) throws {
        let handle = try openHandle(sql: sql)
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        defer { sqlite3_free(errorMessage) }
        guard code == SQLITE_OK else {
            var error = SQLiteError(handle: handle, code: code, sql: sql)
            if let errorMessage {
                error = SQLiteError(
                    code: error.code, extendedCode: error.extendedCode, message: String(cString: errorMessage),
                    sql: sql)
            }
            throw error
        }
    }

    /// Runs `body` with a statement for `sql`, prepared now or kept from an earlier call, and keeps
    /// it afterwards (reset, bindings cleared). The statement must not outlive `body`.
    func withReusableStatement<T>(_ sql: String, _ body: (Statement) throws -> T) throws -> T {
        let statement: Statement
        if let slot = reusableStatements.index(forKey: sql), let handle = reusableStatements.values[slot] {
            reusableStatements.values[slot] = nil
            statement = Statement(database: self, sql: sql, reusing: handle)
        } else {
            statement = try Statement(database: self, sql: sql)
        }
        defer {
            // Looked up again: `body` may have added statements (moving the slots). A slot already
            // refilled (the same SQL run inside `body`) keeps its statement; this one is finalized.
            if reusesStatements, isOpen {
                if let slot = reusableStatements.index(forKey: sql) {
                    if reusableStatements.values[slot] == nil, let handle = statement.detachForReuse() {
                        reusableStatements.values[slot] = handle
                    }
                } else if reusableStatements.count < Database.reusableStatementLimit,
                    let handle = statement.detachForReuse()
                {
                    reusableStatements[sql] = handle
                }
            }
        }
        return try body(statement)
    }

    /// Runs one statement without parameters through the reusable statements (BEGIN, COMMIT).
    func executeReusable(_ sql: String) throws {
        try withReusableStatement(sql) { statement in
            while try statement.step() {}
        }
    }

    /// Compiles one statement. Values are bound afterwards, never spliced into `sql`.
    public func prepare(_ sql: String) throws -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// Runs one statement with positional parameters (`?`, `?1`) and returns the number of rows changed.
    @discardableResult
    public func run(_ sql: String, _ parameters: SQLValue...) throws -> Int {
        try run(sql, parameters)
    }

    @discardableResult
    public func run(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
        try withReusableStatement(sql) { statement in
            try statement.bind(parameters)
            while try statement.step() {}
        }
        return changes
    }

    /// Runs one statement with named parameters (`:name`, `@name`, `$name`).
    @discardableResult
    public func run(_ sql: String, named parameters: [String: SQLValue]) throws -> Int {
        try withReusableStatement(sql) { statement in
            try statement.bind(named: parameters)
            while try statement.step() {}
        }
        return changes
    }

    /// Every row of a query with positional parameters.
    public func query(_ sql: String, _ parameters: SQLValue...) throws -> [Row] {
        try query(sql, parameters)
    }

    public func query(_ sql: String, _ parameters: [SQLValue]) throws -> [Row] {
        try withReusableStatement(sql) { statement in
            try statement.bind(parameters)
            return try statement.rows()
        }
    }

    /// Every row of a query, each made into a value by `transform` reading the current row from the
    /// statement (`statement.string(0)`, `statement.int("id")`). For pages that build values of their
    /// own: no `Row` (an array of SQLValue per row) is made on the way. `transform` must not keep the
    /// statement or step it.
    public func query<T>(
        _ sql: String, _ parameters: [SQLValue] = [], map transform: (Statement) throws -> T
    ) throws -> [T] {
        try withReusableStatement(sql) { statement in
            try statement.bind(parameters)
            var values: [T] = []
            while try statement.step() {
                values.append(try transform(statement))
            }
            return values
        }
    }

    /// Every row of a query as text cells in one `TextTable`, each column under its result name:
    /// for pages, whose rows only ever become text. No String or `Row` is made per value: each
    /// cell's bytes go from SQLite into the table (integers and reals as SQLite writes them as text;
    /// a blob's bytes as they are; NULL as nil).
    public func queryText(_ sql: String, _ parameters: [SQLValue] = []) throws -> TextTable {
        try withReusableStatement(sql) { statement in
            try statement.bind(parameters)
            var builder = TextTable.Builder(columns: statement.columnNames)
            while try statement.step() {
                statement.appendTextCells(to: &builder)
            }
            return TextTable(builder)
        }
    }

    public func query(_ sql: String, named parameters: [String: SQLValue]) throws -> [Row] {
        try withReusableStatement(sql) { statement in
            try statement.bind(named: parameters)
            return try statement.rows()
        }
    }

    /// The first column of the first row, or `.null` when the query returns no row.
    public func scalar(_ sql: String, _ parameters: SQLValue...) throws -> SQLValue {
        try scalar(sql, parameters)
    }

    public func scalar(_ sql: String, _ parameters: [SQLValue]) throws -> SQLValue {
        try withReusableStatement(sql) { statement in
            try statement.bind(parameters)
            guard try statement.step() else { return .null }
            return try statement.value(at: 0)
        }
    }

    /// The rowid of the most recent successful INSERT on this connection.
    public var lastInsertRowID: Int64 {
        handle.map { sqlite3_last_insert_rowid($0) } ?? 0
    }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE on this connection.
    public var changes: Int {
        handle.map { Int(sqlite3_changes64($0)) } ?? 0
    }

    /// True when no transaction is open on this connection.
    public var isAutocommit: Bool {
        handle.map { sqlite3_get_autocommit($0) != 0 } ?? true
    }

    func nextSavepointName() -> String {
        savepointCounter += 1
        return "har_savepoint_\(savepointCounter)"
    }
}

// Connections are confined to one thread at a time; the compiler should say so when one escapes.
@available(*, unavailable)
extension Database: Sendable {}
