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
/// Sessions end: after `idleSeconds` without a request, and `maxSeconds` after the
/// sign-in whatever happens (`HAR_SESSION_IDLE_SECONDS`, `HAR_SESSION_MAX_SECONDS`), and never after
/// the platform session they carry.
struct SessionLimits: Sendable, Equatable {
    var idleSeconds: Double = 7 * 86_400
    var maxSeconds: Double = 30 * 86_400
}

struct WebSessions: Sendable {
    let users: any UserStore
    var limits = SessionLimits()
    /// When the platform gives no expiration_time, our session lasts this long.
    static let fallbackLifetime: Double = 12 * 3600
    /// `last_seen_at` is refreshed at most this often (a write per page view would cost the list its
    /// speed), and at least ten times per idle timeout, so an active session never reads as idle.
    var touchInterval: Double { min(300, limits.idleSeconds / 10) }

    /// What a cookie's token stands for.
    enum Lookup {
        /// `listVersion`: the user's list version, read with the session (`StoredSession.listVersion`).
        case live(session: WebSession, user: WebUser, listVersion: Int64)
        /// The session existed but was idle too long or reached its lifetime: it is deleted now.
        case ended
        case unknown
    }

    /// 256 random bits as lowercase hex: the cookie value.
    static func newToken() -> String { Crypto.randomHex(bytes: 32) }

    /// SHA-256 of a well-formed token, nil for anything else (so junk cookies never reach the store).
    /// Checked and hashed over the token's own UTF-8 (decoding the hex into an array and copying the
    /// text into another cost ~2,500 instructions of every signed-in request).
    static func hash(token: String) -> [UInt8]? {
        var token = token
        return token.withUTF8 { bytes in
            guard bytes.count == 64, bytes.allSatisfy(Hex.isDigit) else { return nil }
            return SHA256Stream.digest(buffer: bytes)
        }
    }

    /// Signs `email` in: upserts the user with the platform session, deletes the session the browser
    /// had (rotation: a planted cookie never becomes signed in) and makes a new one.
    /// Returns the new cookie token and its session.
    func signIn(
        email: String, platform: PlatformSession, replacing oldToken: String?, userAgent: String? = nil,
        clientAddress: String? = nil, now: Double
    ) throws -> (token: String, session: WebSession) {
        // Never beyond the absolute lifetime, whatever the platform grants: the cookie's Max-Age follows.
        let expires = min(
            platform.expirationTime?.timeIntervalSince1970 ?? now + Self.fallbackLifetime, now + limits.maxSeconds)
        let token = Self.newToken()
        guard let tokenHash = Self.hash(token: token) else { throw StoreError(.invariant, "token hash failed") }
        let csrf = Crypto.randomHex(bytes: 32)
        let userID = try users.signIn(
            SignInRecord(
                email: email, accountID: platform.accountID, fullname: platform.fullname,
                platformSessionID: platform.sessionID, platformSessionExpiresAt: expires, tokenHash: tokenHash,
                csrfToken: csrf, replacingTokenHash: oldToken.flatMap(Self.hash(token:)),
                userAgent: userAgent.map { String($0.prefix(300)) }, clientAddress: clientAddress),
            now: now)
        return (token, WebSession(tokenHash: tokenHash, userID: userID, csrfToken: csrf, expiresAt: expires))
    }

    /// The live session and its user for a cookie token, checked on every request: idle too long or
    /// past its lifetime, the session is deleted and reads as `.ended`.
    func lookup(token: String, now: Double) throws -> Lookup {
        guard let tokenHash = Self.hash(token: token), let found = try users.session(tokenHash: tokenHash, now: now)
        else { return .unknown }
        if now - found.lastSeenAt >= limits.idleSeconds || now - found.createdAt >= limits.maxSeconds {
            try users.deleteSession(tokenHash: tokenHash)
            return .ended
        }
        if now - found.lastSeenAt > touchInterval {
            try users.touchSession(tokenHash: tokenHash, now: now)
        }
        return .live(session: found.session, user: found.user, listVersion: found.listVersion)
    }

    /// The user's sessions, for the settings' list.
    func active(userID: Int64, now: Double) throws -> [SessionSummary] {
        try users.activeSessions(userID: userID, now: now)
    }

    /// "Sign out of every other device": every session of the user but `session` ends.
    func endOthers(of session: WebSession) throws -> Int {
        try users.deleteSessions(userID: session.userID, except: session.tokenHash)
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
