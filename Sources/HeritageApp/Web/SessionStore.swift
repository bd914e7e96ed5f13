import Basics
import FoundationEssentials
import PlatformClient
import Storage

/// A user's settings (SET-01..03), kept on the server so they follow the user to every device.
struct UserSettings: Sendable, Equatable {
    var gpsAccuracyMetres = 20
    var gpsAlertSeconds = 60
    var wirelessOnly = false

    static let gpsAccuracyRange = 1...1000
    static let gpsAlertRange = 5...3600
}

/// A signed-in user as pages see them. The platform session stays in here, server-side only.
struct WebUser: Sendable {
    var id: Int64
    var email: String
    var fullname: String?
    var settings: UserSettings
    var platformSessionID: String?
    var platformSessionExpiresAt: Double?

    /// The platform session to call the platform with, while it has not expired.
    func platformSession(now: Double) -> PlatformSession? {
        guard let platformSessionID, let expires = platformSessionExpiresAt, expires > now else { return nil }
        return PlatformSession(sessionID: platformSessionID, expirationTime: Date(timeIntervalSince1970: expires))
    }
}

/// One of our own sessions: the browser holds the token, the table only its SHA-256.
struct WebSession: Sendable {
    var tokenHash: [UInt8]
    var userID: Int64
    var csrfToken: String
    var expiresAt: Double
}

/// Users and web sessions in SQLite, so a sign-in survives a server restart.
struct SessionStore: Sendable {
    let store: DatabasePool
    /// When the platform gives no expiration_time, our session lasts this long.
    static let fallbackLifetime: Double = 12 * 3600
    /// `last_seen_at` is refreshed at most this often: a write per page view would cost the list its speed.
    static let touchInterval: Double = 300

    /// 256 random bits as lowercase hex: the cookie value.
    static func newToken() -> String { Crypto.randomHex(bytes: 32) }

    /// SHA-256 of a well-formed token, nil for anything else (so junk cookies never reach SQL).
    static func hash(token: String) -> [UInt8]? {
        guard token.utf8.count == 64, Hex.decode(token) != nil else { return nil }
        return Hex.decode(SHA256Stream.hash(Array(token.utf8)))
    }

    /// Signs `email` in: upserts the user with the platform session, deletes the session the browser
    /// had (rotation: a planted cookie never becomes signed in) and makes a new one.
    /// Returns the new cookie token and its session.
    func signIn(email: String, platform: PlatformSession, replacing oldToken: String?, now: Double) throws
        -> (token: String, session: WebSession)
    {
        let expires = platform.expirationTime?.timeIntervalSince1970 ?? now + Self.fallbackLifetime
        let token = Self.newToken()
        guard let tokenHash = Self.hash(token: token) else { throw WebStoreError("token hash failed") }
        let csrf = Crypto.randomHex(bytes: 32)
        let userID = try store.write { db -> Int64 in
            try db.run(
                """
                INSERT INTO users (email, account_id, fullname, platform_session_id, platform_session_expires_at,
                                   created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (email) DO UPDATE SET account_id = excluded.account_id, fullname = excluded.fullname,
                    platform_session_id = excluded.platform_session_id,
                    platform_session_expires_at = excluded.platform_session_expires_at,
                    updated_at = excluded.updated_at
                """,
                .text(email), SQLValue(platform.accountID), SQLValue(platform.fullname), .text(platform.sessionID),
                .real(expires), .real(now), .real(now))
            guard let id = try db.scalar("SELECT id FROM users WHERE email = ?", .text(email)).int else {
                throw WebStoreError("user row missing after upsert")
            }
            if let oldToken, let oldHash = Self.hash(token: oldToken) {
                try db.run("DELETE FROM web_sessions WHERE token_hash = ?", .blob(oldHash))
            }
            // Housekeeping rides on sign-in, which is rare: no timer needed.
            try db.run("DELETE FROM web_sessions WHERE expires_at <= ?", .real(now))
            try db.run(
                """
                INSERT INTO web_sessions (token_hash, user_id, csrf_token, created_at, expires_at, last_seen_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, .blob(tokenHash), .integer(id), .text(csrf), .real(now), .real(expires), .real(now))
            return id
        }
        return (token, WebSession(tokenHash: tokenHash, userID: userID, csrfToken: csrf, expiresAt: expires))
    }

    /// The live session and its user for a cookie token; nil when unknown or expired.
    func lookup(token: String, now: Double) throws -> (session: WebSession, user: WebUser)? {
        guard let tokenHash = Self.hash(token: token) else { return nil }
        let rows = try store.read { db in
            try db.query(
                """
                SELECT s.csrf_token, s.expires_at, s.last_seen_at, u.id, u.email, u.fullname,
                       u.platform_session_id, u.platform_session_expires_at,
                       u.gps_accuracy_m, u.gps_alert_seconds, u.wireless_only
                FROM web_sessions s JOIN users u ON u.id = s.user_id
                WHERE s.token_hash = ? AND s.expires_at > ?
                """, .blob(tokenHash), .real(now))
        }
        guard let row = rows.first, let userID = try row.int("id"), let csrf = try row.string("csrf_token"),
            let expires = try row.double("expires_at"), let email = try row.string("email")
        else { return nil }
        let settings = UserSettings(
            gpsAccuracyMetres: Int(try row.int("gps_accuracy_m") ?? 20),
            gpsAlertSeconds: Int(try row.int("gps_alert_seconds") ?? 60),
            wirelessOnly: (try row.int("wireless_only") ?? 0) != 0)
        let user = WebUser(
            id: userID, email: email, fullname: try row.string("fullname"), settings: settings,
            platformSessionID: try row.string("platform_session_id"),
            platformSessionExpiresAt: try row.double("platform_session_expires_at"))
        if now - (try row.double("last_seen_at") ?? 0) > Self.touchInterval {
            try store.write { db in
                _ = try db.run(
                    "UPDATE web_sessions SET last_seen_at = ? WHERE token_hash = ?", .real(now), .blob(tokenHash))
            }
        }
        return (WebSession(tokenHash: tokenHash, userID: userID, csrfToken: csrf, expiresAt: expires), user)
    }

    /// Sign-out: this browser's session only.
    func delete(session: WebSession) throws {
        try store.write { db in
            _ = try db.run("DELETE FROM web_sessions WHERE token_hash = ?", .blob(session.tokenHash))
        }
    }

    /// The platform said the session is over: every web session of the user ends with it (none could
    /// reach the platform any more). Reports are not touched: queued ones wait for the next sign-in.
    func endPlatformSession(userID: Int64) throws {
        try store.write { db in
            _ = try db.run("DELETE FROM web_sessions WHERE user_id = ?", .integer(userID))
            _ = try db.run(
                "UPDATE users SET platform_session_id = NULL, platform_session_expires_at = NULL WHERE id = ?",
                .integer(userID))
        }
    }

    func save(settings: UserSettings, userID: Int64, now: Double) throws {
        try store.write { db in
            _ = try db.run(
                """
                UPDATE users SET gps_accuracy_m = ?, gps_alert_seconds = ?, wireless_only = ?, updated_at = ?
                WHERE id = ?
                """, .integer(Int64(settings.gpsAccuracyMetres)), .integer(Int64(settings.gpsAlertSeconds)),
                .integer(settings.wirelessOnly ? 1 : 0), .real(now), .integer(userID))
        }
    }
}

/// A store invariant that did not hold (logged as a 500; never shown).
struct WebStoreError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
