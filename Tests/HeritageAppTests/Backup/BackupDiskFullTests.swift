import Foundation
import PlatformClient
import SQLiteStorage
import Testing

@testable import HeritageApp

#if canImport(Glibc)
    import Glibc
#endif

/// A small tmpfs mounted for one test (root only: elsewhere the test is skipped), unmounted after.
final class SmallDisk {
    let path: String

    init?(bytes: Int) throws {
        guard geteuid() == 0 else { return nil }
        path = try TestPaths.temporaryDirectory(prefix: "har-small-disk")
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(bytes),mode=0700") == 0 else {
            rmdir(path)
            return nil
        }
    }

    deinit {
        umount2(path, Int32(MNT_DETACH))
        rmdir(path)
    }
}

/// Full disks during a backup: the backup fails with the reason, leaves nothing it started
/// (no `.partial`, no snapshot), harms neither the database nor an older backup, and the next one,
/// with room again, succeeds. Needs root to mount a small tmpfs; skipped otherwise.
@Suite(.serialized) struct BackupDiskFullTests {
    /// OPS-01: the backup's own disk fills up while the archive is written.
    @Test func ops01BackupDiskFullLeavesNoPartialAndKeepsTheOlderBackup() async throws {
        guard let disk = try SmallDisk(bytes: 1 << 20) else { return }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(email: "full@example.org", session: PlatformSession(sessionID: "s"))
        try fixture.queueReports(4, photos: 1)
        let older = disk.path + "/har-backup-20261201T000000Z.tar"
        let first = try await runBackup(["create", "--to", older], dataDir: fixture.dataDir)
        try #require(first.status == 0, "\(first.stderr)")
        try fixture.addLargePhotos(3, size: 512 << 10)
        let full = try await runBackup(["create", "--to", disk.path + "/next.tar"], dataDir: fixture.dataDir)
        #expect(full.status == 1 && full.stderr.contains("No space left on device"), "\(full.stderr)")
        #expect(fileNames(in: disk.path) == ["har-backup-20261201T000000Z.tar"], "only the older backup")
        let olderVerified = try await runBackup(["verify", older], dataDir: fixture.dataDir)
        #expect(olderVerified.status == 0, "\(olderVerified.stderr)")
        unlink(older)
        let roomAgain = try await runBackup(["create", "--to", folder + "/next.tar"], dataDir: fixture.dataDir)
        #expect(roomAgain.status == 0, "\(roomAgain.stderr)")
    }

    /// OPS-05: the data folder's disk is full when the snapshot is taken: the backup fails with
    /// SQLite's reason, leaves no snapshot, and the database stays whole; with room again it works.
    @Test func ops05DataDiskFullDuringBackupKeepsTheDatabaseWhole() async throws {
        guard let disk = try SmallDisk(bytes: 4 << 20) else { return }
        let fixture = try OutboxFixture(dataDir: disk.path + "/app")
        try fixture.addUser(email: "data-full@example.org", session: PlatformSession(sessionID: "s"))
        try fixture.queueReports(4, photos: 1)
        // Every block the disk has left, taken.
        let filler = disk.path + "/filler"
        let descriptor = open(filler, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        let block = [UInt8](repeating: 1, count: 4096)
        while write(descriptor, block, block.count) == block.count {}
        close(descriptor)
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let full = try await runBackup(["create", "--to", folder + "/b.tar"], dataDir: fixture.dataDir)
        #expect(full.status == 1, "\(full.stderr)")
        #expect(full.stderr.contains("full") || full.stderr.contains("space"), "\(full.stderr)")
        #expect(fileNames(in: fixture.dataDir).allSatisfy { !$0.hasPrefix("backup-") }, "no snapshot left")
        #expect(fileNames(in: folder).isEmpty)
        let db = try Database(path: fixture.dataDir + "/har.sqlite", mode: .readOnly, create: false)
        #expect(try db.scalar("PRAGMA integrity_check").string == "ok")
        db.close()
        unlink(filler)
        let roomAgain = try await runBackup(["create", "--to", folder + "/b.tar"], dataDir: fixture.dataDir)
        #expect(roomAgain.status == 0, "\(roomAgain.stderr)")
    }

    /// OPS-03: a scheduled backup that fails (its disk full) is counted in `/metrics`, and the older
    /// backups stay: retention runs only after a backup that was written and checked.
    @Test func ops03FailedScheduledBackupIsCountedAndDeletesNothing() async throws {
        guard let disk = try SmallDisk(bytes: 1 << 20) else { return }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder)
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(email: "failing@example.org", session: PlatformSession(sessionID: "s"))
        try fixture.queueReports(2, photos: 1)
        try fixture.addLargePhotos(3, size: 512 << 10)
        let old = ["har-backup-20250101T000000Z.tar", "har-backup-20250102T000000Z.tar"]
        for name in old {
            _ = FileManager.default.createFile(atPath: disk.path + "/" + name, contents: Data("old".utf8))
        }
        var environment = serveEnvironment(dataDir: fixture.dataDir, platform: platform, workerEnabled: false)
        environment["HAR_BACKUP_DIR"] = disk.path
        environment["HAR_BACKUP_KEEP"] = "1,0,0"
        let serve = try HarProcess(["serve"], environment: environment, folder: folder)
        let port = try await serve.waitForPort()
        try await waitUntil("the scheduled backup fails", timeout: 60, interval: 0.2) {
            try await curl("http://127.0.0.1:\(port)/metrics").body.contains("har_backup_failures_total 1\n")
        }
        await serve.terminate()
        #expect(serve.errors.contains("scheduled backup failed") && serve.errors.contains("No space left"))
        #expect(fileNames(in: disk.path) == old, "nothing deleted, no .partial left")
        await platform.stop()
    }
}
