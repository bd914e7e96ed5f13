import CSQLite
import Glibc

/// The database file the application runs on: WAL mode, one writer, a few readers in parallel.
///
/// Named after GRDB's type of the same job; the app's `Store` (the narrow protocol the design asks
/// for, so PostgreSQL can slot in) is built on top of it.
///
/// `@unchecked Sendable` because the compiler cannot see what makes it safe: the writer connection
/// is touched only while `writerLock` is held, the idle-reader list and counters only while
/// `readerLock` is held, and a checked-out reader belongs to exactly one thread until it is
/// returned. Connections are never shared between two threads at the same time.
public final class DatabasePool: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// How many read-only connections may be open at once; readers beyond that wait. The default
        /// is the HTTP server's default pool (8 threads), so that a page read on every poll thread at
        /// once never waits for a reader; readers are opened only when first needed.
        public var maximumReaderCount: Int
        /// How long a statement waits for a lock held by another connection (or process).
        public var busyTimeout: Duration
        /// Applied at open, before any other connection is handed out.
        public var migrations: [Migration]

        public init(maximumReaderCount: Int = 8, busyTimeout: Duration = .seconds(5), migrations: [Migration] = []) {
            self.maximumReaderCount = max(1, maximumReaderCount)
            self.busyTimeout = busyTimeout
            self.migrations = migrations
        }
    }

    public let path: String
    public let configuration: Configuration

    private let writerLock = ConditionLock()
    private var writer: Database?

    private let readerLock = ConditionLock()
    private var idleReaders: [Database] = []
    private var openReaderCount = 0
    private var isClosed = false

    /// Opens (creating if needed) the database at `path`, switches it to WAL and applies migrations.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.path = path
        self.configuration = configuration
        let writer = try Database(path: path, mode: .readWrite, create: true, busyTimeout: configuration.busyTimeout)
        let journalMode = try writer.scalar("PRAGMA journal_mode = WAL").string
        guard journalMode?.lowercased() == "wal" else {
            throw SQLiteError(
                code: SQLITE_ERROR, message: "could not switch to WAL (journal_mode is \(journalMode ?? "unknown"))",
                path: path)
        }
        // FULL syncs the WAL on every commit: an acknowledged report survives a power cut.
        // (NORMAL, the usual WAL choice, may lose the last commits.)
        try writer.execute("PRAGMA synchronous = FULL")
        try Migrator.apply(configuration.migrations, to: writer)
        writer.reusesStatements = true
        self.writer = writer
    }

    deinit {
        close()
    }

    /// Runs `body` on the writer connection inside an IMMEDIATE transaction, one writer at a time.
    ///
    /// Returning commits (and, with synchronous=FULL, makes the change durable); throwing rolls back.
    /// `database.transaction` inside `body` makes a savepoint.
    @discardableResult
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try writerLock.withLock {
            guard let writer else { throw closedError() }
            StatementCounts.process.writeTransaction()
            return try writer.transaction(.immediate) { try body(writer) }
        }
    }

    /// Runs `body` on a writer connection outside any transaction, for statements that refuse one
    /// (`VACUUM`, `PRAGMA wal_checkpoint`).
    @discardableResult
    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try writerLock.withLock {
            guard let writer else { throw closedError() }
            return try body(writer)
        }
    }

    /// Runs `body` on a read-only connection inside a read transaction, so every query in it sees
    /// the same committed snapshot. Readers run in parallel with each other and with the writer.
    @discardableResult
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        if let held = heldReader() { return try body(held) }
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        return try reader.transaction(.deferred) { try body(reader) }
    }

    /// Runs `body` on a read-only connection outside any transaction: for a body of one statement,
    /// which SQLite runs in a read transaction of its own (one snapshot), without the BEGIN and the
    /// COMMIT around it. A body of several statements sees a snapshot per statement: use `read`.
    @discardableResult
    public func readOneStatement<T>(_ body: (Database) throws -> T) throws -> T {
        if let held = heldReader() { return try body(held) }
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        return try body(reader)
    }

    /// Runs `body` on a read-only connection with that connection's memo (`Database.withMemo`), outside
    /// any transaction: a value the memo holds costs a look at the WAL index's header, and one
    /// `PRAGMA data_version` only when that moved (BEGIN and COMMIT around it were a third of a
    /// memoized read). Each statement of `body` is its own snapshot.
    @discardableResult
    public func readMemoized<Key: Hashable, Value, T>(_ body: (Database, inout [Key: Value]) throws -> T) throws -> T {
        if let held = heldReader() { return try held.withMemo { memo in try body(held, &memo) } }
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        return try reader.withMemo { memo in try body(reader, &memo) }
    }

    /// Runs `body` with one reader held by this thread in one read transaction: every `read`,
    /// `readOneStatement` and `readMemoized` of this pool that `body` makes on this thread runs on that
    /// reader, in that snapshot, instead of taking a reader and a read transaction of its own. For a
    /// page that several stores read at once (the report list: its rows, the review's notices, the
    /// kiosks' receipts, the bell): one snapshot for the whole page, and one read transaction (each
    /// one locks and unlocks in the WAL index, where readers of the process contend, and checks the
    /// file's size) instead of four. Reads only: a `write` in `body` runs on the writer as always, and
    /// `body`'s later reads do not see it. Nested calls on the same thread join the outer one.
    @discardableResult
    public func readTogether<T>(_ body: () throws -> T) throws -> T {
        if heldReader() != nil { return try body() }
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        return try reader.transaction(.deferred) {
            let outer = pthread_getspecific(Self.heldKey)
            let hold = HeldReader(pool: self, reader: reader, outer: outer)
            pthread_setspecific(Self.heldKey, Unmanaged.passUnretained(hold).toOpaque())
            defer { pthread_setspecific(Self.heldKey, outer) }
            return try withExtendedLifetime(hold) { try body() }
        }
    }

    /// What a thread holds inside `readTogether`: the reader, the pool it belongs to (a thread may
    /// read from another pool, whose calls must not use it), and what the thread held before, in
    /// another pool's `readTogether` around this one.
    private final class HeldReader {
        unowned let pool: DatabasePool
        let reader: Database
        let outer: UnsafeMutableRawPointer?

        init(pool: DatabasePool, reader: Database, outer: UnsafeMutableRawPointer?) {
            self.pool = pool
            self.reader = reader
            self.outer = outer
        }
    }

    /// One thread-specific slot for the whole process (a key per pool would run out: tests open
    /// hundreds of pools, and a process has 1,024 keys).
    private static let heldKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key for the database's readers")
        return key
    }()

    /// The reader this thread holds in `readTogether` on this pool, if any.
    @inline(__always)
    private func heldReader() -> Database? {
        var next = pthread_getspecific(Self.heldKey)
        while let raw = next {
            let hold = Unmanaged<HeldReader>.fromOpaque(raw).takeUnretainedValue()
            if hold.pool === self { return hold.reader }
            next = hold.outer
        }
        return nil
    }

    /// Closes every connection. Waits for a running write; readers in use close when returned.
    /// Later calls to `read` and `write` throw.
    public func close() {
        writerLock.withLock {
            writer?.close()
            writer = nil
        }
        let idle = readerLock.withLock { () -> [Database] in
            isClosed = true
            let idle = idleReaders
            idleReaders.removeAll()
            openReaderCount -= idle.count
            readerLock.broadcast()
            return idle
        }
        for reader in idle { reader.close() }
    }

    private func closedError() -> SQLiteError {
        SQLiteError.misuse("database pool for \(path) is closed")
    }

    private func checkOutReader() throws -> Database {
        StatementCounts.process.readerCheckout()
        let reuse = try readerLock.withLock { () throws -> Database? in
            while true {
                if isClosed { throw closedError() }
                if let reader = idleReaders.popLast() { return reader }
                if openReaderCount < configuration.maximumReaderCount {
                    openReaderCount += 1
                    return nil
                }
                readerLock.wait()
            }
        }
        if let reuse { return reuse }
        // Opened outside the lock: opening touches the disk and must not hold up other readers.
        do {
            let reader = try Database(path: path, mode: .readOnly, busyTimeout: configuration.busyTimeout)
            reader.reusesStatements = true
            return reader
        } catch {
            readerLock.withLock {
                openReaderCount -= 1
                readerLock.signal()
            }
            throw error
        }
    }

    private func checkIn(_ reader: Database) {
        let closeIt = readerLock.withLock { () -> Bool in
            if isClosed {
                openReaderCount -= 1
                return true
            }
            idleReaders.append(reader)
            readerLock.signal()
            return false
        }
        if closeIt { reader.close() }
    }
}
