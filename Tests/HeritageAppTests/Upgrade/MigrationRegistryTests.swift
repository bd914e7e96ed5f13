import Foundation
import TestSupport
import Testing

@testable import HeritageApp

/// The one migration registry: each migration listed once for both databases, its versions 1, 2, 3…
/// without a gap, each with a script in both dialects, and every file under `Stores/Migrations/` named by
/// its version and what it does and listed (a file left out of the registry would never run).
struct MigrationRegistryTests {
    @Test func theVersionsRunFromOneWithoutAGapOrATwin() {
        let versions = AppMigrations.registry.map { $0.version }
        #expect(versions == Array(1...max(versions.count, 1)))
        #expect(AppMigrations.newest == versions.count)
    }

    @Test func everyMigrationHasANameAndBothDialects() {
        for migration in AppMigrations.registry {
            #expect(!migration.name.isEmpty, "migration \(migration.version) has no name")
            #expect(!migration.sqlite.isEmpty, "migration \(migration.version) has no SQLite script")
            #expect(!migration.postgres.isEmpty, "migration \(migration.version) has no PostgreSQL script")
        }
        #expect(Set(AppMigrations.registry.map { $0.name }).count == AppMigrations.registry.count)
    }

    @Test func bothDialectsCarryTheSameVersionsAndNames() {
        let sqlite = AppMigrations.sqlite.map { "\($0.version) \($0.name)" }
        let postgres = AppMigrations.postgres.map { "\($0.version) \($0.name)" }
        #expect(sqlite == postgres)
        #expect(sqlite.count == AppMigrations.registry.count)
    }

    @Test func everyMigrationFileIsNamedByItsVersionAndListed() throws {
        let folder = TestPaths.packageRoot + "/Sources/HeritageApp/Stores/Migrations"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasSuffix(".swift") && $0 != "AppMigrations.swift"
        }  // the registry beside them
        let listed = AppMigrations.registry.map { String(describing: $0) + ".swift" }
        #expect(files.sorted() == listed.sorted(), "each file under Migrations/ is one line of the registry")
        for migration in AppMigrations.registry {
            let type = String(describing: migration)
            let prefix = "Migration" + (migration.version < 10 ? "0" : "") + String(migration.version)
            #expect(type.hasPrefix(prefix) && type.count > prefix.count, "\(type) is not named by version and purpose")
        }
    }
}
