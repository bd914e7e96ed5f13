import Foundation
import PostgresStorage
import TestSupport
import Testing

@testable import HeritageApp

/// A PostgreSQL database made by an earlier program (the first version on PostgreSQL had migrations 1–4; a
/// database may also lack 6 alone, which came after 7 and 8) is brought to every migration at the next
/// start, its rows kept and given what the new migrations give existing rows; `har users` runs on it.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.skipMessage)))
struct PostgresUpgradeTests {
    let now = Date().timeIntervalSince1970.rounded(.down)

    func record(_ email: String, token: UInt8, accountID: String? = nil) -> SignInRecord {
        SignInRecord(
            email: email, accountID: accountID, fullname: nil, platformSessionID: "s",
            platformSessionExpiresAt: now + 3600, tokenHash: Array(repeating: token, count: 32), csrfToken: "c",
            replacingTokenHash: nil)
    }

    @Test func aDatabaseAtVersionFourGoesToEveryMigration() throws {
        let url = try PostgresCluster.shared().makeDatabase()
        let connection = try PostgresConnection(url)
        defer { connection.close() }
        #expect(
            try PostgresMigrator.apply(AppMigrations.postgres.filter { $0.version <= 4 }, to: connection) == [
                1, 2, 3, 4,
            ])
        try connection.run(
            "INSERT INTO users (email, account_id, created_at, updated_at) VALUES ('Old@Example.org', 'acct-1', ?, ?)",
            .real(now), .real(now))

        let stores = try Stores.postgres(url: url, poolSize: 2)
        defer { stores.close() }
        let applied = try connection.query("SELECT version FROM schema_migrations ORDER BY version").compactMap {
            try $0.int(0)
        }
        #expect(applied == AppMigrations.postgres.map { Int64($0.version) })
        #expect(applied == AppMigrations.sqlite.map { Int64($0.version) }, "the same version numbers as SQLite's")
        // Migration 8 starts every existing user's list at version 1; migration 5's account check holds.
        let userID = try stores.users.signIn(record("old@example.org", token: 1, accountID: "acct-1"), now: now)
        #expect(try stores.reports.listVersion(userID: userID) == 1)
        #expect(throws: AccountMismatch.self) {
            try stores.users.signIn(record("old@example.org", token: 2, accountID: "acct-2"), now: now)
        }
        #expect(try stores.users.activeSessions(userID: userID, now: now).count == 1)
        // Migration 6: an existing report would be 'received' from a volunteer; roles can be granted.
        try stores.review.grantConfirmed(email: "Old@example.org", role: .admin, accountID: "acct-1", now: now)
        #expect(try stores.review.storedRole(email: "OLD@example.org") == .admin)
    }

    @Test func aDatabaseWithoutMigrationSixGetsItLater() throws {
        let url = try PostgresCluster.shared().makeDatabase()
        let connection = try PostgresConnection(url)
        defer { connection.close() }
        #expect(
            // Without 12, 18, 22 and 27 too: they are on migration 6's review_state and user_roles.
            try PostgresMigrator.apply(
                AppMigrations.postgres.filter { ![6, 12, 18, 22, 27].contains($0.version) }, to: connection)
                == AppMigrations.postgres.map(\.version).filter { ![6, 12, 18, 22, 27].contains($0) }.sorted())
        let stores = try Stores.postgres(url: url, poolSize: 2)
        defer { stores.close() }
        #expect(try PostgresMigrator.apply(AppMigrations.postgres, to: connection).isEmpty)
        let count = try connection.scalar("SELECT count(*) FROM schema_migrations WHERE version = 6").int
        #expect(count == 1)
        try stores.review.appendAudit(AuditEntry(at: now, actor: "a@example.org", action: "export_csv"))
        #expect(try stores.review.audit(AuditFilter(), beforeID: nil, limit: 5).count == 1)
    }

    /// `har users` works on the database of `database_url` (no SQLite file needed), like `har outbox`.
    @Test func harUsersGrantsOnTheDatabase() async throws {
        let url = try PostgresCluster.shared().makeDatabase()
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let environment = [
            "HAR_DATABASE_URL": url, "HAR_PLATFORM_URL": "https://api.example.org", "HAR_CONSUMER_KEY": "k",
            "HAR_CONSUMER_SECRET": "s", "HAR_DATA_DIR": folder,
        ]
        let granted = try await runHar(["users", "grant", "c@example.org", "coordinator"], environment: environment)
        #expect(granted.status == 0, "\(granted.stderr)")
        let stores = try Stores.postgres(url: url, poolSize: 1)
        defer { stores.close() }
        // Nobody has signed in with that e-mail: pending until an account is bound (REV-10).
        #expect(try stores.review.storedRole(email: "c@example.org") == nil)
        #expect(try stores.review.grants().first?.isPending == true)
        let listed = try await runHar(["users", "list"], environment: environment)
        #expect(listed.stdout.contains("c@example.org\tcoordinator (pending: no sign-in yet)\tgranted by cli:"))
    }
}
