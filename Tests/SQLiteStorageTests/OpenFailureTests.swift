import Glibc
import Testing

@testable import SQLiteStorage

@Suite struct OpenFailureTests {
    let directory = TemporaryDirectory()

    @Test func garbageFileIsReportedAtOpenWithPathAndMessage() throws {
        let path = directory.file("garbage.sqlite")
        directory.write(Array(repeating: 0x5A, count: 4096), to: "garbage.sqlite")
        let error = try #require(throws: SQLiteError.self) { try Database(path: path) }
        #expect(error.code == 26)  // SQLITE_NOTADB
        #expect(error.path == path)
        #expect(error.description == "cannot open database \(path): file is not a database (code 26)")

        // The pool reports the same, before switching to WAL or migrating.
        let poolError = try #require(throws: SQLiteError.self) { try DatabasePool(path: path) }
        #expect(poolError.description.hasPrefix("cannot open database \(path): file is not a database"))
    }

    /// Tests run as root, which ignores permission bits; a path whose parent is a regular file cannot
    /// be created by anyone, so that is the unopenable path we test.
    @Test func pathUnderARegularFileIsReportedAtOpen() throws {
        directory.write([1, 2, 3], to: "not-a-directory")
        let path = directory.file("not-a-directory/db.sqlite")
        let error = try #require(throws: SQLiteError.self) { try DatabasePool(path: path) }
        #expect(error.code == 14)  // SQLITE_CANTOPEN
        #expect(error.path == path)
        #expect(error.description.hasPrefix("cannot open database \(path): unable to open database file (code 14"))
    }

    @Test func missingFileIsNotCreatedWhenAskedNotTo() throws {
        let path = directory.file("absent.sqlite")
        let error = try #require(throws: SQLiteError.self) { try Database(path: path, create: false) }
        #expect(error.code == 14)
        #expect(access(path, F_OK) != 0)
    }
}
