import PostgresStorage
import SQLiteStorage
import Testing

@testable import HeritageApp

/// Each engine's named capabilities (`SQLDialect`) are what its own migrations build: a statement that
/// asks `hasTrigramTable` or `spatialIndex` finds the table or index it then queries, and the e-mail's
/// conflict target is the unique constraint or index that engine has. (The stores' conformance tests run
/// every statement on both engines; this names which schema fact each capability stands for.)
struct SQLDialectTests {
    static func script(_ migrations: [Migration]) -> String {
        migrations.map(\.sql).joined(separator: "\n")
    }

    @Test func sqliteCapabilitiesAreWhatItsMigrationsBuild() {
        let schema = Self.script(AppMigrations.sqlite)
        let dialect = SQLDialect.sqlite
        #expect(dialect.hasTrigramTable == schema.contains("tokenize = 'trigram'"))
        #expect(dialect.spatialIndex == .rtreeTable && schema.contains("USING rtree("))
        #expect(dialect.caseFolding == .collatedColumn && schema.contains("COLLATE NOCASE"))
        #expect(dialect.conflictTarget(caseInsensitive: "email") == "(email)")
        #expect(dialect.skipLocked.isEmpty)
        #expect(dialect.hasResizablePageCache)
    }

    @Test func postgresCapabilitiesAreWhatItsMigrationsBuild() {
        let schema = Self.script(AppMigrations.postgres)
        let dialect = SQLDialect.postgres
        #expect(!dialect.hasTrigramTable && !schema.contains("tokenize"))
        #expect(dialect.spatialIndex == .pointInBox && schema.contains("USING gist (point("))
        #expect(
            dialect.caseFolding == .loweredIndex
                && schema.contains("CREATE UNIQUE INDEX users_email ON users (lower(email))"))
        #expect(dialect.conflictTarget(caseInsensitive: "email") == "((lower(email)))")
        #expect(dialect.skipLocked == "FOR UPDATE SKIP LOCKED")
        #expect(!dialect.hasResizablePageCache)
    }

    @Test func eachBackendSpeaksItsEnginesDialect() {
        #expect(SQLiteDatabase.dialect.spatialIndex == .rtreeTable)
        #expect(PostgresDatabase.dialect.spatialIndex == .pointInBox)
        #expect(PostgresDatabase.skipLocked == "FOR UPDATE SKIP LOCKED" && SQLiteDatabase.skipLocked.isEmpty)
    }
}
