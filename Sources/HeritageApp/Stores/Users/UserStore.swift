/// Users and our own web sessions. A session is stored by the SHA-256 of its cookie token only
/// (`WebSessions` makes tokens and hashes them; this store never sees a token).
protocol UserStore: Sendable {
    /// Upserts the user (by e-mail) with the platform session, deletes the session the browser had
    /// (`record.replacingTokenHash`) and every expired one, and inserts the new session, in one
    /// transaction. Returns the user's id. Identity is the platform's account id: when the e-mail's row
    /// (e-mails compare without case) holds another `account_id` than the record's, nothing changes and
    /// `AccountMismatch` is thrown, so one account is never handed another's drafts, photos or list.
    func signIn(_ record: SignInRecord, now: Double) throws -> Int64

    /// The unexpired session of that token hash, with its user and the user's list version.
    func session(tokenHash: [UInt8], now: Double) throws -> StoredSession?

    /// Records that the session was used at `now`.
    func touchSession(tokenHash: [UInt8], now: Double) throws

    /// Deletes one session (sign-out).
    func deleteSession(tokenHash: [UInt8]) throws

    /// The platform ended the user's session: every web session of the user goes, and the platform
    /// session is forgotten. Reports are not touched.
    func endPlatformSession(userID: Int64) throws

    /// The user's unexpired sessions, most recently seen first (the settings' list of devices).
    func activeSessions(userID: Int64, now: Double) throws -> [SessionSummary]

    /// Deletes every session of the user but the one of `keeping` ("sign out of every other device").
    /// Returns how many went.
    func deleteSessions(userID: Int64, except keeping: [UInt8]) throws -> Int
}

/// One of a user's sessions as the settings list it: never its token, only what the user recognises.
struct SessionSummary: Sendable, Equatable {
    var tokenHash: [UInt8]
    var createdAt: Double
    var lastSeenAt: Double
    var userAgent: String?
    var clientAddress: String?
}

/// A sign-in whose platform account is not the one recorded for that e-mail here.
struct AccountMismatch: Error, Sendable {}

/// A sign-in with a kiosk's dedicated platform account: refused, since that person's list would show
/// the kiosk's reports (REV-12).
struct KioskAccountSignIn: Error, Sendable {}

/// What a sign-in records.
struct SignInRecord: Sendable {
    var email: String
    var accountID: String?
    var fullname: String?
    var platformSessionID: String
    var platformSessionExpiresAt: Double
    var tokenHash: [UInt8]
    var csrfToken: String
    var replacingTokenHash: [UInt8]?
    /// The browser's User-Agent and the client address at sign-in (shown in the settings' list).
    var userAgent: String? = nil
    var clientAddress: String? = nil
}

/// A live session as the store has it.
struct StoredSession: Sendable {
    var session: WebSession
    var user: WebUser
    var lastSeenAt: Double
    /// When the session was made (its absolute lifetime counts from here).
    var createdAt: Double = 0
    /// The user's list version (`ReportStore.listVersion`), read in the same statement: the list's
    /// ETag needs it, and one read instead of two is most of what a 304 of the list costs.
    var listVersion: Int64 = 0
}

/// The users' settings (SET-01..03), kept on the user's row.
protocol SettingsStore: Sendable {
    func save(settings: UserSettings, userID: Int64, now: Double) throws
}

/// What the data folder as a whole records: which platform its reports belong to, and whether the
/// store answers at all.
protocol InstanceStore: Sendable {
    /// Records `identity` as the folder's platform, unless another one is recorded and the folder holds
    /// reports other than drafts: then nothing changes and the recorded identity is returned.
    func claimPlatform(_ identity: String) throws -> String?

    /// Whether a read answers right now (`/healthz`).
    func isHealthy() -> Bool
}
