// SQLiteStorageTests: the SQLite wrapper on real database files: statements, rows, transactions, the
// connection pool, migrations and what happens when a file cannot be opened.
import Testing

@testable import SQLiteStorage

@Suite struct DatabaseTests {
    let directory = TemporaryDirectory()

    func open() throws -> Database {
        let database = try Database(path: directory.file("test.sqlite"))
        try database.execute(
            """
            CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB, count INTEGER);
            """)
        return database
    }

    @Test func crudWithEveryValueType() throws {
        let database = try open()
        let hostile = "zero\0byte, ünïcødé 🏛️, 'quotes' \"double\"; DROP TABLE item; --"
        let blob: [UInt8] = [0, 1, 2, 255, 0, 128]
        try database.run(
            "INSERT INTO item (name, score, data, count) VALUES (?, ?, ?, ?)", .text(hostile), .real(2.5),
            .blob(blob), .integer(Int64.max))
        let id = database.lastInsertRowID
        #expect(database.changes == 1)

        let rows = try database.query("SELECT * FROM item WHERE id = ?", .integer(id))
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(try row.string("name") == hostile)
        #expect(try row.string("name")?.utf8.count == hostile.utf8.count)
        #expect(try row.double("score") == 2.5)
        #expect(try row.blob("data") == blob)
        #expect(try row.int("count") == Int64.max)
        #expect(row.columnNames == ["id", "name", "score", "data", "count"])

        #expect(try database.run("UPDATE item SET name = ?, data = NULL WHERE id = ?", nil, .integer(id)) == 1)
        let updated = try #require(try database.query("SELECT name, data FROM item").first)
        #expect(try updated.isNull("name"))
        #expect(try updated.string("name") == nil)
        #expect(try updated.blob(1) == nil)

        #expect(try database.run("DELETE FROM item WHERE id = ?", .integer(id)) == 1)
        #expect(try database.scalar("SELECT count(*) FROM item") == .integer(0))
        #expect(try database.scalar("SELECT name FROM item") == .null)
    }

    @Test func emptyTextAndEmptyBlobAreNotNull() throws {
        let database = try open()
        try database.run("INSERT INTO item (name, data) VALUES (?, ?)", "", .blob([]))
        let row = try #require(try database.query("SELECT name, data, typeof(name), typeof(data) FROM item").first)
        #expect(try row.string(0) == "")
        #expect(try row.blob(1) == [])
        #expect(try row.string(2) == "text")
        #expect(try row.string(3) == "blob")
    }

    @Test func aColumnTheRowLacksThrowsAndTheFirstOfASharedNameIsRead() throws {
        let database = try open()
        try database.run("INSERT INTO item (name, count) VALUES (?, ?)", "one", .integer(1))
        let row = try #require(try database.query("SELECT name, count AS name FROM item").first)
        #expect(try row.string("name") == "one")
        let byName = try #require(throws: SQLiteError.self) { try row.int("missing") }
        #expect(byName.code == 25)  // SQLITE_RANGE
        #expect(byName.message == "no column named missing (columns: name, name)")
        let byIndex = try #require(throws: SQLiteError.self) { try row.int(2) }
        #expect(byIndex.code == 25)
        #expect(byIndex.message == "no column at index 2 (row has 2)")
        let statement = try database.prepare("SELECT name, count AS name FROM item")
        #expect(try statement.step())
        #expect(try statement.columnIndex(named: "name") == 0)
        #expect(throws: SQLiteError.self) { try statement.int("missing") }
    }

    @Test func queryTextReadsEveryCellAsTextWithNullsKept() throws {
        let database = try open()
        let hostile = "zero\0byte, ünïcødé 🏛️ & <b>"
        try database.run(
            "INSERT INTO item (name, score, data, count) VALUES (?, ?, ?, ?)", .text(hostile), .real(2.5),
            .blob(Array("raw".utf8)), .integer(-42))
        try database.run("INSERT INTO item (name, count) VALUES ('', NULL)")
        let table = try database.queryText(
            "SELECT name, score, data, count AS n FROM item WHERE count IS ? OR 1 ORDER BY id", [.null])
        #expect(table.columns == ["name", "score", "data", "n"])
        #expect(table.rowCount == 2)
        #expect(table.string(row: 0, column: 0) == hostile)
        #expect(table.string(row: 0, column: 1) == "2.5")
        #expect(table.string(row: 0, column: 2) == "raw")
        #expect(table.string(row: 0, column: 3) == "-42")
        #expect(table.string(row: 1, column: 0) == "")
        #expect(table.cell(row: 1, column: 1) == nil)
        #expect(table.cell(row: 1, column: 3) == nil)
        #expect(try database.queryText("SELECT name FROM item WHERE id < 0").rowCount == 0)
        // Bytes that are not UTF-8 come as they are stored; an empty blob is an empty cell, not NULL.
        let odd = try database.queryText("SELECT CAST(X'C0BC3CFF00' AS TEXT), X'', X'FF26', NULL")
        #expect(odd.cell(row: 0, column: 0).map(Array.init) == [0xC0, 0xBC, 0x3C, 0xFF, 0x00])
        #expect(odd.cell(row: 0, column: 1).map(Array.init) == [])
        #expect(odd.cell(row: 0, column: 2).map(Array.init) == [0xFF, 0x26])
        #expect(odd.cell(at: 3) == nil)
    }

