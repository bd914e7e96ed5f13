import Glibc

/// A fixed-size pool of connections to one PostgreSQL database, shared by every thread of the process.
///
/// Connections are opened when first needed, up to `size`; a caller beyond that waits. A connection
/// that broke (server restart, network) is dropped on its return and a new one opened next time.
///
/// `@unchecked Sendable` because the compiler cannot see what makes it safe: the idle list and counters
/// are touched only under `lock`, and a checked-out connection belongs to exactly one thread until it
/// is returned.
public final class PostgresPool: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// The most connections open at once (each is a server process: keep nodes × size under the
        /// server's `max_connections`).
        public var size: Int
        /// How many times a transaction that lost a serialization conflict is run again.
        public var maximumAttempts: Int

        public init(size: Int = 8, maximumAttempts: Int = 20) {
            self.size = max(1, size)
            self.maximumAttempts = max(1, maximumAttempts)
        }
    }

    public let configuration: Configuration
    private let connectionString: String
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let available = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var idle: [PostgresConnection] = []
    private var openCount = 0
    private var isClosed = false

    /// Makes the pool and opens one connection at once, so that a wrong address or password fails here.
    public init(_ connectionString: String, configuration: Configuration = Configuration()) throws {
        self.connectionString = connectionString
        self.configuration = configuration
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        available.initialize(to: pthread_cond_t())
        pthread_cond_init(available, nil)
        let first = try PostgresConnection(connectionString)
        idle.append(first)
        openCount = 1
    }

    deinit {
        close()
        pthread_cond_destroy(available)
        available.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Lends a connection to `body` alone, outside any transaction.
    public func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// One SERIALIZABLE transaction, run again on serialization failures (see
    /// `PostgresConnection.serializable`).
    public func write<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { connection in
            try connection.serializable(maximumAttempts: configuration.maximumAttempts) { try body(connection) }
        }
    }

    /// A read-only transaction on one snapshot (REPEATABLE READ): every query in `body` sees the same
    /// committed state.
    public func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { connection in
            try connection.transaction(.repeatableRead, readOnly: true) { try body(connection) }
        }
    }

    /// One read statement in autocommit, outside any transaction: one round trip to the server instead
    /// of three (BEGIN, the statement, COMMIT), and still one snapshot, as every statement has its own.
    /// `body` must run a single statement; a read of several that must agree goes through `read`.
    public func readStatement<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection(body)
    }

    /// Closes the idle connections now and the others as they come back; later calls throw.
    public func close() {
        let closing = locked { () -> [PostgresConnection] in
            isClosed = true
            let closing = idle
            openCount -= idle.count
            idle.removeAll()
            pthread_cond_broadcast(available)
            return closing
        }
        for connection in closing { connection.close() }
    }

    /// Connections open right now (idle and lent).
    public var openConnectionCount: Int { locked { openCount } }

    private func checkOut() throws -> PostgresConnection {
        var stale: [PostgresConnection] = []
        defer { for connection in stale { connection.close() } }
        let reuse = try locked { () throws -> PostgresConnection? in
            while true {
                if isClosed { throw PostgresError.misuse("the PostgreSQL pool is closed") }
                if let connection = idle.popLast() {
                    // The server closed it while it waited here (a restart): a new one instead, so
                    // the first statements after the server's return do not fail on old connections.
                    if connection.isStillOpen { return connection }
                    stale.append(connection)
                    openCount -= 1
                    continue
                }
                if openCount < configuration.size {
                    openCount += 1
                    return nil
                }
                pthread_cond_wait(available, mutex)
            }
        }
        if let reuse { return reuse }
        // Connected outside the lock: it takes a round trip or more.
        do {
            return try PostgresConnection(connectionString)
        } catch {
            locked {
                openCount -= 1
                pthread_cond_signal(available)
            }
            throw error
        }
    }

    private func checkIn(_ connection: PostgresConnection) {
        // A connection left inside a transaction (a body that escaped without ending it) is not reused.
        let keep = connection.isUsable && connection.isIdle
        let closeIt = locked { () -> Bool in
            if isClosed || !keep {
                openCount -= 1
                pthread_cond_signal(available)
                return true
            }
            idle.append(connection)
            pthread_cond_signal(available)
            return false
        }
        if closeIt { connection.close() }
    }
}
