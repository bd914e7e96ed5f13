import Dispatch
import Testing

@testable import SQLiteStorage

@Suite struct DatabasePoolTests {
    let directory = TemporaryDirectory()
    static let migrations = [
        Migration(
            version: 1, name: "counter", sql: "CREATE TABLE counter (id INTEGER PRIMARY KEY, value INTEGER NOT NULL);")
    ]

    func openPool(readers: Int = 4) throws -> DatabasePool {
        try DatabasePool(
            path: directory.file("pool.sqlite"),
            configuration: .init(maximumReaderCount: readers, migrations: Self.migrations))
    }

    @Test func opensInWALWithFullSyncAndMigrates() throws {
        let pool = try openPool()
        #expect(try pool.write { try $0.scalar("PRAGMA journal_mode").string } == "wal")
        #expect(try pool.write { try $0.scalar("PRAGMA synchronous").int } == 2)  // FULL
        #expect(try pool.write { try $0.scalar("PRAGMA foreign_keys").int } == 1)
        #expect(try pool.read { try $0.scalar("PRAGMA journal_mode").string } == "wal")
        #expect(try pool.read { try Migrator.appliedVersions(in: $0) } == [1])
        // WAL is a property of the file: a plain connection opened later sees it too.
        let other = try Database(path: directory.file("pool.sqlite"))
        #expect(try other.scalar("PRAGMA journal_mode").string == "wal")
    }

    /// Pool connections keep their statements: the same query again, with other bindings, after a
    /// failed one and after a write, gives fresh, correct results.
    @Test func keptStatementsGiveFreshResults() throws {
        let pool = try openPool(readers: 1)
        try pool.write { try $0.run("INSERT INTO counter (value) VALUES (?), (?)", .integer(10), .integer(20)) }
        let sql = "SELECT value FROM counter WHERE value >= ? ORDER BY value"
        #expect(try pool.read { try $0.query(sql, [.integer(0)]) { try $0.int(0) } } == [10, 20])
        #expect(try pool.read { try $0.query(sql, [.integer(15)]) { try $0.int(0) } } == [20])
        #expect(throws: SQLiteError.self) { try pool.read { try $0.query(sql, []) } }
        try pool.write { try $0.run("INSERT INTO counter (value) VALUES (?)", .integer(30)) }
        #expect(try pool.read { try $0.query(sql, [.integer(15)]).map { try $0.int(0) } } == [20, 30])
    }

    @Test func readersAreReadOnly() throws {
        let pool = try openPool()
        let error = try #require(throws: SQLiteError.self) {
            try pool.read { try $0.run("INSERT INTO counter (value) VALUES (1)") }
        }
        #expect(error.code == 8)  // SQLITE_READONLY
    }

    @Test func writeRollsBackWhenBodyThrows() throws {
        struct Refused: Error {}
        let pool = try openPool()
        #expect(throws: Refused.self) {
            try pool.write { database in
                try database.run("INSERT INTO counter (value) VALUES (1)")
                throw Refused()
            }
        }
        #expect(try pool.read { try $0.scalar("SELECT count(*) FROM counter") } == .integer(0))
    }

    @Test func readersInParallelWithWriterSeeOnlyCommittedData() throws {
        let pool = try openPool(readers: 3)
        try pool.write { try $0.run("INSERT INTO counter (id, value) VALUES (1, 0)") }
        let writes = 200
        let group = DispatchGroup()
        let failures = FailureLog()

        DispatchQueue.global().async(group: group) {
            do {
                for value in 1...writes {
                    try pool.write { database in
                        // Two statements per transaction: a reader must never see one without the other.
                        try database.run("UPDATE counter SET value = ? WHERE id = 1", .integer(Int64(value)))
                        try database.run("INSERT INTO counter (value) VALUES (?)", .integer(Int64(value)))
                    }
                }
            } catch {
                failures.record("writer: \(error)")
            }
        }
        for reader in 0..<4 {
            DispatchQueue.global().async(group: group) {
                do {
                    var last: Int64 = -1
                    while last < Int64(writes) {
                        let (value, rows) = try pool.read { database in
                            (
                                try database.scalar("SELECT value FROM counter WHERE id = 1").int ?? -1,
                                try database.scalar("SELECT count(*) FROM counter").int ?? -1
                            )
                        }
                        if rows != value + 1 {
                            failures.record("reader \(reader) saw value \(value) with \(rows) rows")
                        }
                        if value < last { failures.record("reader \(reader) went back from \(last) to \(value)") }
                        last = value
                    }
                } catch {
                    failures.record("reader \(reader): \(error)")
                }
            }
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(failures.messages.isEmpty)
    }

    @Test func closeThenUseThrows() throws {
        let pool = try openPool()
        try pool.read { _ in }
        pool.close()
        #expect(throws: SQLiteError.self) { try pool.write { _ in } }
        #expect(throws: SQLiteError.self) { try pool.read { _ in } }
        pool.close()  // idempotent
    }

    @Test func reopeningKeepsDataAndDoesNotRemigrate() throws {
        do {
            let pool = try openPool()
            try pool.write { try $0.run("INSERT INTO counter (value) VALUES (7)") }
            pool.close()
        }
        let pool = try openPool()
        #expect(try pool.read { try $0.scalar("SELECT value FROM counter").int } == 7)
        #expect(try pool.read { try $0.scalar("SELECT count(*) FROM schema_migrations").int } == 1)
    }
}

/// Collects failures from worker threads; #expect is checked on the test's own thread.
final class FailureLog: @unchecked Sendable {
    private let lock = DispatchSemaphore(value: 1)
    private var storage: [String] = []

    func record(_ message: String) {
        lock.wait()
        storage.append(message)
        lock.signal()
    }

    var messages: [String] {
        lock.wait()
        defer { lock.signal() }
        return storage
    }
}
