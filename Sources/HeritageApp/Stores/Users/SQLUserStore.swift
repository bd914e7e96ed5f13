import SQLiteStorage

/// `UserStore`, once for both databases (`SQLBackend`): the `users` and `web_sessions` tables. E-mails
/// compare without case (SQLite's `COLLATE NOCASE`, PostgreSQL's unique index on `lower(email)`).
struct SQLUserStore<Backend: SQLBackend>: UserStore {
    let database: Backend

    /// The conflict target of the users' e-mail, compared without case (`SQLDialect.caseFolding`).
    private static var emailConflict: String { Backend.dialect.conflictTarget(caseInsensitive: "email") }

    func signIn(_ record: SignInRecord, now: Double) throws -> Int64 {
        try database.write { db -> Int64 in
            if let accountID = record.accountID,
                let recorded = try db.scalar(
                    "SELECT account_id FROM users WHERE lower(email) = lower(?)", .text(record.email)
                )
                .string,
                recorded != accountID
            {
                throw AccountMismatch()
            }
            if try KioskStatements.isDedicatedAccount(db, email: record.email, accountID: record.accountID) {
                throw KioskAccountSignIn()
            }
            _ = try db.run(
                """
                INSERT INTO users (email, account_id, fullname, platform_session_id, platform_session_expires_at,
                                   created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT \(Self.emailConflict) DO UPDATE SET account_id = excluded.account_id, fullname = excluded.fullname,
                    platform_session_id = excluded.platform_session_id,
                    platform_session_expires_at = excluded.platform_session_expires_at,
                    updated_at = excluded.updated_at
                """,
                .text(record.email), SQLValue(record.accountID), SQLValue(record.fullname),
                .text(record.platformSessionID), .real(record.platformSessionExpiresAt), .real(now), .real(now))
            guard let id = try db.scalar("SELECT id FROM users WHERE lower(email) = lower(?)", .text(record.email)).int
            else {
                throw StoreError(.invariant, "user row missing after upsert")
            }
            if let oldHash = record.replacingTokenHash {
                try db.run("DELETE FROM web_sessions WHERE token_hash = ?", .blob(oldHash))
            }
            // Housekeeping rides on sign-in, which is rare: no timer needed.
            try db.run("DELETE FROM web_sessions WHERE expires_at <= ?", .real(now))
            try db.run(
                """
                INSERT INTO web_sessions (token_hash, user_id, csrf_token, created_at, expires_at, last_seen_at,
                                          user_agent, client_address)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, .blob(record.tokenHash), .integer(id), .text(record.csrfToken), .real(now),
                .real(record.platformSessionExpiresAt), .real(now), SQLValue(record.userAgent),
                SQLValue(record.clientAddress))
            return id
        }
    }

    /// The session, its user and their list version: one statement in one read, or none at all on SQLite
    /// when the reader connection holds the answer from an earlier read and nothing was committed to the
    /// file since (`SQLBackend.readKept`: validated by SQLite's data version on the very connection that
    /// would read, which moves with every commit of any connection or process). Sign-out, revocation,
    /// a touch, a settings change and every change of the list are commits, so a kept answer is never
    /// stale; expiry is by time and is checked here against `now` on every call.
    func session(tokenHash: [UInt8], now: Double) throws -> StoredSession? {
        // One statement: the session, its user and the list version in one snapshot.
        let found = try database.readKept(key: SessionMemoKey(tokenHash: tokenHash)) { db -> StoredSession? in
            let rows = try db.query(StoredSession.lookupSQL, .blob(tokenHash), .real(now))
            guard let row = rows.first else { return nil }
            return try StoredSession(row: row, tokenHash: tokenHash)
        }
        guard let found, found.session.expiresAt > now else { return nil }
        return found
    }

    /// A session's entry in a reader's memo.
    private struct SessionMemoKey: Hashable {
        var tokenHash: [UInt8]

        /// The digest's bytes fed to the hasher in one call: the synthesized hash fed an array's
        /// elements one at a time (32 calls of `Hasher.combine(UInt8)`, ~750 instructions of every
        /// signed-in request, callgrind). Equality stays the synthesized one (every byte compared).
        func hash(into hasher: inout Hasher) {
            tokenHash.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    func touchSession(tokenHash: [UInt8], now: Double) throws {
        try database.write { db in
            _ = try db.run(
                "UPDATE web_sessions SET last_seen_at = ? WHERE token_hash = ?", .real(now), .blob(tokenHash))
        }
    }

    func deleteSession(tokenHash: [UInt8]) throws {
        try database.write { db in
            _ = try db.run("DELETE FROM web_sessions WHERE token_hash = ?", .blob(tokenHash))
        }
    }

    func endPlatformSession(userID: Int64) throws {
        try database.write { db in
            _ = try db.run("DELETE FROM web_sessions WHERE user_id = ?", .integer(userID))
            _ = try db.run(
                "UPDATE users SET platform_session_id = NULL, platform_session_expires_at = NULL WHERE id = ?",
                .integer(userID))
        }
    }

    func activeSessions(userID: Int64, now: Double) throws -> [SessionSummary] {
        let rows = try database.read { db in
            try db.query(
                """
                SELECT token_hash, created_at, last_seen_at, user_agent, client_address FROM web_sessions
                WHERE user_id = ? AND expires_at > ? ORDER BY last_seen_at DESC, created_at DESC
                """, .integer(userID), .real(now))
        }
        return try Backend.mapped {
            try rows.map { row in
                SessionSummary(
                    tokenHash: try row.blob("token_hash") ?? [], createdAt: try row.double("created_at") ?? 0,
                    lastSeenAt: try row.double("last_seen_at") ?? 0, userAgent: try row.string("user_agent"),
                    clientAddress: try row.string("client_address"))
            }
        }
    }

    func deleteSessions(userID: Int64, except keeping: [UInt8]) throws -> Int {
        try database.write { db in
            try db.run(
                "DELETE FROM web_sessions WHERE user_id = ? AND token_hash <> ?", .integer(userID), .blob(keeping))
        }
    }
}

/// `SettingsStore`: three columns of `users`.
struct SQLSettingsStore<Backend: SQLBackend>: SettingsStore {
    let database: Backend

    func save(settings: UserSettings, userID: Int64, now: Double) throws {
        try database.write { db in
            _ = try db.run(
                """
                UPDATE users SET gps_accuracy_m = ?, gps_alert_seconds = ?, wireless_only = ?, updated_at = ?
                WHERE id = ?
                """, .integer(Int64(settings.gpsAccuracyMetres)), .integer(Int64(settings.gpsAlertSeconds)),
                .integer(settings.wirelessOnly ? 1 : 0), .real(now), .integer(userID))
        }
    }
}

/// `InstanceStore`: the `instance` key-value table.
struct SQLInstanceStore<Backend: SQLBackend>: InstanceStore {
    let database: Backend

    func claimPlatform(_ identity: String) throws -> String? {
        try database.write { db -> String? in
            let recorded = try db.scalar("SELECT value FROM instance WHERE key = 'platform'").string
            if let recorded, recorded != identity {
                let reports = try db.scalar("SELECT count(*) FROM reports WHERE state != 'draft'").int ?? 0
                if reports > 0 { return recorded }
            }
            try db.run(
                "INSERT INTO instance (key, value) VALUES ('platform', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                .text(identity))
            return nil
        }
    }

    /// One statement outside a transaction (`readStatement`): `/healthz` is polled, and under load
    /// (exports, uploads) its BEGIN and COMMIT were two more statements (PostgreSQL: round trips) each.
    func isHealthy() -> Bool {
        (try? database.readStatement { db in try db.scalar("SELECT count(*) FROM instance") }) != nil
    }
}
