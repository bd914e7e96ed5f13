import Basics
import Foundation
import Testing

@testable import HeritageApp

/// `/review` tells administrators, and only them, when the last successful scheduled backup is
/// older than two intervals (OPS-03), with the real server and the real backup schedule of `har serve`.
@Suite(.serialized) struct BackupNoticeTests {
    /// The schedule `har serve` starts, on the in-process server's metrics.
    static func schedule(_ server: RunningServer) throws -> BackupSchedule {
        let schedule = try #require(
            BackupSchedule(
                configuration: server.application.configuration, metrics: server.application.metrics.backups,
                log: Log()))
        try schedule.start()
        return schedule
    }

    /// OPS-03: the newest backup in `backup_dir` is three days old with a daily interval, and every
    /// new backup fails (a photo file damaged on disk): an administrator's dashboard says so, in
    /// English and in French; a coordinator's does not.
    @Test func ops03ReviewTellsAdminsWhenTheLastBackupIsOlderThanTwoIntervals() async throws {
        let backups = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: backups) }
        let old = Date().timeIntervalSince1970 - 3 * 86_400
        let oldName = BackupCommand.defaultPath(in: backups, now: old)
        #expect(FileManager.default.createFile(atPath: oldName, contents: Data()))
        let server = try ReviewTests.server(["HAR_BACKUP_DIR": backups, "HAR_BACKUP_INTERVAL": "86400"])
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        try ReviewTests.insertReports(server, email: coordinator.email, count: 1, prefix: "Damaged photo")
        let localID = try sqlite(server.dataDir, "SELECT local_id FROM photos").trimmingCharacters(in: .newlines)
        #expect(FileManager.default.createFile(atPath: server.dataDir + "/photos/" + localID, contents: Data([1, 2])))
        let schedule = try Self.schedule(server)
        defer { schedule.stop() }
        try await waitUntil("a scheduled backup has failed", timeout: 60) {
            server.application.metrics.backups.text.contains("har_backup_failures_total 1")
        }

        let asCoordinator = try await coordinator.get("/review")
        #expect(asCoordinator.status == 200)
        #expect(!asCoordinator.body.contains("review-backup-overdue"), "coordinators are not told")

        try server.application.stores.review.grant(
            email: ReviewTests.coordinator, role: .admin, actor: "test", now: Date().timeIntervalSince1970)
        let day = String(ISO8601.utc(seconds: old).prefix(10))
        let english = try await coordinator.get("/review").body
        #expect(english.contains("review-backup-overdue"))
        #expect(english.contains("The last successful backup began on \(day)"), "\(english.prefix(2000))")
        coordinator.http.setCookie("har_lang", "fr")
        let french = try await coordinator.get("/review").body
        #expect(french.contains("La dernière sauvegarde réussie a commencé le \(day)"))
        await server.stop()
    }

    /// OPS-03: a backup from an hour ago with a daily interval: no notice, even for an administrator.
    @Test func ops03NoNoticeWhileBackupsAreRecent() async throws {
        let backups = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: backups) }
        let recent = BackupCommand.defaultPath(in: backups, now: Date().timeIntervalSince1970 - 3600)
        #expect(FileManager.default.createFile(atPath: recent, contents: Data()))
        let server = try ReviewTests.server(["HAR_BACKUP_DIR": backups, "HAR_BACKUP_INTERVAL": "86400"])
        let schedule = try Self.schedule(server)
        defer { schedule.stop() }
        let admin = try await SignedInClient(server, email: ReviewTests.coordinator)
        try server.application.stores.review.grant(
            email: ReviewTests.coordinator, role: .admin, actor: "test", now: Date().timeIntervalSince1970)
        let page = try await admin.get("/review")
        #expect(page.status == 200 && page.body.contains("review-main"))
        #expect(!page.body.contains("review-backup-overdue"))
        await server.stop()
    }
}
