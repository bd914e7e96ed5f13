import SQLiteStorage

/// Roles held by platform accounts (REV-10), once for both databases. A grant names an e-mail; it is a
/// role only once bound to a platform account (`user_roles.account_id`), and only in two ways: the
/// platform calls the account verified when it signs in with exactly the granted e-mail
/// (`GrantEmail.matches`), or an administrator confirms, by its id, the account whose first sign-in is
/// recorded beside the grant (`first_signin_*`: account, e-mail as typed, time, address). A grant never
/// binds by itself: not to an account that signed in before it, not on a second grant of the same
/// e-mail. Lookups compare e-mails without case (`lower`), so one e-mail holds one grant.
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

    /// Grants `role` to `email`, audited. A bound grant keeps its account (its role changes); a pending
    /// one stays pending, its e-mail now spelt as this grant spells it. An account that signed in here
    /// with the e-mail before the grant is recorded as its first sign-in, for an administrator to confirm.
    static func grant(_ db: Connection, email: String, role: Role, actor: String, now: Double) throws -> Role? {
        let spelt = GrantEmail.normalized(email)
        let before = try db.query(
            "SELECT role, account_id FROM user_roles WHERE lower(email) = lower(?)", .text(spelt)
        ).first
        let wasBound = try before?.string("account_id") != nil
        if before == nil {
            _ = try db.run(
                "INSERT INTO user_roles (email, role, granted_by, granted_at) VALUES (?, ?, ?, ?)", .text(spelt),
                .text(role.rawValue), .text(actor), .real(now))
        } else {
            _ = try db.run(
                """
                UPDATE user_roles SET role = ?, granted_by = ?, granted_at = ?,
                    email = CASE WHEN account_id IS NULL THEN ? ELSE email END
                WHERE lower(email) = lower(?)
                """, .text(role.rawValue), .text(actor), .real(now), .text(spelt), .text(spelt))
        }
        if !wasBound { try recordKnownAccount(db, email: spelt) }
        let previous = try before?.string("role")
        try audit(
            db, actor: actor, action: "role_grant", subject: spelt,
            before: wasBound ? previous ?? "volunteer" : "volunteer",
            after: wasBound ? role.rawValue : "\(role.rawValue) (pending)", now: now)
        return wasBound ? previous.flatMap(Role.init) : nil
    }

    /// A pending grant with no first sign-in recorded takes, as that sign-in, the account that signed in
    /// here with the e-mail before the grant: when it first did, and the address of its oldest session.
    private static func recordKnownAccount(_ db: Connection, email: String) throws {
        guard
            let user = try db.query(
                """
                SELECT u.account_id, u.email, u.created_at,
                    (SELECT s.client_address FROM web_sessions s WHERE s.user_id = u.id
                     ORDER BY s.created_at LIMIT 1) AS address
                FROM users u WHERE lower(u.email) = lower(?) AND u.kiosk_id IS NULL AND u.account_id IS NOT NULL
                """, .text(email)
            ).first, let account = try user.string("account_id")
        else { return }
        _ = try db.run(
            """
            UPDATE user_roles SET first_signin_account = ?, first_signin_email = ?, first_signin_at = ?,
                first_signin_address = ?
            WHERE lower(email) = lower(?) AND account_id IS NULL AND first_signin_account IS NULL
            """, .text(account), SQLValue(try user.string("email")), SQLValue(try user.double("created_at")),
            .text(String((try user.string("address") ?? "?").prefix(100))), .text(email))
    }

    /// An administrator confirms the first sign-in recorded for a pending grant, naming its account: the
    /// role is bound to that account, audited with the account's id.
    static func confirm(_ db: Connection, email: String, accountID: String, actor: String, now: Double) throws
        -> GrantConfirmation
    {
        guard
            let row = try db.query(
                """
                SELECT email, role, first_signin_account, first_signin_email FROM user_roles
                WHERE lower(email) = lower(?) AND account_id IS NULL AND first_signin_account IS NOT NULL
                """, .text(email)
            ).first, let role = try row.string("role"), let account = try row.string("first_signin_account"),
            let granted = try row.string("email")
        else { return .nothingToConfirm }
        guard account == accountID else { return .otherAccount }
        let typed = try row.string("first_signin_email") ?? granted
        guard GrantEmail.matches(typed, grant: granted) else { return .otherSpelling(typed) }
        try bind(db, email: granted, account: account, how: .confirmed, by: actor, now: now)
        try audit(
            db, actor: actor, action: "role_confirm", subject: granted, before: "\(role) (pending)",
            after: "\(role) (account \(account))", now: now)
        return Role(rawValue: role).map(GrantConfirmation.confirmed) ?? .nothingToConfirm
    }

    /// A sign-in with `email` by `accountID`: a pending grant is bound when the platform calls the
    /// account verified and the e-mail was typed exactly as granted; otherwise the first such sign-in is
    /// recorded for an administrator to confirm.
    static func signedIn(
        _ db: Connection, email: String, accountID: String, verified: Bool, address: String, now: Double
    ) throws -> GrantBinding {
        guard
            let row = try db.query(
                "SELECT email, role, account_id, first_signin_account FROM user_roles WHERE lower(email) = lower(?)",
                .text(email)
            ).first, let role = try row.string("role").flatMap(Role.init), let granted = try row.string("email")
        else { return .none }
        if let bound = try row.string("account_id") {
            return bound == accountID ? .bound(role) : .otherAccount(role)
        }
        if verified && GrantEmail.matches(email, grant: granted) {
            try bind(db, email: granted, account: accountID, how: .verified, by: "platform", now: now)
            try audit(
                db, actor: "platform:verified", action: "role_confirm", subject: granted,
                before: "\(role.rawValue) (pending)", after: "\(role.rawValue) (account \(accountID))", now: now)
            return .bound(role)
        }
        if try row.string("first_signin_account") == nil {
            _ = try db.run(
                """
                UPDATE user_roles SET first_signin_account = ?, first_signin_email = ?, first_signin_at = ?,
                    first_signin_address = ?
                WHERE lower(email) = lower(?)
                """, .text(accountID), .text(String(email.prefix(320))), .real(now), .text(String(address.prefix(100))),
                .text(email))
        }
        return .awaitingConfirmation(role)
    }

    private static func bind(
        _ db: Connection, email: String, account: String, how: GrantBindingKind, by: String, now: Double
    ) throws {
        _ = try db.run(
            """
            UPDATE user_roles SET account_id = ?, bound_how = ?, bound_by = ?, bound_at = ?
            WHERE lower(email) = lower(?)
            """, .text(account), .text(how.rawValue), .text(by), .real(now), .text(email))
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
    /// that has none (pending, bound by the same rule as any grant), and the ones it no longer names
    /// removed. E-mails compare without case here: one e-mail holds one grant.
    static func syncConfigured(_ db: Connection, emails: Set<String>, now: Double) throws {
        let existing = try db.query("SELECT email, granted_by FROM user_roles").map {
            (try $0.string("email")?.lowercased() ?? "", try $0.string("granted_by") ?? "")
        }
        let granted = Set(existing.map(\.0))
        let named = Set(emails.map { $0.lowercased() })
        for email in emails.sorted() where !granted.contains(email.lowercased()) {
            _ = try grant(db, email: email, role: .coordinator, actor: configurationActor, now: now)
        }
        for (email, by) in existing where by == configurationActor && !named.contains(email) {
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
            SELECT email, role, granted_by, granted_at, account_id, first_signin_at, first_signin_address,
                first_signin_account, first_signin_email, bound_how, bound_by, bound_at
            FROM user_roles ORDER BY lower(email), email
            """
        ).map { row in
            RoleGrant(
                email: try row.string("email") ?? "", role: Role(rawValue: try row.string("role") ?? "") ?? .volunteer,
                grantedBy: try row.string("granted_by") ?? "", grantedAt: try row.double("granted_at") ?? 0,
                isPending: try row.string("account_id") == nil, firstSignInAt: try row.double("first_signin_at"),
                firstSignInAddress: try row.string("first_signin_address"),
                firstSignInAccount: try row.string("first_signin_account"),
                firstSignInEmail: try row.string("first_signin_email"),
                binding: try row.string("bound_how").flatMap(GrantBindingKind.init),
                boundBy: try row.string("bound_by"),
                boundAt: try row.double("bound_at"))
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
