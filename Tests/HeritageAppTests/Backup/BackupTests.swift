import Foundation
import PlatformClient
import SQLiteStorage
import Testing

@testable import HeritageApp

/// Backups, with the real `har` binary: OPS-01 (one archive of a consistent snapshot and
/// exactly its photos, checked, never a partial one), OPS-02 (verified without a server, restored into
/// a stopped one). Serialized: they start platforms and servers on two shared cores.
@Suite(.serialized) struct BackupTests {
    /// OPS-01, OPS-02: a backup taken by `har backup create` while `har serve` drains the queue to the
    /// platform, verified, then restored into a fresh data folder: the snapshot's photo files come back
    /// byte for byte, thumbnails included, a stray file the database does not name stays out, and the
    /// database holds the manifest's rows.
    @Test func ops01ops02RoundTripTakenWhileUploadsRun() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder, faults: "latency_ms=60,seed=3")
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(
            email: "backup@example.org", session: try await platform.signIn(email: "backup@example.org"))
        try fixture.queueReports(40, photos: 3, tag: "round-trip ")
        try fixture.addThumbnails(60)
        let stray = fixture.dataDir + "/photos/" + UUID().uuidString.lowercased()
        _ = FileManager.default.createFile(atPath: stray, contents: Data("not named by the database".utf8))
        let serve = try HarProcess(
            ["serve"], environment: serveEnvironment(dataDir: fixture.dataDir, platform: platform), folder: folder)
        _ = try await serve.waitForPort()
        try await waitUntil("the worker is sending", timeout: 60) { try fixture.states()["stored", default: 0] >= 2 }

        let archive = folder + "/round-trip.tar"
        let created = try await runBackup(["create", "--to", archive], dataDir: fixture.dataDir)
        #expect(created.status == 0, "\(created.stderr)")
        let storedAfterBackup = try fixture.states()["stored", default: 0]
        #expect(storedAfterBackup < 40, "the backup ran while the queue drained")
        #expect(!FileManager.default.fileExists(atPath: archive + ".partial"))
        let verified = try await runBackup(["verify", archive], dataDir: folder + "/nowhere")
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("OK"))

        let manifest = try await manifest(of: archive)
        #expect(manifest.files.first?.path == "har.sqlite")
        #expect(manifest.files.count == 1 + 120 + 60, "the database, 120 photos, 60 thumbnails")
        #expect(!manifest.files.contains { stray.hasSuffix($0.path) })
        #expect(manifest.rowCounts["reports"] == 40)

        let fresh = folder + "/fresh"
        let restored = try await runBackup(["restore", archive, "--data-dir", fresh], dataDir: fixture.dataDir)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains("no earlier data folder"))
        for file in manifest.files where file.path != "har.sqlite" {
            let original = FileManager.default.contents(atPath: fixture.dataDir + "/" + file.path)
            let copy = FileManager.default.contents(atPath: fresh + "/" + file.path)
            #expect(original != nil && original == copy, "\(file.path) restored byte for byte")
        }
        #expect(fileNames(in: fresh + "/photos").count == 180)
        // Plain ustar: GNU tar unpacks the same files, byte for byte.
        let unpacked = folder + "/unpacked"
        try FileManager.default.createDirectory(atPath: unpacked, withIntermediateDirectories: true)
        let tar = try await runProgram("/usr/bin/tar", ["xf", archive, "-C", unpacked])
        #expect(tar.status == 0, "\(tar.stderr)")
        for file in manifest.files {
            let sha256 = try? SHA256Stream.hashFile(at: unpacked + "/" + file.path)
            #expect(sha256 == file.sha256, "tar unpacks \(file.path)")
        }
        let db = try Database(path: fresh + "/har.sqlite", mode: .readOnly, create: false)
        for table in ["reports", "photos", "users"] {
            #expect(try db.scalar("SELECT count(*) FROM \(table)").int == Int64(manifest.rowCounts[table] ?? -1))
        }
        #expect(try db.scalar("PRAGMA integrity_check").string == "ok")
        db.close()
        await serve.terminate()
        await platform.stop()
    }

    /// OPS-01: `har backup verify` tells each way a file can fail to be a backup by its exit status,
    /// with a message: a `.partial` (10), not an archive (11), cut short (12), a byte changed (13), a
    /// schema newer than the binary (16), no such file (66). A restore refuses the same file the same
    /// way, and refuses a data folder a server holds (75). A photo file damaged on disk fails the backup.
    @Test func ops01DamagedArchivesAreRefusedByVerify() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(email: "damage@example.org", session: PlatformSession(sessionID: "s", expirationTime: nil))
        try fixture.queueReports(5, photos: 2)
        let good = folder + "/good.tar"
        let made = try await runBackup(["create", "--to", good], dataDir: fixture.dataDir)
        try #require(made.status == 0, "\(made.stderr)")
        let bytes = try #require(FileManager.default.contents(atPath: good))

        func verify(_ name: String, _ content: Data) async throws -> ProgramResult {
            let path = folder + "/" + name
            _ = FileManager.default.createFile(atPath: path, contents: content)
            return try await runBackup(["verify", path], dataDir: fixture.dataDir)
        }
        let partial = try await verify("good.tar.partial", bytes)
        #expect(partial.status == 10 && partial.stderr.contains(".partial"), "\(partial.stderr)")
        let garbage = try await verify("garbage.tar", Data(repeating: 0x41, count: 4096))
        #expect(garbage.status == 11, "\(garbage.stderr)")
        let truncated = try await verify("truncated.tar", bytes.prefix(bytes.count / 2))
        #expect(truncated.status == 12 && truncated.stderr.contains("cut off"), "\(truncated.stderr)")
        var flipped = bytes
        flipped[bytes.count - 4096] ^= 0x01
        let changed = try await verify("changed.tar", flipped)
        #expect(changed.status == 13 && changed.stderr.contains("SHA-256"), "\(changed.stderr)")
        let missing = try await runBackup(["verify", folder + "/none.tar"], dataDir: fixture.dataDir)
        #expect(missing.status == 66, "\(missing.stderr)")

        let refusedRestore = try await runBackup(
            ["restore", folder + "/truncated.tar", "--data-dir", folder + "/other"], dataDir: fixture.dataDir)
        #expect(refusedRestore.status == 12)
        #expect(!FileManager.default.fileExists(atPath: folder + "/other"), "nothing left of a refused restore")

        try fixture.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', '0')")
        let newer = folder + "/newer.tar"
        _ = try await runBackup(["create", "--to", newer], dataDir: fixture.dataDir)
        let newerVerify = try await runBackup(["verify", newer], dataDir: fixture.dataDir)
        #expect(newerVerify.status == 16 && newerVerify.stderr.contains("newer"), "\(newerVerify.stderr)")
        let newerRestore = try await runBackup(
            ["restore", newer, "--data-dir", folder + "/other"], dataDir: fixture.dataDir)
        #expect(newerRestore.status == 16)

        // A photo file changed on disk (same size, other bytes) is not what was acknowledged: no backup.
        try fixture.execute("DELETE FROM schema_migrations WHERE version = 999")
        let photo = try #require(fileNames(in: fixture.dataDir + "/photos").first)
        var photoBytes = try #require(FileManager.default.contents(atPath: fixture.dataDir + "/photos/" + photo))
        photoBytes[photoBytes.count / 2] ^= 0xFF
        _ = FileManager.default.createFile(atPath: fixture.dataDir + "/photos/" + photo, contents: photoBytes)
        let damaged = try await runBackup(["create", "--to", folder + "/damaged.tar"], dataDir: fixture.dataDir)
        #expect(damaged.status == 1 && damaged.stderr.contains(photo), "\(damaged.stderr)")
        #expect(!fileNames(in: folder).contains { $0.hasPrefix("damaged.tar") }, "neither a backup nor a .partial")

        let lock = try DataFolderLock(dataDir: fixture.dataDir)
        let held = try await runBackup(["restore", good], dataDir: fixture.dataDir)
        lock.release()
        #expect(held.status == 75 && held.stderr.contains("stop it"), "\(held.stderr)")
    }

    /// OPS-01: `kill -9` of `har backup create` half-way leaves only `NAME.partial`, which verify
    /// refuses and no restore takes; the next backup succeeds and leaves no `.partial`.
    @Test func ops01KilledBackupLeavesOnlyAPartial() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(email: "kill@example.org", session: PlatformSession(sessionID: "s", expirationTime: nil))
        try fixture.queueReports(3, photos: 1)
        try fixture.addLargePhotos(60, size: 2 << 20)
        let archive = folder + "/killed.tar"
        let partial = archive + ".partial"
        let backup = try HarProcess(
            ["backup", "create", "--to", archive], environment: ["HAR_DATA_DIR": fixture.dataDir], folder: folder)
        try await waitUntil("the backup is being written", timeout: 60, interval: 0.002) {
            (BackupCreator.regularFileSize(partial) ?? 0) > 1 << 20
        }
        await backup.killHard()
        #expect(backup.process.terminationReason == .uncaughtSignal)
        #expect(!FileManager.default.fileExists(atPath: archive), "no backup under the final name")
        #expect(FileManager.default.fileExists(atPath: partial))
        let refused = try await runBackup(["verify", partial], dataDir: fixture.dataDir)
        #expect(refused.status == 10)
        let notThere = try await runBackup(["verify", archive], dataDir: fixture.dataDir)
        #expect(notThere.status == 66)
        let restore = try await runBackup(["restore", partial, "--data-dir", folder + "/r"], dataDir: fixture.dataDir)
        #expect(restore.status == 10)

        let again = try await runBackup(["create", "--to", archive], dataDir: fixture.dataDir)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: partial), "the next backup replaced the partial")
        let verified = try await runBackup(["verify", archive], dataDir: fixture.dataDir)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(fileNames(in: fixture.dataDir).allSatisfy { !$0.hasPrefix("backup-") }, "no snapshot left behind")
    }

    /// OPS-01: the snapshot goes before the archive takes its name, so that a backup which can be seen
    /// finished never has a snapshot beside it, even when the process ends at that moment (CI once
    /// stopped `har serve` between the rename and the snapshot's removal). In process: the removal is
    /// where the order can be seen.
    @Test func ops01TheSnapshotIsRemovedBeforeTheArchiveTakesItsName() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(email: "order@example.org", session: PlatformSession(sessionID: "s", expirationTime: nil))
        try fixture.queueReports(2, photos: 1)
        let configuration = try Configuration.load(file: nil, environment: ["HAR_DATA_DIR": fixture.dataDir])
        let archive = folder + "/order.tar"
        var removals: [(snapshot: String, archiveThere: Bool, partialThere: Bool)] = []
        _ = try BackupCreator(configuration: configuration).create(to: archive) { snapshot in
            removals.append((snapshot, access(archive, F_OK) == 0, access(archive + ".partial", F_OK) == 0))
            BackupCreator.removeDatabaseFiles(snapshot)
        }
        try #require(removals.count == 1, "\(removals)")
        #expect(removals[0].snapshot.hasPrefix(fixture.dataDir + "/backup-snapshot-"))
        #expect(!removals[0].archiveThere && removals[0].partialThere, "removed while the archive is still partial")
        #expect(access(archive, F_OK) == 0)
        #expect(fileNames(in: fixture.dataDir).allSatisfy { !$0.hasPrefix("backup-") }, "no snapshot left behind")
    }

    /// OPS-03: grandfather-father-son over two months of daily backups: the newest of each of the last
    /// 7 days, 4 weeks and 12 months.
    @Test func ops03RetentionKeepsDailyWeeklyMonthly() throws {
        let retention = try #require(BackupRetention(keep: "7,4,12"))
        // 2026-12-03 02:00 UTC (a Thursday), and one backup a day before it for 60 days.
        let newest = 1_796_263_200.0
        let times = (0..<60).map { newest - Double($0) * 86_400 }
        let kept = retention.kept(times)
        let daysBack = Set(kept.map { Int(((newest - $0) / 86_400).rounded()) })
        // 7 days; Sundays ending the 3 weeks before (days 4, 11, 18); month ends (Nov 30, Oct 31: days 3, 33).
        #expect(daysBack == [0, 1, 2, 3, 4, 5, 6, 11, 18, 33])
        #expect(BackupRetention(keep: "7,4") == nil)
        #expect(BackupRetention.time(ofBackupNamed: "har-backup-20261203T020000Z.tar") == newest)
        #expect(BackupRetention.time(ofBackupNamed: "har-backup-20261203T020000Z.tar.partial") == nil)
    }
}
