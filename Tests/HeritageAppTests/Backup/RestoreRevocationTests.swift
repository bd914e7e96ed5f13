import Foundation
import PlatformClient
import PostgresStorage
import Testing

@testable import HeritageApp

/// OPS-02, KIO-07, REV-08: a restore brings back nothing that was revoked. A backup is taken; then a
/// kiosk and a role are revoked and a session ended; the backup is restored: the tablet and every
/// session from before are refused, the role and the kiosk stay revoked, and the audit log says a
/// backup was restored.
@Suite(.serialized) struct RestoreRevocationTests {
    static let coordinator = "restore.coord.\(UUID().uuidString.prefix(6).lowercased())@example.org"

    /// On SQLite, through the real server: the tablet's and the people's requests after the restore.
    @Test func ops02kio07rev08RestoreKeepsRevocationsAndVoidsSessionsAndTablets() async throws {
        let environment = [
            "HAR_COORDINATORS": Self.coordinator, "HAR_PLATFORM_VERIFIED": Self.coordinator,
            "HAR_WORKER_ENABLED": "false",
        ]
        let server = try RunningServer(environment: environment)
        let dataDir = server.dataDir
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        let (tablet, _) = try await KioskTests.enrolledTablet(server, coordinator)
        #expect(try await tablet.curl("/kiosk", []).status == 200)
        let leaving = try await SignedInClient(server)
        let granted = try await runHar(
            ["users", "grant", "kept.out@example.org", "coordinator"], environment: ["HAR_DATA_DIR": dataDir])
        #expect(granted.status == 0, "\(granted.stderr)")
        let archive = dataDir + "/../restore-revocations.tar"
        let created = try await runBackup(["create", "--to", archive], dataDir: dataDir)
        try #require(created.status == 0, "\(created.stderr)")

        // After the backup: a kiosk revoked, a role revoked, a session ended.
        let id = try sqlite(dataDir, "SELECT id FROM kiosks")
        let revoked = try await KioskTests.post(
            coordinator.http, "/review/kiosks/\(id)/revoke", [], tokenFrom: "/review/kiosks")
        #expect(revoked.status == 303)
        let revokedRole = try await runHar(
            ["users", "revoke", "kept.out@example.org"], environment: ["HAR_DATA_DIR": dataDir])
        #expect(revokedRole.status == 0, "\(revokedRole.stderr)")
        let token = try SignedInClient.csrf(in: try await leaving.get("/settings").body)
        let signOut = try await leaving.http.post("/signout", form: [("_csrf", token)])
        #expect(signOut.status == 303)
        await server.stop()

        let restored = try await runBackup(["restore", archive], dataDir: dataDir)
        try #require(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains("every sign-in and kiosk tablet from before the restore is void"))
        #expect(restored.stdout.contains("revoked again"), "\(restored.stdout)")
        #expect(restored.stdout.contains("role of kept.out@example.org") && restored.stdout.contains("kiosk \(id)"))
        #expect(restored.stdout.contains("the audit log records the restore"))

        // On the same port: the clients keep their cookies for it.
        let again = try RunningServer(
            environment: environment.merging(["HAR_PORT": String(server.port)]) { $1 }, dataDir: dataDir)
        let refused = try await tablet.curl("/kiosk", [])
        #expect(refused.status == 403 && refused.body.contains("This tablet is not enrolled"), "\(refused.status)")
        #expect(try await leaving.get("/reports").status != 200, "the ended session stays ended")
        #expect(try await coordinator.get("/review").status != 200, "every session from before is void")
        #expect(try sqlite(dataDir, "SELECT count(*) FROM user_roles WHERE email = 'kept.out@example.org'") == "0")
        #expect(try sqlite(dataDir, "SELECT count(*) FROM kiosks WHERE revoked_at IS NOT NULL") == "1")
        #expect(try sqlite(dataDir, "SELECT count(*) FROM web_sessions") == "0")
        #expect(try sqlite(dataDir, "SELECT subject FROM review_audit WHERE action = 'backup_restore'") != "")
        // REV-08: the row on the audit page, with its label, for a coordinator signed in again.
        let back = try await SignedInClient(again, email: Self.coordinator)
        let audit = try await back.get("/review/audit?action=backup_restore")
        #expect(audit.status == 200 && audit.body.contains("Restored from a backup"), "\(audit.body.prefix(300))")
        await again.stop()
    }
}

