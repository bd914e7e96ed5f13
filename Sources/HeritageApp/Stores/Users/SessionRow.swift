/// The session lookup both user stores make (`UserStore.session`): one statement, the same text in
/// both dialects, and one way of reading its row into a `StoredSession`.
extension StoredSession {
    /// The session with its user and the user's list version, by the token's hash, unexpired at `now`.
    static let lookupSQL = """
        SELECT s.csrf_token, s.expires_at, s.last_seen_at, s.created_at, u.id, u.email, u.fullname,
               u.platform_session_id, u.platform_session_expires_at,
               u.gps_accuracy_m, u.gps_alert_seconds, u.wireless_only,
               COALESCE((SELECT v.version FROM list_versions v WHERE v.user_id = u.id), 0) AS list_version
        FROM web_sessions s JOIN users u ON u.id = s.user_id
        WHERE s.token_hash = ? AND s.expires_at > ?
        """

    /// Reads a row of `lookupSQL`; nil when a column the session cannot do without is NULL.
    init?(row: some SQLRowReading, tokenHash: [UInt8]) throws {
        guard let userID = try row.int("id"), let csrf = try row.string("csrf_token"),
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
        self.init(
            session: WebSession(tokenHash: tokenHash, userID: userID, csrfToken: csrf, expiresAt: expires),
            user: user, lastSeenAt: try row.double("last_seen_at") ?? 0,
            createdAt: try row.double("created_at") ?? 0, listVersion: try row.int("list_version") ?? 0)
    }
}
