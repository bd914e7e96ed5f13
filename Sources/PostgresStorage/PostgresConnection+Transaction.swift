import Glibc

extension PostgresConnection {
    public enum Isolation: String, Sendable {
        case readCommitted = "READ COMMITTED"
        case repeatableRead = "REPEATABLE READ"
        case serializable = "SERIALIZABLE"
    }

    /// Runs `body` in one transaction: returning commits, throwing rolls back. No retry here (see
    /// `serializable(maximumAttempts:_:)`).
    public func transaction<T>(_ isolation: Isolation, readOnly: Bool = false, _ body: () throws -> T) throws -> T {
        try execute("BEGIN ISOLATION LEVEL \(isolation.rawValue)\(readOnly ? " READ ONLY" : "")")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            if isUsable, !isIdle { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in a SERIALIZABLE transaction, and runs it again (after a short random pause) when
    /// PostgreSQL ends it with a serialization failure or a deadlock, up to `maximumAttempts` times.
    /// `body` must therefore do nothing but database work (its effects are rolled back each time).
    ///
    /// Read-then-write checks that one SQLite writer made safe (the 20 photos of a draft, one open
    /// draft per user) hold across nodes at this level: of two transactions that each read what the
    /// other writes, one fails and runs again, and then sees the other's row.
    public func serializable<T>(maximumAttempts: Int = 20, _ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try transaction(.serializable, body)
            } catch let error as PostgresError where error.isSerializationFailure && attempt < maximumAttempts {
                // Full jitter over a window that grows with the attempts, so the losers do not meet again.
                let window = UInt32(min(attempt, 10)) * 2_000
                usleep(UInt32.random(in: 0...window))
                attempt += 1
            }
        }
    }

    // MARK: Advisory locks

    /// Waits for the session-level advisory lock `key`, runs `body`, and releases the lock.
    public func withAdvisoryLock<T>(_ key: Int64, _ body: () throws -> T) throws -> T {
        try run("SELECT pg_advisory_lock(?)", .integer(key))
        defer { _ = try? run("SELECT pg_advisory_unlock(?)", .integer(key)) }
        return try body()
    }

    /// Takes the session-level advisory lock `key` if it is free; true when this session now holds it
    /// (until `unlockAdvisory` or the end of the session: a dead node's locks go with its connection).
    public func tryAdvisoryLock(_ key: Int64) throws -> Bool {
        try scalar("SELECT pg_try_advisory_lock(?)", .integer(key)).int == 1
    }

    /// Releases one hold of the session-level advisory lock `key`; false when this session held none.
    @discardableResult
    public func unlockAdvisory(_ key: Int64) throws -> Bool {
        try scalar("SELECT pg_advisory_unlock(?)", .integer(key)).int == 1
    }
}
