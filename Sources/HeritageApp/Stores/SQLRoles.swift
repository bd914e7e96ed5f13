import SQLiteStorage

/// Roles held by platform accounts (REV-10), once for both databases. A grant names an e-mail; it is a
/// role only once bound to the account that signed in with that e-mail (`user_roles.account_id`):
/// at once when such an account has signed in here before the grant, else at that e-mail's first
/// sign-in if the platform says the account is verified, else when an administrator confirms that
/// first sign-in (recorded in `first_signin_*`, with its time and address). E-mails compare without
/// case on both databases (`lower`).
enum SQLRoles<Backend: SQLBackend> {
    typealias Connection = Backend.Connection

    /// The role the user's account holds (nil: none).
    static func role(_ db: Connection, userID: Int64) throws -> Role? {
        try db.scalar(
            """
            SELECT ur.role FROM user_roles ur JOIN users u ON u.account_id = ur.account_id
            WHERE u.id = ? AND u.kiosk_id IS NULL
            """, .integer(userID)
        ).string.flatMap(Role.init)
    }

    /// The bound role of the grant to `email` (nil: none, or still pending).
    static func boundRole(_ db: Connection, email: String) throws -> Role? {
        try db.scalar(
            "SELECT role FROM user_roles WHERE lower(email) = lower(?) AND account_id IS NOT NULL", .text(email)
        ).string.flatMap(Role.init)
    }

    /// Grants `role` to `email`, audited; binds it to the account that signed in here with that e-mail,
    /// or to the first sign-in waiting for confirmation (a grant on the server confirms it).
    static func grant(_ db: Connection, email: String, role: Role, actor: String, now: Double) throws -> Role? {
        let before = try db.query(
            "SELECT role, account_id, first_signin_account FROM user_roles WHERE lower(email) = lower(?)",
            .text(email)
        ).first
        let known = try db.scalar(
            "SELECT account_id FROM users WHERE lower(email) = lower(?) AND kiosk_id IS NULL", .text(email)
        ).string
        let account = try before?.string("account_id") ?? before?.string("first_signin_account") ?? known
        if before == nil {
            _ = try db.run(
                """
                INSERT INTO user_roles (email, role, granted_by, granted_at, account_id) VALUES (?, ?, ?, ?, ?)
                """, .text(email.lowercased()), .text(role.rawValue), .text(actor), .real(now), SQLValue(account))
        } else {
            _ = try db.run(
                """
                UPDATE user_roles SET role = ?, granted_by = ?, granted_at = ?, account_id = ?
                WHERE lower(email) = lower(?)
                """, .text(role.rawValue), .text(actor), .real(now), SQLValue(account), .text(email))
        }
        let previous = try before?.string("role")
        let wasBound = try before?.string("account_id") != nil
        try audit(
            db, actor: actor, action: "role_grant", subject: email,
            before: wasBound ? previous ?? "volunteer" : "volunteer",
            after: account == nil ? "\(role.rawValue) (pending)" : role.rawValue, now: now)
        return wasBound ? previous.flatMap(Role.init) : nil
    }

    /// An administrator confirms the first sign-in recorded for a pending grant: the role is bound to
    /// that account. Nil when there is no such sign-in to confirm.
    static func confirm(_ db: Connection, email: String, actor: String, now: Double) throws -> Role? {
        guard
            let row = try db.query(
                """
                SELECT role, first_signin_account FROM user_roles
                WHERE lower(email) = lower(?) AND account_id IS NULL AND first_signin_account IS NOT NULL
                """, .text(email)
            ).first, let role = try row.string("role"), let account = try row.string("first_signin_account")
        else { return nil }
        _ = try db.run(
            "UPDATE user_roles SET account_id = ? WHERE lower(email) = lower(?)", .text(account), .text(email))
        try audit(
            db, actor: actor, action: "role_confirm", subject: email, before: "\(role) (pending)", after: role,
            now: now)
        return Role(rawValue: role)
    }

