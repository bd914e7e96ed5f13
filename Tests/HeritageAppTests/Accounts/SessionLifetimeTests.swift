import Foundation
import Testing

@testable import HeritageApp

/// Sessions end after an idle timeout and an absolute lifetime, checked on every
/// request; the cookie never outlives the cap; the settings list the user's sessions and can end every
/// other one. The session rows are aged in the real SQLite file: no test waits a timeout.
@Suite struct SessionLifetimeTests {
    @Test func anIdleSessionEndsWithAMessageAndNothingLost() async throws {
        let server = try RunningServer()
        let client = try WebClient(server)
        _ = try await client.signIn(uniqueEmail())
        let email = try sqlite(server.dataDir, "SELECT email FROM users")
        let queued = try seedReport(server, email: email, state: "queued")
        #expect(try await client.get("/reports").status == 200)
        // Unused for a little over the default 7 days.
        try sqlite(server.dataDir, "UPDATE web_sessions SET last_seen_at = last_seen_at - 7 * 86400 - 60")
        let page = try await client.get("/reports")
        #expect(page.status == 303)
        #expect(page.headers["location"] == "/signin?notice=expired")
        #expect(try sqlite(server.dataDir, "SELECT COUNT(*) FROM web_sessions") == "0")
        let notice = try await client.get("/signin?notice=expired")
        #expect(notice.body.contains("Your session has ended. Please sign in again"))
        // The queued report is still there, and the user signs in again to it.
        #expect(try sqlite(server.dataDir, "SELECT COUNT(*) FROM reports WHERE local_id = '\(queued)'") == "1")
        #expect(try await client.signIn(email).status == 303)
        #expect(try await client.get("/reports").status == 200)
    }

    @Test func aSessionEndsAtItsAbsoluteLifetimeHoweverActive() async throws {
        let server = try RunningServer(environment: ["HAR_SESSION_MAX_SECONDS": "3600"])
        let client = try WebClient(server)
        let signIn = try await client.signIn(uniqueEmail())
        // The platform grants a day; the cookie is capped at the lifetime.
        let maxAge = signIn.headers["set-cookie"]?.firstMatch(of: /Max-Age=(\d+)/).map { Int($0.1) ?? 0 } ?? 0
        #expect(maxAge > 3500 && maxAge <= 3600, "\(maxAge)")
        // Made 61 minutes ago, seen a second ago: over.
        try sqlite(
            server.dataDir, "UPDATE web_sessions SET created_at = created_at - 3660, last_seen_at = last_seen_at - 1")
        let json = try await client.postJSON("/api/reports/refresh", "{}", csrf: "x")
        #expect(json.status == 401)
        #expect(json.body.contains(#""redirect":"/signin?notice=expired""#))
        #expect(try await client.get("/reports").headers["location"] == "/signin")
    }

    @Test func theSettingsListSessionsAndEndEveryOtherOne() async throws {
        let server = try RunningServer(environment: ["HAR_TRUSTED_PROXIES": "127.0.0.1"])
        let email = uniqueEmail()
        let phone = try WebClient(server)
        let fields = [("_csrf", try await phone.csrf()), ("email", email), ("password", "correct horse")]
        let agent = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36"
        _ = try await phone.post(
            "/signin", fields, ["-H", "X-Forwarded-For: 198.51.100.20", "-H", "User-Agent: \(agent)"])
        let laptop = try WebClient(server)
        _ = try await laptop.signIn(email)
        let other = try WebClient(server)
        _ = try await other.signIn(uniqueEmail())

        let settings = try await laptop.get("/settings")
        #expect(settings.body.components(separatedBy: "class=\"session-row\"").count == 3)  // two of mine
        #expect(settings.body.contains("Chrome · Android"))
        #expect(settings.body.contains("198.51.100.20"))
        #expect(settings.body.contains("(this device)"))
        #expect(!settings.body.contains(phone.cookie("har_session") ?? "-"))

        let token = try await laptop.csrf(from: "/settings")
        #expect(try await laptop.post("/settings/sessions/end-others", []).status == 403)  // CSRF
        let ended = try await laptop.post("/settings/sessions/end-others", [("_csrf", token)])
        #expect(ended.headers["location"] == "/settings?ended=1")
        #expect(try await laptop.get("/settings?ended=1").body.contains("Signed out of 1 other device(s)."))
        #expect(try await phone.get("/reports").headers["location"] == "/signin")
        #expect(try await laptop.get("/reports").status == 200)
        #expect(try await other.get("/reports").status == 200)  // another user's sessions are untouched
    }
}

