import Basics
import FoundationEssentials
import PlatformClient

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

/// Our own sessions on top of the users' store: cookie tokens made and hashed here, so that only their
/// SHA-256 reaches the store, and a sign-in survives a server restart.
struct WebSessions: Sendable {
    let users: any UserStore
    /// When the platform gives no expiration_time, our session lasts this long.
    static let fallbackLifetime: Double = 12 * 3600
    /// `last_seen_at` is refreshed at most this often: a write per page view would cost the list its speed.
    static let touchInterval: Double = 300

    /// 256 random bits as lowercase hex: the cookie value.
    static func newToken() -> String { Crypto.randomHex(bytes: 32) }

    /// SHA-256 of a well-formed token, nil for anything else (so junk cookies never reach the store).
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
        guard let tokenHash = Self.hash(token: token) else { throw StoreError(.invariant, "token hash failed") }
        let csrf = Crypto.randomHex(bytes: 32)
        let userID = try users.signIn(
            SignInRecord(
                email: email, accountID: platform.accountID, fullname: platform.fullname,
                platformSessionID: platform.sessionID, platformSessionExpiresAt: expires, tokenHash: tokenHash,
                csrfToken: csrf, replacingTokenHash: oldToken.flatMap(Self.hash(token:))),
            now: now)
        return (token, WebSession(tokenHash: tokenHash, userID: userID, csrfToken: csrf, expiresAt: expires))
    }

    /// The live session and its user for a cookie token; nil when unknown or expired.
    func lookup(token: String, now: Double) throws -> (session: WebSession, user: WebUser)? {
        guard let tokenHash = Self.hash(token: token), let found = try users.session(tokenHash: tokenHash, now: now)
        else { return nil }
        if now - found.lastSeenAt > Self.touchInterval {
            try users.touchSession(tokenHash: tokenHash, now: now)
        }
        return (found.session, found.user)
    }

    /// Sign-out: this browser's session only.
    func delete(session: WebSession) throws {
        try users.deleteSession(tokenHash: session.tokenHash)
    }

    /// The platform said the session is over: every web session of the user ends with it (none could
    /// reach the platform any more). Reports are not touched: queued ones wait for the next sign-in.
    func endPlatformSession(userID: Int64) throws {
        try users.endPlatformSession(userID: userID)
    }
}
