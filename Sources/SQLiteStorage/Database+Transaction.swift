import CSQLite

extension Database {
    public enum TransactionKind: String, Sendable {
        /// Takes no lock until the first read or write; right for read-only snapshots.
        case deferred = "DEFERRED"
        /// Takes the write lock at once, so a write never fails half-way with SQLITE_BUSY on upgrade.
        case immediate = "IMMEDIATE"
    }

    /// Runs `body` atomically: commits when it returns, rolls back when it throws.
    ///
    /// Called inside another transaction it becomes a SAVEPOINT, so an inner failure undoes only
    /// the inner work and the outer transaction decides what happens to the rest.
    @discardableResult
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        if isAutocommit {
            return try outermostTransaction(kind, body)
        }
        return try savepoint(body)
    }

    private func outermostTransaction<T>(_ kind: TransactionKind, _ body: () throws -> T) throws -> T {
        // Kept prepared: a read is BEGIN, one query and COMMIT, and parsing the two cost as much
        // as the query.
        switch kind {
        case .deferred: try executeReusable("BEGIN DEFERRED TRANSACTION")
        case .immediate: try executeReusable("BEGIN IMMEDIATE TRANSACTION")
        }
        let result: T
        do {
            result = try body()
        } catch {
            rollbackIgnoringErrors("ROLLBACK TRANSACTION")
            throw error
        }
        do {
            try executeReusable("COMMIT TRANSACTION")
        } catch {
            rollbackIgnoringErrors("ROLLBACK TRANSACTION")
            throw error
        }
        return result
    }

    private func savepoint<T>(_ body: () throws -> T) throws -> T {
        let name = nextSavepointName()
        try execute("SAVEPOINT \(name)")
        let result: T
        do {
            result = try body()
        } catch {
            // ROLLBACK TO keeps the savepoint open; RELEASE then removes it, leaving the outer
            // transaction as it was before the savepoint.
            rollbackIgnoringErrors("ROLLBACK TO SAVEPOINT \(name)")
            rollbackIgnoringErrors("RELEASE SAVEPOINT \(name)")
            throw error
        }
        try execute("RELEASE SAVEPOINT \(name)")
        return result
    }

    /// Some errors (SQLITE_FULL, SQLITE_IOERR, …) make SQLite roll back by itself; a second rollback
    /// then fails with "no transaction is active". The caller's original error is the one that matters.
    private func rollbackIgnoringErrors(_ sql: String) {
        guard !isAutocommit else { return }
        _ = try? execute(sql)
    }
}
