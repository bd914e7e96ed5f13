import Foundation
import PlatformClient
import PostgresStorage
import SQLiteStorage
import Testing

@testable import HeritageApp

#if canImport(Glibc)
    import Glibc
#endif

/// `har backup` with `database_url`: `pg_dump -Fc` of the database in place of the SQLite snapshot,
/// the shared photo folder's files, checked without a server, restored with `pg_restore` into an empty
/// database only, and reconciled before anything is sent again, against a real PostgreSQL this test
/// process starts (`PostgresCluster`).
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
struct PostgresBackupTests {
    /// OPS-01 and OPS-02 on PostgreSQL: create, verify, refuse a restore into a database in use,
    /// restore into an empty one with every photo byte equal and every report on its way to the
    /// platform put into "reconcile before sending".
    @Test func ops01ops02PostgresBackupRoundTripsIntoAnEmptyDatabaseAndReconcilesBeforeSending() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = try OutboxFixture(dataDir: folder + "/single")
        try fixture.addUser(email: "pg-backup@example.org", session: PlatformSession(sessionID: "s"))
        try fixture.queueReports(5, photos: 2)
        try fixture.addThumbnails(2)
        // The first report is on the platform already and one of its photo files was swept.
        let delivered = fixture.captured[0]
        try fixture.execute(
            "UPDATE reports SET state = 'stored', platform_report_id = 'p-1' WHERE id = \(delivered.id)")
        try fixture.execute("UPDATE photos SET state = 'stored' WHERE report_id = \(delivered.id)")
        let sweptID = try fixture.pool.read {
            try $0.scalar("SELECT local_id FROM photos WHERE report_id = ? ORDER BY id DESC", .integer(delivered.id))
                .string ?? ""
        }
        unlink(fixture.dataDir + "/photos/" + sweptID)
        unlink(fixture.dataDir + "/photos/" + sweptID + ".thumb.jpg")

        let cluster = try PostgresCluster.shared()
        let source = try cluster.makeDatabase()
        let shared = folder + "/shared-photos"
        func environment(_ url: String, photos: String) -> [String: String] {
            [
                "HAR_DATABASE_URL": url, "HAR_PHOTO_DIR": photos, "HAR_DATA_DIR": folder + "/node",
                "HAR_PLATFORM_URL": "https://api.example.org", "HAR_CONSUMER_KEY": "k", "HAR_CONSUMER_SECRET": "s",
            ]
        }
        let copied = try await runHar(
            ["migrate", "sqlite-to-postgres", "--from", fixture.dataDir],
            environment: environment(source, photos: shared))
        try #require(copied.status == 0, "\(copied.stderr)")
        try #require(rename(fixture.dataDir + "/photos", shared) == 0)

        let archive = folder + "/pg.tar"
        let created = try await runHar(
            ["backup", "create", "--to", archive], environment: environment(source, photos: shared))
        try #require(created.status == 0, "\(created.stderr)")
        #expect(fileNames(in: folder + "/node").allSatisfy { !$0.hasPrefix("backup-") }, "no dump left behind")
        let manifest = try await manifest(of: archive)
        #expect(manifest.database == "postgresql" && manifest.postgresqlVersion?.isEmpty == false)
        #expect(manifest.files.first?.path == "har.pgdump")
        #expect(manifest.rowCounts["reports"] == 5 && manifest.rowCounts["photos"] == 10)
        #expect(manifest.sweptPhotos == [sweptID])
        #expect(manifest.files.count == 1 + 9 + 1, "the dump, nine photos, the thumbnail left")