/// The same on PostgreSQL, with the commands: the revocations are recorded in the shared photo folder
/// and made again in the restored database; no session and no kiosk credential survives.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
struct PostgresRestoreRevocationTests {
    @Test func ops02kio07rev08PostgresRestoreKeepsRevocationsAndVoidsSessionsAndTablets() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = try OutboxFixture(dataDir: folder + "/single")
        try fixture.addUser(email: "pg-restore@example.org", session: PlatformSession(sessionID: "s"))
        try fixture.execute(
            """
            INSERT INTO web_sessions (token_hash, user_id, csrf_token, created_at, expires_at, last_seen_at)
            VALUES (x'0102', \(fixture.userID), 'c', 1, 1e12, 1)
            """)
        let cluster = try PostgresCluster.shared()
        let source = try cluster.makeDatabase()
        let shared = folder + "/shared-photos"
        func environment(_ url: String) -> [String: String] {
            [
                "HAR_DATABASE_URL": url, "HAR_PHOTO_DIR": shared, "HAR_DATA_DIR": folder + "/node",
                "HAR_PLATFORM_URL": "https://api.example.org", "HAR_CONSUMER_KEY": "k", "HAR_CONSUMER_SECRET": "s",
            ]
        }
        let copied = try await runHar(
            ["migrate", "sqlite-to-postgres", "--from", fixture.dataDir], environment: environment(source))
        try #require(copied.status == 0, "\(copied.stderr)")
        try #require(rename(fixture.dataDir + "/photos", shared) == 0)
        for command in [
            ["users", "grant", "kept.out@example.org", "coordinator"], ["kiosk", "create", "--site", "Abbey"],
        ] {
            let done = try await runHar(command, environment: environment(source))
            try #require(done.status == 0, "\(command): \(done.stderr)")
        }
        let pool = try PostgresPool(source, configuration: .init(size: 1))
        try pool.withConnection { _ = try $0.run("UPDATE kiosks SET credential_hash = decode('0a0b', 'hex')") }
        pool.close()

        let archive = folder + "/pg.tar"
        let created = try await runHar(["backup", "create", "--to", archive], environment: environment(source))
        try #require(created.status == 0, "\(created.stderr)")
        for command in [["users", "revoke", "kept.out@example.org"], ["kiosk", "revoke", "1"]] {
            let done = try await runHar(command, environment: environment(source))
            try #require(done.status == 0, "\(command): \(done.stderr)")
        }

        let target = try cluster.makeDatabase()
        let restored = try await runHar(["backup", "restore", archive], environment: environment(target))
        try #require(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains("(1 sessions, 1 kiosk credentials)"), "\(restored.stdout)")
        #expect(restored.stdout.contains("role of kept.out@example.org, kiosk 1"), "\(restored.stdout)")
        #expect(
            FileManager.default.fileExists(atPath: shared + "/" + RevocationJournal.fileName),
            "the record of revocations moves over to the restored photo folder")

        let stores = try Stores.postgres(url: target, poolSize: 1)
        defer { stores.close() }
        #expect(try stores.kiosks.kiosk(credentialHash: [0x0a, 0x0b]) == nil, "the tablet is refused")
        #expect(try stores.kiosks.kiosk(id: 1)?.isRevoked == true, "the kiosk stays revoked")
        #expect(try stores.review.storedRole(email: "kept.out@example.org") == nil, "the role stays revoked")
        let audit = try stores.review.audit(AuditFilter(actor: "", action: "backup_restore"), beforeID: nil, limit: 5)
        let takenAt = try await manifest(of: archive).createdAt
        #expect(audit.count == 1 && audit.first?.subject == takenAt)
        let check = try PostgresPool(target, configuration: .init(size: 1))
        defer { check.close() }
        #expect(try check.withConnection { try $0.scalar("SELECT count(*) FROM web_sessions").int } == 0)
    }
}
