import CSQLite

extension Database {
    /// `PRAGMA data_version` of this connection. SQLite's guarantee (sqlite.org/pragma.html#pragma_data_version):
    /// two readings on the same connection differ if any other connection committed to the file in
    /// between, in this process or another (`har outbox`, `har users`, the sqlite3 shell); commits made
    /// on this very connection do not change it. Read inside a transaction, it is the version of that
    /// transaction's snapshot.
    public func dataVersion() throws -> Int64 {
        let sql = "PRAGMA data_version"
        let statement: Statement
        if let kept = dataVersionStatement {
            dataVersionStatement = nil
            statement = Statement(database: self, sql: sql, reusing: kept)
        } else {
            statement = try Statement(database: self, sql: sql)
        }
        // Kept for the next call on a connection that keeps statements (`reusesStatements`), as
        // `withReusableStatement` keeps any other; finalized with the Statement otherwise.
        defer {
            if reusesStatements, isOpen, dataVersionStatement == nil {
                dataVersionStatement = statement.detachForReuse()
            }
        }
        guard try statement.step(), let version = try statement.int(0) else {
            throw SQLiteError.misuse("PRAGMA data_version returned no row")
        }
        return version
    }

    /// Runs `body` with this connection's memo: values worked out from the database and kept with the
    /// connection that read them, so that a later read on it can skip the statement. The memo is
    /// emptied first whenever `dataVersion()` moved since it was filled, i.e. whenever another
    /// connection committed anything, so a kept value is never older than the file. The version is
    /// asked only when the WAL index's header (`walIndexHeader`) moved since it was last asked: a
    /// memoized read of an unchanged file runs no statement at all.
    ///
    /// Only for read-only connections (a connection's own commits do not move its version). Outside a
    /// transaction the version is read in a snapshot of its own, before anything `body` reads: a commit
    /// in between makes the memo's values newer than the version they are kept under, never older,
    /// and the next call drops them. Each statement is then its own snapshot, so a kept value should
    /// come from one statement (or `body` opens a transaction). At most `memoLimit` entries of each
    /// key and value type, all dropped when full.
    public func withMemo<Key: Hashable, Value, T>(_ body: (inout [Key: Value]) throws -> T) throws -> T {
        guard mode == .readOnly else { throw SQLiteError.misuse("withMemo needs a read-only connection") }
        // The WAL index's header first: unchanged since the version was last confirmed, no other
        // connection has committed since, which is what `dataVersion()` would say, without its read
        // transaction. Read before the version, so a commit in between makes the kept header older
        // than the version (the next call asks again), never newer. Inside a transaction the version
        // is still asked: it is what starts the snapshot the body's reads then share with the memo.
        let header = isAutocommit ? walIndexHeader() : nil
        if header == nil || header != memoHeader {
            let version = try dataVersion()
            if version != memoVersion {
                for table in memoTables.values { table.removeAll() }
                memoVersion = version
            }
            memoHeader = header
        }
        // Typed tables, found by their type: an `[AnyHashable: Any]` boxed every key and cast every
        // value back, ~6,000 instructions of each memoized session lookup (callgrind).
        let id = ObjectIdentifier(MemoTable<Key, Value>.self)
        let table: MemoTable<Key, Value>
        if let existing = memoTables[id] {
            table = unsafeDowncast(existing, to: MemoTable<Key, Value>.self)
        } else {
            table = MemoTable()
            memoTables[id] = table
        }
        if table.entries.count >= Self.memoLimit { table.entries.removeAll(keepingCapacity: true) }
        return try body(&table.entries)
    }
}

/// One table of a connection's memo, emptied as a whole (`Database.withMemo`).
class MemoTableBase {
    func removeAll() {}
}

/// The memo's entries of one key and value type.
final class MemoTable<Key: Hashable, Value>: MemoTableBase {
    var entries: [Key: Value] = [:]

    override func removeAll() { entries.removeAll(keepingCapacity: true) }
}