        let verified = try await runHar(["backup", "verify", archive])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("OK") && verified.stdout.contains("PostgreSQL"), "\(verified.stdout)")

        let inUse = try await runHar(
            ["backup", "restore", archive], environment: environment(source, photos: folder + "/elsewhere"))
        #expect(inUse.status == 75, "\(inUse.stdout) \(inUse.stderr)")
        #expect(inUse.stderr.contains("not empty"), "\(inUse.stderr)")
        #expect(!inUse.stderr.contains("host=") && !inUse.stdout.contains("host="), "the database URL is not shown")
        #expect(!FileManager.default.fileExists(atPath: folder + "/elsewhere"))

        let asSQLite = try await runBackup(["restore", archive, "--data-dir", folder + "/sqlite"], dataDir: folder)
        #expect(asSQLite.status == 1 && asSQLite.stderr.contains("restore it with database_url"), "\(asSQLite.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/sqlite"))

        let target = try cluster.makeDatabase()
        let restoredPhotos = folder + "/restored-photos"
        let restored = try await runHar(
            ["backup", "restore", archive], environment: environment(target, photos: restoredPhotos))
        try #require(restored.status == 0, "\(restored.stderr)")
        #expect(
            restored.stdout.contains("asks the platform what it already holds: 4 reports, 8 photos"),
            "\(restored.stdout)")
        #expect(fileNames(in: restoredPhotos) == fileNames(in: shared))
        for name in fileNames(in: shared) {
            #expect(
                FileManager.default.contents(atPath: restoredPhotos + "/" + name)
                    == FileManager.default.contents(atPath: shared + "/" + name), "\(name) byte for byte")
        }
        #expect(fileNames(in: folder).allSatisfy { !$0.contains(".restoring-") }, "no staging folder left")

        let pool = try PostgresPool(target, configuration: .init(size: 1))
        defer { pool.close() }
        try pool.withConnection { (db) throws in
            #expect(try db.scalar("SELECT count(*) FROM reports").int == 5)
            #expect(
                try db.scalar("SELECT count(*) FROM reports WHERE state = 'queued' AND create_attempted_at IS NOT NULL")
                    .int == 4, "each queued report is looked up on the platform before it is created")
            #expect(try db.scalar("SELECT count(*) FROM photos WHERE state = 'uploading'").int == 8)
            #expect(
                try db.scalar("SELECT platform_report_id FROM reports WHERE id = ?", .integer(delivered.id)).string
                    == "p-1")
            #expect(try db.scalar("SELECT count(*) FROM instance WHERE key = 'restored_at'").int == 1)
            // The identity sequences go on after the restored ids.
            #expect(
                try db.scalar("SELECT nextval(pg_get_serial_sequence('reports', 'id'))").int ?? 0
                    > fixture.captured.map(\.id).max() ?? .max)
        }
    }

    /// OPS-02: a SQLite backup is not loaded into PostgreSQL: the restore says what to do instead and
    /// the database stays empty.
    @Test func ops02PostgresRestoreRefusesASQLiteBackup() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = try OutboxFixture(dataDir: folder + "/single")
        try fixture.addUser(email: "pg-kind@example.org", session: PlatformSession(sessionID: "s"))
        try fixture.queueReports(1, photos: 1)
        let archive = folder + "/sqlite.tar"
        let created = try await runBackup(["create", "--to", archive], dataDir: fixture.dataDir)
        try #require(created.status == 0, "\(created.stderr)")
        let target = try PostgresCluster.shared().makeDatabase()
        let refused = try await runHar(
            ["backup", "restore", archive],
            environment: [
                "HAR_DATABASE_URL": target, "HAR_PHOTO_DIR": folder + "/photos", "HAR_DATA_DIR": folder + "/node",
                "HAR_PLATFORM_URL": "https://api.example.org", "HAR_CONSUMER_KEY": "k", "HAR_CONSUMER_SECRET": "s",
            ])
        #expect(refused.status == 1 && refused.stderr.contains("backup of a SQLite data folder"), "\(refused.stderr)")
        let pool = try PostgresPool(target, configuration: .init(size: 1))
        defer { pool.close() }
        #expect(try pool.withConnection { try $0.scalar("SELECT to_regclass('reports') IS NULL").int } == 1)
    }

    /// OPS-05 on PostgreSQL: the disk `pg_dump` writes to (the data folder's) is full: the backup
    /// fails with pg_dump's reason, leaves neither a dump nor a `.partial`, and succeeds once there
    /// is room. Root only (a small tmpfs), skipped elsewhere.
    @Test func ops05PostgresBackupOnAFullDiskFailsCleanly() async throws {
        guard let disk = try SmallDisk(bytes: 4 << 20) else { return }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = try OutboxFixture(dataDir: folder + "/single")
        try fixture.addUser(email: "pg-full@example.org", session: PlatformSession(sessionID: "s"))
        try fixture.queueReports(3, photos: 1)
        let source = try PostgresCluster.shared().makeDatabase()
        let environment = [
            "HAR_DATABASE_URL": source, "HAR_PHOTO_DIR": fixture.dataDir + "/photos",
            "HAR_DATA_DIR": disk.path + "/node",
            "HAR_PLATFORM_URL": "https://api.example.org", "HAR_CONSUMER_KEY": "k", "HAR_CONSUMER_SECRET": "s",
        ]
        let copied = try await runHar(
            ["migrate", "sqlite-to-postgres", "--from", fixture.dataDir], environment: environment)
        try #require(copied.status == 0, "\(copied.stderr)")
        #expect(mkdir(disk.path + "/node", 0o700) == 0)
        try fill(disk.path, leaving: 0, with: disk.path + "/filler")

        let archive = folder + "/pg.tar"
        let full = try await runHar(["backup", "create", "--to", archive], environment: environment)
        #expect(full.status == 1, "\(full.stdout) \(full.stderr)")
        #expect(
            full.stderr.contains("cannot dump") && full.stderr.contains("No space left on device"), "\(full.stderr)")
        #expect(!full.stderr.contains("host="), "the database URL is not shown")
        #expect(fileNames(in: disk.path + "/node").allSatisfy { !$0.hasPrefix("backup-") }, "no dump left")
        #expect(fileNames(in: folder).allSatisfy { !$0.hasPrefix("pg.tar") }, "neither a backup nor a .partial")

        unlink(disk.path + "/filler")
        let roomAgain = try await runHar(["backup", "create", "--to", archive], environment: environment)
        #expect(roomAgain.status == 0, "\(roomAgain.stderr)")
    }
}

