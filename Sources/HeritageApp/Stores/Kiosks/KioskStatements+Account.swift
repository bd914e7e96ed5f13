import SQLiteStorage

/// A kiosk's dedicated platform account (migration 20): an account of its own, not a person's, that an
/// administrator signs in once on `/review/kiosks`. Only what the platform answered is kept (the
/// session, its expiry, the account's id), on the kiosk's own users row; the password never reaches the
/// database. The contract has no refresh token: when the session ends or the platform refuses it, the
/// kiosk is not ready until an administrator signs the account in again.
struct DedicatedAccount: Sendable, Equatable {
    var email: String
    var accountID: String?
    var sessionID: String
    var expiresAt: Double?
}

enum DedicatedAccountOutcome: Sendable, Equatable {
    case done
    /// No such kiosk, or it is revoked.
    case gone
    /// The account is a person's here (someone signed in with it): the kiosk's reports would show in
    /// that person's list (REV-12).
    case personsAccount
}

extension KioskStatements {
    /// The dedicated account's session can be used: kept, not expired (the one parameter: now), and not
    /// refused by the platform since it was signed in (a new sign-in clears the refusal).
    static let dedicatedUsableSQL = """
        EXISTS (SELECT 1 FROM users ku WHERE ku.id = k.reports_user_id AND ku.platform_session_id IS NOT NULL
            AND (ku.platform_session_expires_at IS NULL OR ku.platform_session_expires_at > ?)
            AND NOT EXISTS (SELECT 1 FROM refused_sessions rs WHERE rs.user_id = ku.id))
        """

    /// What `/review/kiosks` and the audit log call the kiosk's account now.
    static func accountShown(_ db: some SQLConnection, kioskID: Int64) throws -> String? {
        try db.scalar(
            """
            SELECT coalesce(k.account_email, u.email) FROM kiosks k LEFT JOIN users u ON u.id = k.user_id
            WHERE k.id = ?
            """, [.integer(kioskID)]
        ).string
    }

    static func setAccount(_ db: some SQLConnection, kioskID: Int64, userID: Int64, actor: String, now: Double)
        throws -> Bool
    {
        let before = try accountShown(db, kioskID: kioskID)
        let changed = try db.run(
            """
            UPDATE kiosks SET user_id = ?, account_email = NULL, account_platform_id = NULL
            WHERE id = ? AND revoked_at IS NULL
            """, [.integer(userID), .integer(kioskID)])
        guard changed == 1 else { return false }
        // A dedicated account's session goes with it: the kiosk's own row sends nothing from now on.
        _ = try db.run(
            """
            UPDATE users SET platform_session_id = NULL, platform_session_expires_at = NULL
            WHERE id = (SELECT reports_user_id FROM kiosks WHERE id = ?)
            """, [.integer(kioskID)])
        let after = try db.scalar("SELECT email FROM users WHERE id = ?", [.integer(userID)]).string
        try audit(db, at: now, actor: actor, action: "kiosk_account", kioskID: kioskID, before: before, after: after)
        return true
    }

    static func setDedicatedAccount(
        _ db: some SQLConnection, _ account: DedicatedAccount, kioskID: Int64, actor: String, now: Double
    ) throws -> DedicatedAccountOutcome {
        guard
            try db.scalar("SELECT count(*) FROM kiosks WHERE id = ? AND revoked_at IS NULL", [.integer(kioskID)]).int
                == 1
        else { return .gone }
        let person = try db.scalar(
            """
            SELECT count(*) FROM users WHERE kiosk_id IS NULL
                AND (lower(email) = lower(?) OR (account_id IS NOT NULL AND account_id = ?))
            """, [.text(account.email), SQLValue(account.accountID)]
        ).int
        guard person == 0 else { return .personsAccount }
        let before = try accountShown(db, kioskID: kioskID)
        let reportsUser = try reportsUser(db, kioskID: kioskID, now: now)
        _ = try db.run(
            "UPDATE kiosks SET account_email = ?, account_platform_id = ? WHERE id = ?",
            [.text(account.email), SQLValue(account.accountID), .integer(kioskID)])
        _ = try db.run(
            "UPDATE users SET platform_session_id = ?, platform_session_expires_at = ?, updated_at = ? WHERE id = ?",
            [.text(account.sessionID), SQLValue(account.expiresAt), .real(now), .integer(reportsUser)])
        // A refusal was of an earlier session: this one starts clean, and the worker resumes the kiosk's
        // reports that waited for it.
        _ = try db.run("DELETE FROM refused_sessions WHERE user_id = ?", [.integer(reportsUser)])
        try audit(
            db, at: now, actor: actor, action: "kiosk_account", kioskID: kioskID, before: before,
            after: account.email, detail: "dedicated account")
        return .done
    }

    /// Whether `email` or `accountID` is a live kiosk's dedicated account: no person signs in with it
    /// here (its list would show the kiosk's reports).
    static func isDedicatedAccount(_ db: some SQLConnection, email: String, accountID: String?) throws -> Bool {
        try db.scalar(
            """
            SELECT count(*) FROM kiosks WHERE revoked_at IS NULL
                AND (lower(account_email) = lower(?) OR (account_platform_id IS NOT NULL AND account_platform_id = ?))
            """, [.text(email), SQLValue(accountID)]
        ).int ?? 0 > 0
    }
}
