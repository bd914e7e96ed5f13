import Foundation
import PlatformClient
import SQLiteStorage
import Testing

@testable import HeritageApp

/// Restore and schedule with the real processes: OPS-02 (a restore never sends a report
/// twice) and OPS-03 (scheduled backups, retention, metrics).
@Suite(.serialized) struct BackupRestoreTests {
    /// OPS-02: a backup taken mid-drain, then the queue drains on (and two reports filed after the
    /// backup are delivered too), then the backup is restored onto a fresh data folder and `har serve`
    /// started there against the same platform, which holds everything delivered after the backup:
    /// every report and photo ends on the platform exactly once. Restored over the old folder, the
    /// restore names the two reports it rolls back.
    @Test func ops02RestoreOfABackupTakenMidDrainSendsNothingTwice() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder, faults: "ignore_idempotency=1,latency_ms=120,seed=5")
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(email: "drain@example.org", session: try await platform.signIn(email: "drain@example.org"))
        try fixture.queueReports(30, photos: 3, tag: "mid-drain ")
        let environment = serveEnvironment(dataDir: fixture.dataDir, platform: platform)
        let serve = try HarProcess(["serve"], environment: environment, folder: folder)
        _ = try await serve.waitForPort()
        try await waitUntil("a few reports are stored", timeout: 60, interval: 0.01) {
            try fixture.states()["stored", default: 0] >= 4
        }
        let archive = folder + "/mid-drain.tar"
        let created = try await runBackup(["create", "--to", archive], dataDir: fixture.dataDir)
        #expect(created.status == 0, "\(created.stderr)")
        let manifest = try await manifest(of: archive)
        try fixture.queueReports(2, photos: 2, tag: "after the backup ")
        try await waitUntil("the whole queue is delivered", timeout: 240) { try fixture.states()["stored"] == 32 }
        await serve.terminate()
        #expect(manifest.rowCounts["reports"] == 30)

        let fresh = folder + "/fresh"
        let restored = try await runBackup(["restore", archive, "--data-dir", fresh], dataDir: fixture.dataDir)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains("asks the platform what it already holds"), "\(restored.stdout)")
        #expect(try reportCount(dataDir: fresh, state: "stored") < 30, "the backup has reports still to send")
        let again = try HarProcess(
            ["serve"], environment: serveEnvironment(dataDir: fresh, platform: platform), folder: folder)
        _ = try await again.waitForPort()
        try await waitUntil("the restored queue settles", timeout: 240) {
            try reportCount(dataDir: fresh, state: "stored") == 30
        }
        #expect(try reportCount(dataDir: fresh, state: "needs_attention") == 0)
        await again.terminate()
        try checkPlatformHolds(fixture.captured, platformDatabase: platform.databasePath)

        let overOld = try await runBackup(["restore", archive], dataDir: fixture.dataDir)
        #expect(overOld.status == 0, "\(overOld.stderr)")
        #expect(overOld.stdout.contains("rolled back: 2 reports filed since the backup"), "\(overOld.stdout)")
        #expect(fileNames(in: folder).contains { $0.hasPrefix("app.before-restore-") })
        await platform.stop()
    }

    /// OPS-03: `har serve` with `backup_dir` makes a backup soon after start (none there yet), checks
    /// it, then deletes what the retention no longer keeps, leaves a `.partial` alone, and `/metrics`
    /// shows the backup's time, duration and size, and no failure.
    @Test func ops03ScheduledBackupRetentionAndMetrics() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder)
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(email: "schedule@example.org", session: PlatformSession(sessionID: "s"))
        try fixture.queueReports(3, photos: 2)
        let backups = folder + "/backups"
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: true)
        let old = [
            "har-backup-20250115T010000Z.tar", "har-backup-20250116T010000Z.tar", "har-backup-20250301T010000Z.tar",
        ]
        for name in old + ["har-backup-20250302T010000Z.tar.partial"] {
            _ = FileManager.default.createFile(atPath: backups + "/" + name, contents: Data("old".utf8))
        }
        var environment = serveEnvironment(dataDir: fixture.dataDir, platform: platform, workerEnabled: false)
        environment["HAR_BACKUP_DIR"] = backups
        environment["HAR_BACKUP_KEEP"] = "1,1,2"
        let serve = try HarProcess(["serve"], environment: environment, folder: folder)
        let port = try await serve.waitForPort()
        var metrics = ""
        try await waitUntil("a scheduled backup is made", timeout: 60, interval: 0.2) {
            metrics = try await curl("http://127.0.0.1:\(port)/metrics").body
            return !metrics.contains("har_backup_bytes 0\n") && metrics.contains("har_backup_bytes ")
        }
        #expect(metrics.contains("har_backup_failures_total 0\n"))
        #expect(!metrics.contains("har_backup_last_success_timestamp_seconds 0.0\n"))
        #expect(metrics.contains("har_backup_duration_seconds "))
        await serve.terminate()
        let names = fileNames(in: backups)
        let made = names.filter { !old.contains($0) && !$0.hasSuffix(".partial") }
        try #require(made.count == 1, "\(names)")
        let verified = try await runBackup(["verify", backups + "/" + made[0]], dataDir: fixture.dataDir)
        #expect(verified.status == 0, "\(verified.stderr)")
        // Keep 1 day, 1 week, 2 months: the new one, and March 2025's newest; January's go.
        #expect(
            names == ["har-backup-20250301T010000Z.tar", "har-backup-20250302T010000Z.tar.partial", made[0]].sorted())
        await platform.stop()
    }
    /// OPS-01: `kill -9` of `har serve` while its scheduled backup is being written, with volunteers
    /// uploading through the web pages meanwhile: `backup_dir` holds only a `.partial`, never taken
    /// for a backup; the server started again makes a good one (and clears the killed one's snapshot).
    @Test func ops01ServeKilledMidScheduledBackupThenTheNextSucceeds() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let platform = try await PlatformProcess(folder: folder)
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(email: "kill-serve@example.org", session: PlatformSession(sessionID: "s"))
        try fixture.queueReports(2, photos: 1)
        // Enough bytes that the backup still runs while the volunteers' first reports go in.
        try fixture.addLargePhotos(160, size: 2 << 20)
        let backups = folder + "/backups"
        var environment = serveEnvironment(dataDir: fixture.dataDir, platform: platform, workerEnabled: false)
        environment["HAR_BACKUP_DIR"] = backups
        let serve = try HarProcess(["serve"], environment: environment, folder: folder)
        let port = try await serve.waitForPort()
        let volunteers = try Volunteers(count: 3, baseURL: "http://127.0.0.1:\(port)", folder: folder)
        for (index, volunteer) in volunteers.reporters.enumerated() {
            try await volunteer.signIn(email: "volunteer\(index)@example.org")
        }
        // One after another: the fixture's record of what was sent is not shared between tasks.
        let uploads = Task {
            for (index, volunteer) in volunteers.reporters.enumerated() {
                try await volunteer.submitReports(2, photos: 2, tag: "v\(index)", into: fixture)
            }
        }
        // Killed while the backup is being written and once a volunteer's report went in (the backup
        // begins 5 s after the start; on a loaded machine the first report may come before or after).
        // Counted in the database: the fixture's own record belongs to the uploading task, and a report
        // whose answer the kill cut off is filed all the same.
        let filed = {
            Int((try? sqlite(fixture.dataDir, "SELECT count(*) FROM reports WHERE state != 'draft'")) ?? "") ?? 0
        }
        try await waitUntil("a report filed while the backup is being written", timeout: 60, interval: 0.005) {
            filed() > 2
                && fileNames(in: backups).contains { name in
                    name.hasSuffix(".partial") && (BackupCreator.regularFileSize(backups + "/" + name) ?? 0) > 1 << 20
                }
        }
        await serve.killHard()
        _ = try? await uploads.value
        #expect(filed() > 2, "volunteers filed reports meanwhile")
        let left = fileNames(in: backups)
        #expect(left.count == 1 && left[0].hasSuffix(".tar.partial"), "\(left)")
        let refused = try await runBackup(["verify", backups + "/" + left[0]], dataDir: fixture.dataDir)
        #expect(refused.status == 10)

        let again = try HarProcess(["serve"], environment: environment, folder: folder)
        let againPort = try await again.waitForPort()
        try await waitUntil("the next scheduled backup is made", timeout: 120, interval: 0.2) {
            fileNames(in: backups).contains { $0.hasSuffix(".tar") }
        }
        let metrics = try await curl("http://127.0.0.1:\(againPort)/metrics").body
        #expect(metrics.contains("har_backup_failures_total 0\n"))
        await again.terminate()
        let made = try #require(fileNames(in: backups).first { $0.hasSuffix(".tar") })
        let verified = try await runBackup(["verify", backups + "/" + made], dataDir: fixture.dataDir)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(fileNames(in: fixture.dataDir).allSatisfy { !$0.hasPrefix("backup-") }, "no snapshot left behind")
        await platform.stop()
    }
}
