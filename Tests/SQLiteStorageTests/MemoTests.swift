import Foundation
import Testing

@testable import SQLiteStorage

/// `Database.withMemo`: a value kept with a reader connection is dropped by any commit of
/// any other connection, the pool's writer or one of another process's, and kept while nothing changes.
@Suite struct MemoTests {
    let directory = TemporaryDirectory()

    func openPool() throws -> DatabasePool {
        try DatabasePool(
            path: directory.file("memo.sqlite"),
            configuration: .init(
                maximumReaderCount: 1,
                migrations: [
                    Migration(version: 1, name: "t", sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, value INTEGER);")
                ]))
    }

    /// The value through the memo, in a read transaction or (`readMemoized`) outside one: the kept
    /// one when there is one, else read and kept. Returns the value and whether it was read now.
    func memoized(_ pool: DatabasePool, transaction: Bool) throws -> (value: Int64, read: Bool) {
        func body(_ db: Database, _ memo: inout [String: Int64]) throws -> (Int64, Bool) {
            if let kept = memo["sum"] { return (kept, false) }
            let sum = try db.scalar("SELECT COALESCE(SUM(value), 0) FROM t").int ?? 0
            memo["sum"] = sum
            return (sum, true)
        }
        if transaction { return try pool.read { db in try db.withMemo { try body(db, &$0) } } }
        return try pool.readMemoized(body)
    }

    @Test(arguments: [false, true]) func keptUntilAnyOtherConnectionCommits(transaction: Bool) throws {
        let pool = try openPool()
        func memoized(_ pool: DatabasePool) throws -> (value: Int64, read: Bool) {
            try self.memoized(pool, transaction: transaction)
        }
        try pool.write { try $0.run("INSERT INTO t (value) VALUES (1)") }
        #expect(try memoized(pool) == (1, true))
        #expect(try memoized(pool) == (1, false))
        #expect(try memoized(pool) == (1, false))

        // The pool's own writer.
        try pool.write { try $0.run("INSERT INTO t (value) VALUES (2)") }
        #expect(try memoized(pool) == (3, true))
        #expect(try memoized(pool) == (3, false))

        // A connection of its own, as another process (`har outbox`, the sqlite3 shell) has.
        let other = try Database(path: directory.file("memo.sqlite"))
        defer { other.close() }
        try other.run("UPDATE t SET value = 10 WHERE value = 1")
        #expect(try memoized(pool) == (12, true))
        // A commit that changes nothing the memo holds still drops it (it cannot know).
        try other.run("INSERT INTO t (value) VALUES (NULL)")
        #expect(try memoized(pool) == (12, true))
        // A transaction rolled back is no commit.
        try other.execute("BEGIN IMMEDIATE; INSERT INTO t (value) VALUES (100); ROLLBACK;")
        #expect(try memoized(pool) == (12, false))
    }

    /// Another process's commit (the sqlite3 shell, as `har users revoke` is) drops the memo on the very
    /// next read, though an unchanged file is now checked by the WAL index's header with no statement
    /// at all (`StatementCounts`: none started by a memoized read of an unchanged file).
    @Test func anotherProcesssCommitDropsTheMemoAndAnUnchangedFileRunsNoStatement() throws {
        let pool = try openPool()
        try pool.write { try $0.run("INSERT INTO t (value) VALUES (1)") }
        #expect(try memoized(pool, transaction: false) == (1, true))
        #expect(try memoized(pool, transaction: false) == (1, false))
        let before = StatementCounts.process.statements
        for _ in 0..<10 { #expect(try memoized(pool, transaction: false) == (1, false)) }
        // Other tests of this process may run statements meanwhile: only ours must not have.
        #expect(StatementCounts.process.statements - before < 10)

        for value in [5, 7] {
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            shell.arguments = [directory.file("memo.sqlite"), "UPDATE t SET value = \(value)"]
            try shell.run()
            shell.waitUntilExit()
            try #require(shell.terminationStatus == 0)
            #expect(try memoized(pool, transaction: false) == (Int64(value), true))
            #expect(try memoized(pool, transaction: false) == (Int64(value), false))
        }
    }

    /// Each key and value type has a table of its own; a commit empties them all.
    @Test func tablesOfEachTypeAreSeparateAndAllDropped() throws {
        let pool = try openPool()
        try pool.readMemoized { (_, memo: inout [String: Int64]) in memo["a"] = 1 }
        try pool.readMemoized { (_, memo: inout [String: String]) in memo["a"] = "one" }
        try pool.readMemoized { (_, memo: inout [Int: Int64]) in memo[7] = 2 }
        #expect(try pool.readMemoized { (_, memo: inout [String: Int64]) in memo } == ["a": 1])
        #expect(try pool.readMemoized { (_, memo: inout [String: String]) in memo } == ["a": "one"])
        #expect(try pool.readMemoized { (_, memo: inout [Int: Int64]) in memo } == [7: 2])
        try pool.write { try $0.run("INSERT INTO t (value) VALUES (1)") }
        #expect(try pool.readMemoized { (_, memo: inout [String: String]) in memo }.isEmpty)
        #expect(try pool.readMemoized { (_, memo: inout [String: Int64]) in memo }.isEmpty)
        #expect(try pool.readMemoized { (_, memo: inout [Int: Int64]) in memo }.isEmpty)
    }

    @Test func refusedOnAConnectionThatWrites() throws {
        let pool = try openPool()
        #expect(throws: SQLiteError.self) {
            try pool.write { db in try db.withMemo { (_: inout [Int: Int]) in 0 } }
        }
    }
}
