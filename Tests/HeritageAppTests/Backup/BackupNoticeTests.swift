import Basics
import Foundation
import Testing

@testable import HeritageApp

/// `/review` tells administrators, and only them, when the last successful scheduled backup is
/// older than two intervals (OPS-03), with the real server and the backup schedule it starts itself
/// (`Application.start`, as `har serve` does).
@Suite(.serialized) struct BackupNoticeTests {
    /// A report of another volunteer with one photo whose file is damaged on disk (2 bytes where its row
    /// says 10), written into the data folder before the server starts: every backup of it fails.
    static func seedDamagedPhoto(_ dataDir: String) throws {
        let now = Date().timeIntervalSince1970
        try sqlite(
            dataDir,
            "INSERT INTO users (email, created_at, updated_at) VALUES ('owner@example.org', \(now), \(now))")
        try sqlite(
            dataDir,
            """
            INSERT INTO reports (user_id, local_id, state, name, designation, condition, grade, latitude, longitude,
                accuracy, creation_time, submitted_at, submit_token, updated_at)
            SELECT id, lower(hex(randomblob(16))), 'queued', 'Damaged photo 1', 'LB', 'poor', 'II', 48.85, 2.35, 8,
                \(now), \(now), lower(hex(randomblob(16))), \(now) FROM users WHERE email = 'owner@example.org'
            """)
        try sqlite(
            dataDir,
            """
            INSERT INTO photos (report_id, local_id, position, content_type, size, sha256, latitude, longitude,
                accuracy, captured_at, created_at)
            SELECT id, lower(hex(randomblob(16))), 0, 'image/jpeg', 10, 'x', latitude, longitude, 8,
                '2026-05-01T10:00:00Z', \(now) FROM reports WHERE name = 'Damaged photo 1'
            """)
        let localID = try sqlite(dataDir, "SELECT local_id FROM photos").trimmingCharacters(in: .newlines)
        try FileManager.default.createDirectory(atPath: dataDir + "/photos", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: dataDir + "/photos/" + localID, contents: Data([1, 2])))
    }

    /// OPS-03: the newest backup in `backup_dir` is three days old with a daily interval, and every
    /// new backup fails (a photo file damaged on disk before the server starts, so that the schedule
    /// the server starts finds it at its first run, due at once): an administrator's dashboard says
    /// so, in English and in French; a coordinator's does not.
    @Test func ops03ReviewTellsAdminsWhenTheLastBackupIsOlderThanTwoIntervals() async throws {
        let backups = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: backups) }
        let old = Date().timeIntervalSince1970 - 3 * 86_400
        let oldName = BackupCommand.defaultPath(in: backups, now: old)
        #expect(FileManager.default.createFile(atPath: oldName, contents: Data()))
        let server = try ReviewTests.server(
            ["HAR_BACKUP_DIR": backups, "HAR_BACKUP_INTERVAL": "86400"], beforeStart: Self.seedDamagedPhoto)
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
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
        let admin = try await SignedInClient(server, email: ReviewTests.coordinator)
        try server.application.stores.review.grant(
            email: ReviewTests.coordinator, role: .admin, actor: "test", now: Date().timeIntervalSince1970)
        let page = try await admin.get("/review")
        #expect(page.status == 200 && page.body.contains("review-main"))
        #expect(!page.body.contains("review-backup-overdue"))
        await server.stop()
    }
}
