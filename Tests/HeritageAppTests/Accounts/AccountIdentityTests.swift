import Foundation
import Testing

@testable import HeritageApp

/// Identity is the platform's account id, not the e-mail. A platform that tells
/// `Ann@…` and `ann@…` apart (the local platform's test switch) gives two ids; the second is refused
/// here with a clear message and never sees the first one's reports (real `har serve`, real platform).
@Suite struct AccountIdentityTests {
    @Test func anotherAccountWithTheSameAddressInAnotherCaseIsRefused() async throws {
        let server = try await ServeProcess(environment: ["HAR_INTERNAL_TEST_CASE_SENSITIVE_EMAILS": "1"])
        let name = "ann.\(UUID().uuidString.prefix(8).lowercased())"
        let ann = try WebClient(server)
        #expect(try await ann.signIn("\(name)@example.org", "ann's own password").status == 303)
        let report = UUID().uuidString.lowercased()
        try sqlite(
            server.dataDir,
            """
            INSERT INTO reports (user_id, local_id, state, name, creation_time, updated_at)
            SELECT id, '\(report)', 'stored', 'Ann''s mill', 1767225600, 1767225600 FROM users
            """)

        // Another platform account (another password is accepted: it is a new account there).
        let other = try WebClient(server)
        let refused = try await other.signIn("\(name.capitalized)@example.org", "someone else's password")
        #expect(refused.status == 409)
        #expect(refused.body.contains("already linked here to another Heritage Observatory account"))
        #expect(refused.headers["set-cookie"]?.contains("har_session=") != true)
        #expect(try await other.get("/reports").headers["location"] == "/signin")
        let list = try await other.get("/api/reports", ["-H", "Accept: application/json"])
        #expect(list.status == 401 && !list.body.contains("mill"))
        // Nothing changed for Ann: one user, her account, her report, her session.
        #expect(try sqlite(server.dataDir, "SELECT COUNT(*) FROM users") == "1")
        #expect(try await ann.get("/reports").body.contains("mill"))
        #expect(try await WebClient(server).signIn("\(name)@example.org", "ann's own password").status == 303)
        let log = await server.stop().stderr
        #expect(log.contains("security event=signin.accountMismatch"))
        #expect(!log.contains("someone else's password"))
    }
}

/// The store refuses a sign-in whose account id is not the one recorded for the e-mail.
@Suite struct AccountIdentityStoreTests {
    @Test(arguments: StoreBackend.all) func aDifferentAccountIDIsRefusedAndChangesNothing(backend: StoreBackend) throws
    {
        let scene = try StoreScene(backend)
        func record(_ email: String, account: String?, seed: UInt8) -> SignInRecord {
            SignInRecord(
                email: email, accountID: account, fullname: nil, platformSessionID: "p\(seed)",
                platformSessionExpiresAt: scene.now + 3600, tokenHash: StoreScene.hash(seed), csrfToken: "c",
                replacingTokenHash: nil)
        }
        let ann = try scene.stores.users.signIn(record("ann@example.org", account: "A", seed: 1), now: scene.now)
        #expect(throws: AccountMismatch.self) {
            try scene.stores.users.signIn(record("Ann@example.org", account: "B", seed: 2), now: scene.now)
        }
        #expect(try scene.stores.users.session(tokenHash: StoreScene.hash(2), now: scene.now) == nil)
        #expect(
            try scene.stores.users.session(tokenHash: StoreScene.hash(1), now: scene.now)?.user.platformSessionID
                == "p1")
        // The same account in another case is the same user.
        #expect(try scene.stores.users.signIn(record("ANN@example.org", account: "A", seed: 3), now: scene.now) == ann)
    }
}
