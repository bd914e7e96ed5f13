import Testing

@testable import SQLiteStorage

/// A statement's reads by position go straight from SQLite's cell to the type asked for (no `SQLValue`
/// on the way): each must give exactly what the read through `value(at:)` gives, for every storage
/// class and for hostile text (NUL, markup, quotes, non-ASCII, bytes that are not UTF-8), and throw for
/// a column the statement does not have.
@Suite struct StatementTypedReadTests {
    let directory = TemporaryDirectory()

    /// Every cell of `sql`'s first row read both ways, compared.
    func expectSameReads(_ database: Database, _ sql: String, columns: Int) throws {
        let statement = try database.prepare(sql)
        #expect(try statement.step())
        for index in 0..<columns {
            let value = try statement.value(at: index)
            #expect(try statement.string(index) == value.string, "string of column \(index) of \(sql)")
            #expect(try statement.int(index) == value.int, "int of column \(index) of \(sql)")
            #expect(
                try statement.double(index).map(\.bitPattern) == value.double.map(\.bitPattern),
                "double of column \(index) of \(sql)")
        }
    }

    @Test func everyStorageClassReadsAsThroughAValue() throws {
        let database = try Database(path: directory.file("reads.sqlite"))
        try database.execute("CREATE TABLE cell (t TEXT, r REAL, i INTEGER, b BLOB, n)")
        let hostile = "zero\0byte \"quoted\" 'single' <b>&amp; ünïcødé 🏛️ `=` and a long tail past 15 bytes"
        try database.run(
            "INSERT INTO cell VALUES (?, ?, ?, ?, NULL)", .text(hostile), .real(1_764_979_200.123456),
            .integer(Int64.min), .blob([0, 0xFF, 0x3C]))
        try expectSameReads(database, "SELECT t, r, i, b, n FROM cell", columns: 5)
        let statement = try database.prepare("SELECT t, r, i, b, n FROM cell")
        #expect(try statement.step())
        #expect(try statement.string(0) == hostile)
        #expect(try statement.double(1) == 1_764_979_200.123456)
        #expect(try statement.int(1) == nil, "a real with a fraction is no integer")
        #expect(try statement.int(2) == Int64.min)
        #expect(try statement.string(3) == nil, "a blob is not decoded as text")
        #expect(try statement.string(4) == nil && statement.int(4) == nil && statement.double(4) == nil)
    }

    @Test func oddTextAndNumbersReadAsThroughAValue() throws {
        let database = try Database(path: directory.file("odd.sqlite"))
        // Bytes that are not UTF-8 (an overlong '<', a lone continuation, 0xFF, NUL), empty text,
        // an exact real, a number stored as text, the largest integer, text that looks like a number.
        let sql = """
            SELECT CAST(X'C0BC3CFF00' AS TEXT), '', 2.0, '42', 9223372036854775807, X'', -0.0, 'é'
            """
        try expectSameReads(database, sql, columns: 8)
        let statement = try database.prepare(sql)
        #expect(try statement.step())
        #expect(try statement.string(0) == "\u{FFFD}\u{FFFD}<\u{FFFD}\0")
        #expect(try statement.string(1) == "")
        #expect(try statement.int(2) == 2, "an exact real reads as an integer")
        #expect(try statement.int(3) == nil, "text is never parsed as a number")
        #expect(try statement.int(4) == Int64.max)
    }

    @Test func aColumnTheStatementLacksThrows() throws {
        let database = try Database(path: directory.file("range.sqlite"))
        let statement = try database.prepare("SELECT 1, 'a'")
        #expect(try statement.step())
        for index in [-1, 2, 100] {
            let error = try #require(throws: SQLiteError.self) { try statement.string(index) }
            #expect(error.code == 25)  // SQLITE_RANGE
            #expect(throws: SQLiteError.self) { try statement.int(index) }
            #expect(throws: SQLiteError.self) { try statement.double(index) }
        }
    }
}
