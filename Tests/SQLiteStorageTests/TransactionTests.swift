import Testing

@testable import SQLiteStorage

struct Boom: Error {}

@Suite struct TransactionTests {
    let directory = TemporaryDirectory()

    func open() throws -> Database {
        let database = try Database(path: directory.file("tx.sqlite"))
        try database.execute("CREATE TABLE note (text TEXT NOT NULL)")
        return database
    }

    func texts(_ database: Database) throws -> [String] {
        try database.query("SELECT text FROM note ORDER BY rowid").compactMap { try $0.string(0) }
    }

    @Test func commitsWhenBodyReturns() throws {
        let database = try open()
        let count = try database.transaction {
            try database.run("INSERT INTO note VALUES ('a')")
            try database.run("INSERT INTO note VALUES ('b')")
            return 2
        }
        #expect(count == 2)
        #expect(try texts(database) == ["a", "b"])
        #expect(database.isAutocommit)
    }

    @Test func rollsBackWhenBodyThrows() throws {
        let database = try open()
        #expect(throws: Boom.self) {
            try database.transaction {
                try database.run("INSERT INTO note VALUES ('lost')")
                throw Boom()
            }
        }
        #expect(try texts(database).isEmpty)
        #expect(database.isAutocommit)
    }

    @Test func nestedTransactionIsASavepoint() throws {
        let database = try open()
        try database.transaction {
            try database.run("INSERT INTO note VALUES ('outer')")
            #expect(throws: Boom.self) {
                try database.transaction {
                    try database.run("INSERT INTO note VALUES ('inner, undone')")
                    throw Boom()
                }
            }
            try database.transaction {
                try database.run("INSERT INTO note VALUES ('inner, kept')")
                try database.transaction {
                    try database.run("INSERT INTO note VALUES ('innermost')")
                }
            }
        }
        #expect(try texts(database) == ["outer", "inner, kept", "innermost"])
    }

    @Test func outerRollbackUndoesReleasedSavepoints() throws {
        let database = try open()
        #expect(throws: Boom.self) {
            try database.transaction {
                try database.transaction { try database.run("INSERT INTO note VALUES ('x')") }
                throw Boom()
            }
        }
        #expect(try texts(database).isEmpty)
    }

    @Test func sqlErrorInsideTransactionRollsBack() throws {
        let database = try open()
        #expect(throws: SQLiteError.self) {
            try database.transaction {
                try database.run("INSERT INTO note VALUES ('a')")
                try database.run("INSERT INTO note VALUES (NULL)")
            }
        }
        #expect(try texts(database).isEmpty)
    }
}