/// The store's side, through the protocol (runs once per backend).
@Suite struct SessionStoreTests {
    @Test(arguments: StoreBackend.all) func sessionsAreListedAndOthersEnd(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let users = scene.stores.users
        func record(_ seed: UInt8, _ email: String) -> SignInRecord {
            SignInRecord(
                email: email, accountID: "a-\(email)", fullname: nil, platformSessionID: "p",
                platformSessionExpiresAt: scene.now + 3600, tokenHash: StoreScene.hash(seed), csrfToken: "c",
                replacingTokenHash: nil, userAgent: "Firefox/1 (\(seed))", clientAddress: "192.0.2.\(seed)")
        }
        let ann = try users.signIn(record(1, "ann@example.org"), now: scene.now)
        _ = try users.signIn(record(2, "ann@example.org"), now: scene.now)
        let bob = try users.signIn(record(3, "bob@example.org"), now: scene.now)
        try users.touchSession(tokenHash: StoreScene.hash(2), now: scene.now + 10)
        let listed = try users.activeSessions(userID: ann, now: scene.now)
        #expect(listed.map(\.tokenHash) == [StoreScene.hash(2), StoreScene.hash(1)])
        #expect(listed.first?.userAgent == "Firefox/1 (2)" && listed.first?.clientAddress == "192.0.2.2")
        #expect(try users.session(tokenHash: StoreScene.hash(1), now: scene.now)?.createdAt == scene.now)
        #expect(try users.deleteSessions(userID: ann, except: StoreScene.hash(2)) == 1)
        #expect(try users.activeSessions(userID: ann, now: scene.now).count == 1)
        #expect(try users.activeSessions(userID: bob, now: scene.now).count == 1)
    }

    /// The session's read carries the user's list version (one read for both on a 304), and
    /// on SQLite an answer kept by the reader (`Database.withMemo`) is dropped by the next commit: a
    /// change of the list, a touch, a sign-out. Expiry is by time, kept answer or not.
    @Test(arguments: StoreBackend.all) func theSessionCarriesTheListVersionNeverStale(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let users = scene.stores.users
        let reports = scene.stores.reports
        let userID = try scene.user("a@example.org", token: 1, expires: scene.now + 100)
        func session(at offset: Double = 0) throws -> StoredSession? {
            try users.session(tokenHash: StoreScene.hash(1), now: scene.now + offset)
        }
        let first = try #require(try session())
        #expect(first.listVersion == (try reports.listVersion(userID: userID)))
        #expect(try session()?.listVersion == first.listVersion)  // kept, on SQLite
        _ = try scene.queuedReport(userID: userID)
        let changed = try #require(try session())
        #expect(changed.listVersion != first.listVersion)
        #expect(changed.listVersion == (try reports.listVersion(userID: userID)))
        try users.touchSession(tokenHash: StoreScene.hash(1), now: scene.now + 50)
        #expect(try session(at: 50)?.lastSeenAt == scene.now + 50)
        #expect(try session(at: 99.5) != nil)
        #expect(try session(at: 100) == nil, "expired by time, with no commit in between")
        #expect(try session(at: 99.5) != nil)
        try users.deleteSession(tokenHash: StoreScene.hash(1))
        #expect(try session() == nil, "signed out")
    }
}