/// OPS-03 on PostgreSQL: scheduled backups on two nodes sharing one database and one `backup_dir`.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
struct PostgresScheduledBackupTests {
    /// OPS-03: both nodes' schedules come due together; one node makes the interval's backup (a
    /// PostgreSQL one), the other passes its turn (`har_backup_turns_passed_total`); neither fails.
    @Test func ops03OneNodeOfTwoMakesEachScheduledBackup() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder)
        var environment = PostgresServeTests.environment(
            database: try PostgresCluster.shared().makeDatabase(), platform: platform)
        environment["HAR_PHOTO_DIR"] = folder + "/photos"
        environment["HAR_BACKUP_DIR"] = folder + "/backups"
        environment["HAR_BACKUP_INTERVAL"] = "3600"
        let nodes = try ["node-a", "node-b"].map {
            try RunningServer(environment: environment.merging(["HAR_NODE_ID": $0]) { $1 })
        }
        // Each node's schedule started with it (`Application.start`), as `har serve`'s does.
        #expect(nodes.allSatisfy { $0.application.backups != nil })
        let metrics = nodes.map { $0.application.metrics.backups }
        try await waitUntil("one node has made the backup and the other passed its turn", timeout: 60) {
            metrics.map(\.text).contains { $0.contains("har_backup_turns_passed_total 1") }
                && fileNames(in: folder + "/backups").contains { $0.hasSuffix(".tar") }
        }
        let backups = fileNames(in: folder + "/backups").filter { $0.hasSuffix(".tar") }
        #expect(backups.count == 1, "\(backups)")
        #expect(metrics.allSatisfy { $0.text.contains("har_backup_failures_total 0") })
        let made = try await manifest(of: folder + "/backups/" + backups[0])
        #expect(made.database == "postgresql")
        for node in nodes { await node.stop() }
        await platform.stop()
    }
}