    @Test func bindingByNameWithOrWithoutPrefix() throws {
        let database = try open()
        try database.run(
            "INSERT INTO item (name, count) VALUES (:name, @count)", named: ["name": "a", "@count": 7])
        let statement = try database.prepare("SELECT count FROM item WHERE name = $name")
        try statement.bind("a", to: "name")
        #expect(try statement.step())
        #expect(try statement.int("count") == 7)
        #expect(try statement.int(0) == 7)
        #expect(try statement.isNull(0) == false)
        #expect(try statement.step() == false)

        try statement.reset()
        try statement.bind("missing", to: "$name")
        #expect(try statement.step() == false)

        #expect(throws: SQLiteError.self) { try statement.bind("x", to: "nope") }
        #expect(throws: SQLiteError.self) { try statement.string("nope") }
    }

    @Test func statementIsReusableAfterReset() throws {
        let database = try open()
        let insert = try database.prepare("INSERT INTO item (count) VALUES (?)")
        for value in 1...100 {
            try insert.bind(.integer(Int64(value)), at: 1)
            try insert.step()
            try insert.reset()
        }
        #expect(try database.scalar("SELECT sum(count) FROM item") == .integer(5050))
    }

    /// Kept statements (`withReusableStatement`, as a pool's connections use them): the same SQL run
    /// inside its own use gets a statement of its own; statements added while one is in use (the
    /// table of kept ones grows) leave it intact; past the limit of kept ones everything still runs.
    @Test func keptStatementsSurviveNestingGrowthAndTheLimit() throws {
        let database = try open()
        database.reusesStatements = true
        for value in 1...5 { try database.run("INSERT INTO item (count) VALUES (?)", .integer(Int64(value))) }
        let select = "SELECT count FROM item WHERE count >= ? ORDER BY count"
        let outer = try database.withReusableStatement(select) { statement -> [Int64] in
            try statement.bind([.integer(2)])
            var seen: [Int64] = []
            while try statement.step() {
                seen.append(try statement.int(0) ?? -1)
                // The same SQL, in use above: a statement of its own.
                #expect(try database.query(select, .integer(4)).count == 2)
                // More distinct statements than are kept, while this one is out.
                for extra in 0..<(Database.reusableStatementLimit + 6) {
                    #expect(try database.scalar("SELECT \(extra) + ?", .integer(1)) == .integer(Int64(extra + 1)))
                }
            }
            return seen
        }
        #expect(outer == [2, 3, 4, 5])
        for _ in 0..<3 {
            #expect(try database.query(select, .integer(5)).count == 1)
            #expect(try database.scalar("SELECT 70 + ?", .integer(1)) == .integer(71))
        }
    }

    @Test func errorsCarryCodeMessageAndSQLButNotValues() throws {
        let database = try open()
        try database.execute("CREATE TABLE account (email TEXT UNIQUE NOT NULL)")
        try database.run("INSERT INTO account (email) VALUES (?)", "secret@example.org")
        let sql = "INSERT INTO account (email) VALUES (?)"
        let error = try #require(throws: SQLiteError.self) { try database.run(sql, "secret@example.org") }
        #expect(error.code == 19)  // SQLITE_CONSTRAINT
        #expect(error.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(error.isConstraintViolation)
        #expect(error.message.contains("UNIQUE constraint failed: account.email"))
        #expect(error.sql == sql)
        #expect(error.description.contains(sql))
        #expect(!error.description.contains("secret@example.org"))

        let syntax = try #require(throws: SQLiteError.self) { try database.prepare("SELEC 1") }
        #expect(syntax.code == 1)
        #expect(syntax.message.contains("syntax error"))
        #expect(syntax.sql == "SELEC 1")

        let script = try #require(throws: SQLiteError.self) { try database.execute("CREATE TABLE account (x)") }
        #expect(script.message.contains("already exists"))
    }

