import Dispatch
import Synchronization
import Testing

@testable import SQLiteStorage

/// `DatabasePool.readTogether`: the reads a page makes of several stores share one reader and one
/// snapshot (the report list's rows, notices, receipts and bell), without waiting for a second reader,
/// and leave nothing behind: no stale memo, no reader held after it ends, even when it throws.
@Suite struct ReadTogetherTests {
    let directory = TemporaryDirectory()

    func openPool(_ name: String = "together.sqlite", readers: Int = 1) throws -> DatabasePool {
        let pool = try DatabasePool(
            path: directory.file(name),
            configuration: .init(
                maximumReaderCount: readers,
                migrations: [
                    Migration(
                        version: 1, name: "counter",
                        sql: "CREATE TABLE counter (id INTEGER PRIMARY KEY, value INTEGER);")
                ]))
        try pool.write { try $0.run("INSERT INTO counter (id, value) VALUES (1, 1)") }
        return pool
    }

    static func value(_ db: Database) throws -> Int64? { try db.scalar("SELECT value FROM counter WHERE id = 1").int }

    static func set(_ pool: DatabasePool, _ value: Int64) throws {
        try pool.write { try $0.run("UPDATE counter SET value = ? WHERE id = 1", .integer(value)) }
    }

    /// Every kind of read inside sees the snapshot of the first, though a write commits in between;
    /// the pool's only reader is taken once (a second checkout would wait for ever).
    @Test func everyReadInsideSharesOneSnapshotOnOneReader() throws {
        let pool = try openPool(readers: 1)
        let seen = try pool.readTogether { () throws -> [Int64?] in
            let first = try pool.read { try Self.value($0) }
            try Self.set(pool, 2)
            let statement = try pool.readOneStatement { try Self.value($0) }
            let read = try pool.read { try Self.value($0) }
            let memoized = try pool.readMemoized { (db, memo: inout [Int: Int64?]) in
                if let kept = memo[1] { return kept }
                let value = try Self.value(db)
                memo[1] = value
                return value
            }
            let nested = try pool.readTogether { try pool.read { try Self.value($0) } }
            return [first, statement, read, memoized, nested]
        }
        #expect(seen == [1, 1, 1, 1, 1])
        #expect(try pool.read { try Self.value($0) } == 2, "after it, reads see the commit")
    }

    /// A value memoized inside, from the older snapshot, is not served after it: the memo is checked
    /// against the file's version again (a session revoked meanwhile must be seen at once).
    @Test func aMemoFilledInsideIsNotStaleAfterIt() throws {
        let pool = try openPool(readers: 1)
        func memoized() throws -> Int64? {
            try pool.readMemoized { (db, memo: inout [Int: Int64?]) in
                if let kept = memo[1] { return kept }
                let value = try Self.value(db)
                memo[1] = value
                return value
            }
        }
        let inside = try pool.readTogether { () throws -> Int64? in
            _ = try pool.read { try Self.value($0) }
            try Self.set(pool, 2)
            return try memoized()
        }
        #expect(inside == 1)
        #expect(try memoized() == 2)
    }

    /// Thrown out of: the error comes through, the reader goes back, the next read is on a fresh snapshot.
    @Test func aThrowReleasesTheReader() throws {
        struct Refused: Error {}
        let pool = try openPool(readers: 1)
        #expect(throws: Refused.self) {
            try pool.readTogether {
                _ = try pool.read { try Self.value($0) }
                try Self.set(pool, 3)
                throw Refused()
            }
        }
        #expect(try pool.read { try Self.value($0) } == 3)
        #expect(try pool.readTogether { try pool.readOneStatement { try Self.value($0) } } == 3)
    }

    /// Two pools on one thread: inside the second's `readTogether`, reads of the first still use the
    /// reader the first holds (its only one), and each pool reads its own file.
    @Test func anotherPoolsReadTogetherInsideKeepsEachPoolsReader() throws {
        let first = try openPool("first.sqlite", readers: 1)
        let second = try openPool("second.sqlite", readers: 1)
        try Self.set(second, 20)
        let seen = try first.readTogether { () throws -> [Int64?] in
            try second.readTogether {
                [try first.read { try Self.value($0) }, try second.read { try Self.value($0) }]
            }
        }
        #expect(seen == [1, 20])
        #expect(try first.read { try Self.value($0) } == 1)
    }

    /// Another thread's reads are not drawn into this thread's `readTogether`: they take a reader of
    /// their own and see the latest commit.
    @Test func otherThreadsReadOnTheirOwn() throws {
        let pool = try openPool(readers: 2)
        let inside = try pool.readTogether { () throws -> Int64? in
            _ = try pool.read { try Self.value($0) }
            try Self.set(pool, 5)
            return try pool.read { try Self.value($0) }
        }
        #expect(inside == 1)
        try pool.readTogether {
            try Self.set(pool, 6)
            let elsewhere = Mutex<Int64?>(nil)
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                let value = try? pool.read { try Self.value($0) }
                elsewhere.withLock { $0 = value ?? nil }
                done.signal()
            }
            done.wait()
            #expect(elsewhere.withLock { $0 } == 6)
        }
    }
}
