import Testing

@testable import SQLiteStorage

@Suite struct MigratorTests {
    let directory = TemporaryDirectory()

    static let first = [
        Migration(version: 1, name: "create report", sql: "CREATE TABLE report (id INTEGER PRIMARY KEY, title TEXT);"),
        Migration(
            version: 2, name: "create photo", sql: "CREATE TABLE photo (id INTEGER PRIMARY KEY, report_id INTEGER);"),
    ]
    static let later =
        first + [
            Migration(
                version: 3, name: "report status",
                sql: "ALTER TABLE report ADD COLUMN status TEXT NOT NULL DEFAULT 'draft';")
        ]

    @Test func freshDatabaseGetsEveryMigrationInOrder() throws {
        let database = try Database(path: directory.file("m.sqlite"))
        // Given out of order on purpose.
        let applied = try Migrator.apply(Self.first.reversed(), to: database)
        #expect(applied == [1, 2])
        let rows = try database.query("SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
        #expect(try rows.map { try $0.int("version") } == [1, 2])
        #expect(try rows.map { try $0.string("name") } == ["create report", "create photo"])
        #expect(try rows[0].string("applied_at")?.hasSuffix("Z") == true)
    }

    @Test func rerunAppliesNothingAndLaterRunAppliesOnlyTheNewOnes() throws {
        let path = directory.file("m.sqlite")
        do {
            let database = try Database(path: path)
            try Migrator.apply(Self.first, to: database)
            try database.run("INSERT INTO report (title) VALUES ('kept')")
        }
        let database = try Database(path: path)
        #expect(try Migrator.apply(Self.first, to: database) == [])
        #expect(try Migrator.apply(Self.later, to: database) == [3])
        #expect(try Migrator.apply(Self.later, to: database) == [])
        let row = try #require(try database.query("SELECT title, status FROM report").first)
        #expect(try row.string("title") == "kept")
        #expect(try row.string("status") == "draft")
        #expect(try Migrator.appliedVersions(in: database) == [1, 2, 3])
    }

    @Test func refusesDatabaseNewerThanTheCode() throws {
        let database = try Database(path: directory.file("m.sqlite"))
        try Migrator.apply(Self.later, to: database)
        let error = try #require(throws: MigrationError.self) { try Migrator.apply(Self.first, to: database) }
        #expect(error == .databaseIsNewer(databaseVersion: 3, newestKnownVersion: 2))
        #expect(error.description.contains("newer than this program knows"))
    }

    @Test func refusesAnAppliedVersionTheCodeDoesNotDefine() throws {
        let database = try Database(path: directory.file("m.sqlite"))
        try Migrator.apply(Self.first, to: database)
        let skipping = [Self.later[0], Self.later[2]]
        let error = try #require(throws: MigrationError.self) { try Migrator.apply(skipping, to: database) }
        #expect(error == .unknownAppliedVersion(2))
        #expect(error.description == "database records migration 2, which this program does not define")
    }

    @Test func failuresAreEqualWhenTheirDriversErrorsAre() {
        let error = SQLiteError(code: 1, message: "no such table: nowhere")
        let failed = MigrationError.failed(version: 3, name: "n", underlying: error)
        #expect(failed == .failed(version: 3, name: "n", underlying: error))
        #expect(failed != .failed(version: 3, name: "n", underlying: SQLiteError(code: 1, message: "other")))
        #expect(failed != .failed(version: 4, name: "n", underlying: error))
        #expect(failed.description == "migration 3 (n) failed: \(error)")
    }

    @Test func refusesDuplicateVersions() throws {
        let database = try Database(path: directory.file("m.sqlite"))
        let duplicated = Self.first + [Migration(version: 2, name: "again", sql: "SELECT 1;")]
        #expect(throws: MigrationError.duplicateVersion(2)) { try Migrator.apply(duplicated, to: database) }
        #expect(try Migrator.appliedVersions(in: database).isEmpty)
    }

    @Test func failingMigrationIsRolledBackAndNamed() throws {
        let database = try Database(path: directory.file("m.sqlite"))
        let broken =
            Self.first + [
                Migration(version: 3, name: "half done", sql: "CREATE TABLE extra (x); INSERT INTO nowhere VALUES (1);")
            ]
        let error = try #require(throws: MigrationError.self) { try Migrator.apply(broken, to: database) }
        guard case .failed(let version, let name, let underlying) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(version == 3 && name == "half done")
        #expect((underlying as? SQLiteError)?.message.contains("no such table: nowhere") == true)
        // Earlier migrations stay; the failed one left nothing behind.
        #expect(try Migrator.appliedVersions(in: database) == [1, 2])
        #expect(try database.scalar("SELECT count(*) FROM sqlite_schema WHERE name = 'extra'") == .integer(0))
    }
}
