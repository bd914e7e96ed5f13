import Foundation
import Testing

@testable import HeritageApp

/// `har migrate sqlite-to-postgres`: a single node's data copied into PostgreSQL, ids kept, sequences set.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
struct SQLiteToPostgresTests {
    @Test func aNodesDataMovesWithItsIdsAndGoesOnFromThere() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try SQLiteDatabase(path: folder + "/har.sqlite", migrations: AppMigrations.sqlite)
        let sqlite = Stores.sqlite(source)
        let now = Date().timeIntervalSince1970.rounded(.down)
        let userID = try sqlite.users.signIn(
            SignInRecord(
                email: "Volunteer@Example.org", accountID: "a", fullname: "Name", platformSessionID: "platform",
                platformSessionExpiresAt: now + 3600, tokenHash: Array(repeating: 9, count: 32), csrfToken: "csrf",
                replacingTokenHash: nil),
            now: now)
        let (draft, _) = try sqlite.drafts.openDraft(userID: userID, now: now, freshSince: now - 10)
        for _ in 0..<3 { _ = try sqlite.drafts.addPhoto(StoreScene.photo(), to: draft, now: now) }
        #expect(
            try sqlite.drafts.submit(
                draftLocalID: draft.localID, userID: userID, fields: StoreScene.fields, token: "t", now: now) == .queued
        )
        let reportID = try #require(try sqlite.outbox.reportID(localID: draft.localID))
        let before = try #require(try sqlite.outbox.report(id: reportID))
        let photosBefore = try sqlite.outbox.photos(reportID: reportID)
        #expect(try sqlite.instance.claimPlatform("https://api.example.org") == nil)
        // Granted to the volunteer's e-mail and confirmed for its account, so the role is bound (REV-10).
        try sqlite.review.grantConfirmed(email: "Volunteer@Example.org", role: .coordinator, accountID: "a", now: now)
        let audit = try sqlite.review.audit(AuditFilter(), beforeID: nil, limit: 10)
        #expect(audit.map(\.action) == ["role_confirm", "role_grant"])
        let listVersion = try sqlite.reports.listVersion(userID: userID)
        #expect(listVersion > 0)
        source.close()

        let url = try PostgresCluster.shared().makeDatabase()
        let result = try await runHar(
            ["migrate", "sqlite-to-postgres", "--from", folder],
            environment: [
                "HAR_DATABASE_URL": url, "HAR_PLATFORM_URL": "https://api.example.org", "HAR_CONSUMER_KEY": "k",
                "HAR_CONSUMER_SECRET": "s",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("reports\t1"))
        #expect(result.stdout.contains("photos\t3"))

        let postgres = try Stores.postgres(url: url, poolSize: 2)
        defer { postgres.close() }
        #expect(try postgres.outbox.report(id: reportID) == before)
        #expect(try postgres.outbox.photos(reportID: reportID) == photosBefore)
        // The list version goes over as it was (an ETag the browser holds stays right for the same list).
        #expect(try postgres.reports.listVersion(userID: userID) == listVersion)
        // The roles and the audit log go over; the log's ids go on after the copied ones.
        #expect(try postgres.review.storedRole(email: "volunteer@example.org") == .coordinator)
        #expect(try postgres.review.role(userID: userID) == .coordinator, "held by the account, on PostgreSQL too")
        #expect(try postgres.review.audit(AuditFilter(), beforeID: nil, limit: 10) == audit)
        try postgres.review.appendAudit(AuditEntry(at: now, actor: "cli:op", action: "export_csv"))
        #expect(
            try postgres.review.audit(AuditFilter(), beforeID: nil, limit: 1).first?.id ?? 0 > audit.first?.id ?? .max)
        let session = try #require(try postgres.users.session(tokenHash: Array(repeating: 9, count: 32), now: now))
        #expect(session.user.id == userID)
        #expect(try postgres.instance.claimPlatform("embedded") == "https://api.example.org")
        // The sequences go on after the copied ids.
        let (next, made) = try postgres.drafts.openDraft(userID: userID, now: now, freshSince: now - 10)
        #expect(made)
        #expect(next.id > reportID)

        let again = try await runHar(
            ["migrate", "sqlite-to-postgres", "--from", folder],
            environment: [
                "HAR_DATABASE_URL": url, "HAR_PLATFORM_URL": "https://api.example.org", "HAR_CONSUMER_KEY": "k",
                "HAR_CONSUMER_SECRET": "s",
            ])
        #expect(again.status == 1)
        #expect(again.stderr.contains("copy only into an empty one"))
        #expect(!again.stderr.contains("host="), "the database URL is not shown")
    }
}