    /// A sign-in with `email` by `accountID`: a pending grant is bound when the platform calls the
    /// account verified, and otherwise records the sign-in for an administrator to confirm.
    static func signedIn(
        _ db: Connection, email: String, accountID: String, verified: Bool, address: String, now: Double
    ) throws -> GrantBinding {
        guard
            let row = try db.query(
                "SELECT role, account_id, first_signin_account FROM user_roles WHERE lower(email) = lower(?)",
                .text(email)
            ).first, let role = try row.string("role").flatMap(Role.init)
        else { return .none }
        if let bound = try row.string("account_id") {
            return bound == accountID ? .bound(role) : .otherAccount(role)
        }
        if verified {
            _ = try db.run(
                "UPDATE user_roles SET account_id = ? WHERE lower(email) = lower(?)", .text(accountID), .text(email))
            try audit(
                db, actor: "platform:verified", action: "role_confirm", subject: email,
                before: "\(role.rawValue) (pending)", after: role.rawValue, now: now)
            return .bound(role)
        }
        if try row.string("first_signin_account") == nil {
            _ = try db.run(
                """
                UPDATE user_roles SET first_signin_account = ?, first_signin_at = ?, first_signin_address = ?
                WHERE lower(email) = lower(?)
                """, .text(accountID), .real(now), .text(String(address.prefix(100))), .text(email))
        }
        return .awaitingConfirmation(role)
    }

    /// Whether the user's e-mail has a grant still waiting for an administrator's confirmation.
    static func isAwaitingConfirmation(_ db: Connection, userID: Int64) throws -> Bool {
        try db.scalar(
            """
            SELECT count(*) FROM user_roles ur JOIN users u ON lower(u.email) = lower(ur.email)
            WHERE u.id = ? AND ur.account_id IS NULL
            """, .integer(userID)
        ).int ?? 0 > 0
    }

    /// `coordinators` of the configuration as grants by `configuration`: one for each e-mail it names
    /// that has none (bound by the same rule as any grant), and the ones it no longer names removed.
    static func syncConfigured(_ db: Connection, emails: Set<String>, now: Double) throws {
        let existing = try db.query("SELECT email, granted_by FROM user_roles").map {
            (try $0.string("email")?.lowercased() ?? "", try $0.string("granted_by") ?? "")
        }
        let granted = Set(existing.map(\.0))
        for email in emails.sorted() where !granted.contains(email) {
            _ = try grant(db, email: email, role: .coordinator, actor: configurationActor, now: now)
        }
        for (email, by) in existing where by == configurationActor && !emails.contains(email) {
            _ = try db.run("DELETE FROM user_roles WHERE lower(email) = lower(?)", .text(email))
            try audit(
                db, actor: configurationActor, action: "role_revoke", subject: email, before: "coordinator",
                after: "volunteer", now: now)
        }
    }

    static var configurationActor: String { "configuration" }

    static func grants(_ db: Connection) throws -> [RoleGrant] {
        try db.query(
            """
            SELECT email, role, granted_by, granted_at, account_id, first_signin_at, first_signin_address
            FROM user_roles ORDER BY lower(email), email
            """
        ).map { row in
            RoleGrant(
                email: try row.string("email") ?? "", role: Role(rawValue: try row.string("role") ?? "") ?? .volunteer,
                grantedBy: try row.string("granted_by") ?? "", grantedAt: try row.double("granted_at") ?? 0,
                isPending: try row.string("account_id") == nil, firstSignInAt: try row.double("first_signin_at"),
                firstSignInAddress: try row.string("first_signin_address"))
        }
    }

    private static func audit(
        _ db: Connection, actor: String, action: String, subject: String, before: String, after: String, now: Double
    ) throws {
        _ = try db.run(
            """
            INSERT INTO review_audit (at, actor, action, report_id, subject, before, after, detail)
            VALUES (?, ?, ?, NULL, ?, ?, ?, NULL)
            """, .real(now), .text(actor), .text(action), .text(subject), .text(before), .text(after))
    }
}

/// What a sign-in did to a grant of its e-mail.
enum GrantBinding: Sendable, Equatable {
    /// No grant names the e-mail.
    case none
    /// The account holds the role.
    case bound(Role)
    /// The grant waits for an administrator to confirm this first sign-in.
    case awaitingConfirmation(Role)
    /// The grant is bound to another account than the one signing in.
    case otherAccount(Role)
}