    @Test func prepareRefusesSeveralStatementsAndWrongParameterCounts() throws {
        let database = try open()
        #expect(throws: SQLiteError.self) { try database.prepare("SELECT 1; DROP TABLE item") }
        _ = try database.prepare("SELECT 1;  \n")
        #expect(throws: SQLiteError.self) { try database.run("SELECT ?", 1, 2) }
        #expect(throws: SQLiteError.self) { try database.run("SELECT ?, ?", 1) }
    }

    @Test func foreignKeysAreEnforced() throws {
        let database = try open()
        try database.execute(
            """
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (parent_id INTEGER NOT NULL REFERENCES parent(id));
            """)
        let error = try #require(throws: SQLiteError.self) { try database.run("INSERT INTO child VALUES (42)") }
        #expect(error.extendedCode == 787)  // SQLITE_CONSTRAINT_FOREIGNKEY
    }

    @Test func readOnlyConnectionRefusesWrites() throws {
        _ = try open()
        let reader = try Database(path: directory.file("test.sqlite"), mode: .readOnly)
        let error = try #require(throws: SQLiteError.self) { try reader.run("INSERT INTO item (count) VALUES (1)") }
        #expect(error.code == 8)  // SQLITE_READONLY
    }

    @Test func closedDatabaseThrowsInsteadOfCrashing() throws {
        let database = try open()
        let statement = try database.prepare("SELECT 1")
        database.close()
        #expect(throws: SQLiteError.self) { try statement.step() }
        #expect(throws: SQLiteError.self) { try database.query("SELECT 1") }
    }

    @Test func openingAndClosingManyTimesLeaksNoStatements() throws {
        _ = try open()
        for _ in 0..<500 {
            let database = try Database(path: directory.file("test.sqlite"))
            let statement = try database.prepare("SELECT count(*) FROM item")
            #expect(try statement.step())
            // Statements still alive when the connection closes (no finalize leak, no crash).
            _ = try database.prepare("SELECT 1")
        }
        // Every statement is finalized in deinit: the connection reports none pending.
        let database = try Database(path: directory.file("test.sqlite"))
        do {
            let statement = try database.prepare("SELECT 1")
            try statement.step()
        }
        #expect(try database.scalar("SELECT 1") == .integer(1))
        #expect(outstandingStatementCount(database) == 0)
    }
}

@Suite struct ConnectionLeakTests {
    let directory = TemporaryDirectory()

    /// Connections and statements released in deinit are closed: what they hold goes back.
    ///
    /// Counted in open file descriptors: a connection holds its files' until SQLite closes it, which
    /// it does only once every statement is finalized (`sqlite3_close_v2`), so a leaked connection or
    /// statement keeps them. (SQLite's own heap counter, which this test read before, is off: the
    /// process runs without memory statistics, `Database.processSettings`.) The count is the process's
    /// and other suites may open files meanwhile: the test first measures what connections kept alive
    /// hold, then checks that 300 open/query/close cycles left fewer open than ten such connections
    /// (a leak of each would leave 300 to 900).
    @Test func openingAndClosingReturnsItsFiles() throws {
        let path = directory.file("leak.sqlite")
        func cycle() throws -> Database {
            let database = try Database(path: path)
            try database.execute("PRAGMA journal_mode = WAL")
            try database.execute("CREATE TABLE IF NOT EXISTS t (x)")
            try database.run("INSERT INTO t VALUES (?)", .blob(Array(repeating: 7, count: 1000)))
            _ = try database.query("SELECT * FROM t LIMIT 10")
            _ = try database.prepare("SELECT count(*) FROM t")
            return database
        }
        let anchor = try cycle()  // keeps the WAL's files open across the cycles, as a pool does
        for _ in 0..<20 { _ = try cycle() }

        let beforeHeld = openFileDescriptorCount()
        var held: [Database] = []
        for _ in 0..<20 { held.append(try cycle()) }
        let heldByOne = Double(openFileDescriptorCount() - beforeHeld) / 20
        held.removeAll()

        let before = openFileDescriptorCount()
        for _ in 0..<300 { _ = try cycle() }
        let growth = openFileDescriptorCount() - before
        #expect(heldByOne >= 1, "a connection kept alive holds its database file")
        #expect(
            Double(growth) < 10 * heldByOne,
            "300 cycles left \(growth) more descriptors open; one connection holds \(heldByOne)")
        withExtendedLifetime(anchor) {}
    }
}
