import Foundation
import PostgresStorage
import SQLiteStorage
import Testing

@testable import HeritageApp

/// OPS-08: before `har serve` migrates an existing database it leaves a verified snapshot to go back to;
/// `har migrate --dry-run` says what would change; going back a version (the previous binary on the
/// snapshot) works. PostgreSQL, which har cannot snapshot, is migrated only on the operator's word.
@Suite struct UpgradeSnapshotTests {
    /// The migrations of the binary before the newest one.
    static let previous = AppMigrations.sqlite.filter { $0.version < (AppMigrations.sqlite.map(\.version).max() ?? 0) }
    static var newest: Int { AppMigrations.sqlite.map(\.version).max() ?? 0 }
    static var previousVersion: Int { previous.map(\.version).max() ?? 0 }

    /// A data folder as the previous binary left it: its schema, a user and a report's row.
    static func previousDataFolder() throws -> TemporaryDirectory {
        let folder = TemporaryDirectory(prefix: "har-upgrade")
        let database = try Database(path: folder.file("har.sqlite"))
        defer { database.close() }
        try Migrator.apply(previous, to: database)
        try database.run(
            "INSERT INTO users (email, account_id, created_at, updated_at) VALUES ('kept@example.org', 'a1', 1, 1)")
        return folder
    }

    @Test func dryRunListsWhatServeWouldApplyAndChangesNothing() async throws {
        let folder = try Self.previousDataFolder()
        let result = try await runHar(["migrate", "--dry-run"], environment: ["HAR_DATA_DIR": folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("the database is at schema v\(Self.previousVersion); har serve would apply:"))
        #expect(result.stdout.contains("  v\(Self.newest)\t"))
        #expect(result.stdout.contains("first: a snapshot in \(folder.path)/snapshots/"))
        #expect(try sqlite(folder.path, "SELECT max(version) FROM schema_migrations") == String(Self.previousVersion))
        #expect(!FileManager.default.fileExists(atPath: folder.file("snapshots")))
    }

    @Test func serveSnapshotsBeforeMigratingAndTheSnapshotRollsBack() async throws {
        let original = try Self.previousDataFolder()
        // A copy of the data folder, as an operator would try an upgrade first.
        let copy = TemporaryDirectory(prefix: "har-upgrade-copy")
        try FileManager.default.removeItem(atPath: copy.path)
        try FileManager.default.copyItem(atPath: original.path, toPath: copy.path)

        let server = try await ServeProcess(dataDir: copy.path)
        #expect(try await curl(server.baseURL + "/healthz").status == 200)
        let (status, log) = await server.stop()
        #expect(status == 0)
        #expect(try sqlite(copy.path, "SELECT max(version) FROM schema_migrations") == String(Self.newest))

        // One snapshot, named in the log, at the old schema, passing integrity_check, with the data.
        let names = try FileManager.default.contentsOfDirectory(atPath: copy.file("snapshots"))
        #expect(names.count == 1)
        let name = try #require(names.first)
        #expect(name.hasPrefix("har-before-v\(Self.newest)-") && name.hasSuffix(".sqlite"))
        let snapshot = copy.file("snapshots/" + name)
        #expect(log.contains("snapshot was written and passed integrity_check: \(snapshot)"), "\(log)")
        let check = try Database(path: snapshot, mode: .readOnly, create: false)
        #expect(try check.query("PRAGMA integrity_check").compactMap { try $0.string(0) } == ["ok"])
        #expect(try Migrator.appliedVersions(in: check).max() == Self.previousVersion)
        check.close()

        // The previous binary refuses the migrated database…
        #expect(throws: StoreError.self) {
            try SQLiteDatabase(path: copy.file("har.sqlite"), migrations: Self.previous).close()
        }
        // …and works on the snapshot copied back, as docs/INSTALL.md says to roll back.
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: copy.file("har.sqlite" + suffix))
        }
        try FileManager.default.copyItem(atPath: snapshot, toPath: copy.file("har.sqlite"))
        let rolledBack = try SQLiteDatabase(path: copy.file("har.sqlite"), migrations: Self.previous)
        let email = try rolledBack.read { try $0.scalar("SELECT email FROM users").string }
        rolledBack.close()
        #expect(email == "kept@example.org")
        // The original folder was never touched.
        #expect(try sqlite(original.path, "SELECT max(version) FROM schema_migrations") == String(Self.previousVersion))
    }

    @Test func aFreshDataFolderNeedsNoSnapshot() async throws {
        let server = try await ServeProcess()
        #expect(await server.stop().status == 0)
        #expect(!FileManager.default.fileExists(atPath: server.dataDir + "/snapshots"))
    }

    @Test(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
    func postgresIsMigratedOnlyWithTheOperatorsWordThatABackupExists() async throws {
        let url = try PostgresCluster.shared().makeDatabase()
        let connection = try PostgresConnection(url)
        let older = AppMigrations.postgres.filter { $0.version < Self.newest }
        try PostgresMigrator.apply(older, to: connection)
        connection.close()

        // Nodes sharing a database need an upstream platform; none is called here.
        let environment = [
            "HAR_DATABASE_URL": url, "HAR_PLATFORM_URL": "http://127.0.0.1:9", "HAR_CONSUMER_KEY": "k",
            "HAR_CONSUMER_SECRET": "cw==",
        ]
        let dryRun = try await runHar(["migrate", "--dry-run"], environment: environment)
        #expect(dryRun.stdout.contains("  v\(Self.newest)\t"), "\(dryRun.stdout)\(dryRun.stderr)")
        #expect(dryRun.stdout.contains("--i-have-a-backup"))

        var configuration = try Configuration.load(file: nil, environment: environment)
        #expect {
            try Stores.open(configuration: configuration).close()
        } throws: { error in
            "\(error)".contains("pg_dump") && "\(error)".contains("--i-have-a-backup")
        }
        configuration.databaseBackupTaken = true
        let stores = try Stores.open(configuration: configuration)
        stores.close()
        let check = try PostgresConnection(url)
        defer { check.close() }
        #expect(try PostgresMigrator.appliedVersions(check).max() == Self.newest)
    }
}
