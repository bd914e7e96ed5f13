import PlatformClient
import PostgresStorage
import SQLiteStorage

// The kiosks' SQL, written once for both backends: every statement below is in the SQL the
// two dialects share (RETURNING, ON CONFLICT, `?` parameters), so `SQLKioskStore` runs the same
// text on either backend's connections (`SQLConnection`, SQLBackend.swift), each method in its own
// transaction.

enum KioskStatements {
    static let kioskColumns = """
        k.id, k.site_name, k.latitude, k.longitude, k.radius_m, k.languages, k.idle_seconds, k.user_id,
        k.created_by, k.created_at, k.revoked_at, k.enrolled_at, k.last_seen_at, k.app_version, k.reports_user_id,
        k.account_email
        """

    static func kiosk(_ row: some SQLRowReading) throws -> Kiosk {
        Kiosk(
            id: try row.int("id") ?? 0, siteName: try row.string("site_name") ?? "",
            latitude: try row.double("latitude"), longitude: try row.double("longitude"),
            radiusMetres: try row.double("radius_m") ?? 0, languages: try row.string("languages") ?? "en,fr",
            idleSeconds: try row.int("idle_seconds").map { Int($0) }, userID: try row.int("user_id"),
            createdBy: try row.string("created_by") ?? "", createdAt: try row.double("created_at") ?? 0,
            revokedAt: try row.double("revoked_at"), enrolledAt: try row.double("enrolled_at"),
            lastSeenAt: try row.double("last_seen_at"), appVersion: try row.string("app_version"),
            reportsUserID: try row.int("reports_user_id"), dedicatedAccount: try row.string("account_email"))
    }

    static func audit(
        _ db: some SQLConnection, at: Double, actor: String, action: String, kioskID: Int64, reportID: Int64? = nil,
        before: String? = nil, after: String? = nil, detail: String? = nil
    ) throws {
        _ = try db.run(
            """
            INSERT INTO review_audit (at, actor, action, report_id, subject, before, after, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .real(at), .text(actor), .text(action), reportID.map(SQLValue.integer) ?? .null,
                .text("kiosk:\(kioskID)"), SQLValue(before), SQLValue(after), SQLValue(detail),
            ])
    }

    static func create(_ db: some SQLConnection, _ kiosk: NewKiosk, actor: String, now: Double) throws -> Int64 {
        guard
            let id = try db.scalar(
                """
                INSERT INTO kiosks (site_name, latitude, longitude, radius_m, languages, idle_seconds, user_id,
                    created_by, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """,
                [
                    .text(kiosk.siteName), SQLValue(kiosk.latitude), SQLValue(kiosk.longitude),
                    .real(kiosk.radiusMetres), .text(kiosk.languages),
                    kiosk.idleSeconds.map { .integer(Int64($0)) } ?? .null,
                    kiosk.userID.map(SQLValue.integer) ?? .null, .text(actor), .real(now),
                ]
            ).int
        else { throw StoreError(.invariant, "kiosk missing after its insert") }
        _ = try reportsUser(db, kioskID: id, now: now)
        try audit(db, at: now, actor: actor, action: "kiosk_create", kioskID: id, after: kiosk.siteName)
        return id
    }

    /// The users row the kiosk's reports belong to (REV-12): its own, which nobody can sign in as (its
    /// e-mail `kiosk:N` is no address) and no person's list, delete, device or reply route reaches.
    static func reportsUser(_ db: some SQLConnection, kioskID: Int64, now: Double) throws -> Int64 {
        if let id = try db.scalar("SELECT reports_user_id FROM kiosks WHERE id = ?", [.integer(kioskID)]).int {
            return id
        }
        _ = try db.run(
            """
            INSERT INTO users (email, kiosk_id, created_at, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """, [.text("kiosk:\(kioskID)"), .integer(kioskID), .real(now), .real(now)])
        guard let id = try db.scalar("SELECT id FROM users WHERE kiosk_id = ?", [.integer(kioskID)]).int else {
            throw StoreError(.invariant, "kiosk reports' user missing after its insert")
        }
        _ = try db.run("UPDATE kiosks SET reports_user_id = ? WHERE id = ?", [.integer(id), .integer(kioskID)])
        return id
    }

    /// A kiosk is ready to take a visit when it is not revoked and its account can be used (REV-12): the
    /// linked coordinator's while it holds a role now (one who loses the role stops being its account),
    /// or its dedicated account's session (`KioskStatements+Account.swift`) while it is live and was not
    /// refused by the platform. Its one parameter is the time now.
    static let readySQL = """
        k.revoked_at IS NULL AND (
            (k.account_email IS NULL AND EXISTS (
                SELECT 1 FROM users a JOIN user_roles ur ON ur.account_id = a.account_id WHERE a.id = k.user_id))
            OR (k.account_email IS NOT NULL AND \(dedicatedUsableSQL)))
        """

    /// The user whose platform session sends the reports of `userColumn`'s user: that user; for a kiosk's
    /// reports, the kiosk's own row when it has a dedicated account (its session is kept there), else
    /// the account linked to the kiosk while it holds a role (else none: they wait).
    static func uploaderSQL(_ userColumn: String) -> String {
        """
        (SELECT CASE WHEN p.kiosk_id IS NULL THEN p.id ELSE (
            SELECT CASE WHEN k.account_email IS NOT NULL THEN p.id ELSE (
                SELECT a.id FROM users a WHERE a.id = k.user_id
                    AND EXISTS (SELECT 1 FROM user_roles ur WHERE ur.account_id = a.account_id)) END
            FROM kiosks k WHERE k.id = p.kiosk_id) END
         FROM users p WHERE p.id = \(userColumn))
        """
    }

    static func issueEnrolment(
        _ db: some SQLConnection, kioskID: Int64, tokenHash: [UInt8], expiresAt: Double, actor: String, now: Double
    ) throws -> Bool {
        let changed = try db.run(
            "UPDATE kiosks SET enrol_token_hash = ?, enrol_expires_at = ? WHERE id = ? AND revoked_at IS NULL",
            [.blob(tokenHash), .real(expiresAt), .integer(kioskID)])
        guard changed == 1 else { return false }
        try audit(db, at: now, actor: actor, action: "kiosk_enrolment_link", kioskID: kioskID)
        return true
    }

    static func enrol(_ db: some SQLConnection, tokenHash: [UInt8], credentialHash: [UInt8], now: Double) throws
        -> Int64?
    {
        guard
            let id = try db.scalar(
                """
                UPDATE kiosks SET credential_hash = ?, enrol_token_hash = NULL, enrol_expires_at = NULL,
                    enrolled_at = ?, last_seen_at = ?
                WHERE enrol_token_hash = ? AND enrol_expires_at > ? AND revoked_at IS NULL RETURNING id
                """, [.blob(credentialHash), .real(now), .real(now), .blob(tokenHash), .real(now)]
            ).int
        else { return nil }
        try audit(db, at: now, actor: "kiosk:\(id)", action: "kiosk_enrol", kioskID: id)
        return id
    }

    static func kiosk(_ db: some SQLConnection, credentialHash: [UInt8]) throws -> Kiosk? {
        try db.query("SELECT \(kioskColumns) FROM kiosks k WHERE k.credential_hash = ?", [.blob(credentialHash)])
            .first.map { try kiosk($0) }
    }

    static func kiosk(_ db: some SQLConnection, id: Int64) throws -> Kiosk? {
        try db.query("SELECT \(kioskColumns) FROM kiosks k WHERE k.id = ?", [.integer(id)]).first.map { try kiosk($0) }
    }

    static func touch(_ db: some SQLConnection, kioskID: Int64, appVersion: String?, now: Double) throws {
        _ = try db.run(
            "UPDATE kiosks SET last_seen_at = ?, app_version = coalesce(?, app_version) WHERE id = ?",
            [.real(now), SQLValue(appVersion), .integer(kioskID)])
    }

    static func kiosks(_ db: some SQLConnection, dayStart: Double, now: Double) throws -> [KioskSummary] {
        try db.query(
            """
            SELECT \(kioskColumns), coalesce(k.account_email, u.email) AS account_email_shown,
                CASE WHEN u.platform_session_id IS NOT NULL
                    AND (u.platform_session_expires_at IS NULL OR u.platform_session_expires_at > ?) THEN 1 ELSE 0 END
                    AS account_live,
                CASE WHEN k.account_email IS NOT NULL
                    OR EXISTS (SELECT 1 FROM user_roles ur WHERE ur.account_id = u.account_id) THEN 1 ELSE 0 END
                    AS account_role,
                CASE WHEN k.account_email IS NOT NULL
                    AND EXISTS (SELECT 1 FROM refused_sessions rs WHERE rs.user_id = k.reports_user_id) THEN 1 ELSE 0 END
                    AS account_refused,
                (SELECT count(*) FROM reports r WHERE r.kiosk_id = k.id AND r.submitted_at >= ?) AS today,
                (SELECT count(*) FROM reports r WHERE r.kiosk_id = k.id AND r.submitted_at IS NOT NULL
                    AND r.review_state = 'received' AND r.discarded_at IS NULL
                    AND r.state NOT IN ('cancelled', 'deleted', 'deleting')) AS waiting
            FROM kiosks k
            LEFT JOIN users u ON u.id = CASE WHEN k.account_email IS NULL THEN k.user_id ELSE k.reports_user_id END
            ORDER BY k.id DESC
            """, [.real(now), .real(dayStart)]
        ).map { row in
            KioskSummary(
                kiosk: try kiosk(row), accountEmail: try row.string("account_email_shown"),
                accountSignedIn: try row.int("account_live") == 1,
                accountHoldsRole: try row.int("account_role") == 1,
                accountRefused: try row.int("account_refused") == 1, reportsToday: Int(try row.int("today") ?? 0),
                waitingForReview: Int(try row.int("waiting") ?? 0))
        }
    }

    static func revoke(_ db: some SQLConnection, id: Int64, actor: String, now: Double) throws -> Bool {
        let changed = try db.run(
            """
            UPDATE kiosks SET revoked_at = ?, revoked_by = ?, credential_hash = NULL, enrol_token_hash = NULL,
                enrol_expires_at = NULL
            WHERE id = ? AND revoked_at IS NULL
            """, [.real(now), .text(actor), .integer(id)])
        guard changed == 1 else { return false }
        try audit(db, at: now, actor: actor, action: "kiosk_revoke", kioskID: id)
        return true
    }

    static func userID(_ db: some SQLConnection, email: String) throws -> Int64? {
        try db.scalar("SELECT id FROM users WHERE lower(email) = lower(?)", [.text(email)]).int
    }

    // MARK: The visitor

    static func visit(_ db: some SQLConnection, kioskID: Int64) throws -> Draft? {
        try db.query(
            """
            SELECT r.id, r.local_id, r.user_id, r.updated_at FROM kiosks k
            JOIN reports r ON r.id = k.visit_report_id AND r.state = 'draft'
            WHERE k.id = ? AND k.revoked_at IS NULL
            """, [.integer(kioskID)]
        ).first.map { row in
            Draft(
                id: try row.int("id") ?? 0, localID: try row.string("local_id") ?? "",
                userID: try row.int("user_id") ?? 0, updatedAt: try row.double("updated_at") ?? 0)
        }
    }

    /// Deletes the visit's draft (photos first) and forgets it; the photo ids.
    static func endVisit(_ db: some SQLConnection, kioskID: Int64) throws -> [String] {
        guard
            let reportID = try db.scalar(
                """
                SELECT r.id FROM kiosks k JOIN reports r ON r.id = k.visit_report_id AND r.state = 'draft'
                WHERE k.id = ?
                """, [.integer(kioskID)]
            ).int
        else {
            _ = try db.run("UPDATE kiosks SET visit_report_id = NULL WHERE id = ?", [.integer(kioskID)])
            return []
        }
        let photos = try db.query("SELECT local_id FROM photos WHERE report_id = ?", [.integer(reportID)])
            .compactMap { try $0.string("local_id") }
        _ = try db.run("UPDATE kiosks SET visit_report_id = NULL WHERE id = ?", [.integer(kioskID)])
        _ = try db.run("DELETE FROM photos WHERE report_id = ?", [.integer(reportID)])
        _ = try db.run("DELETE FROM reports WHERE id = ? AND state = 'draft'", [.integer(reportID)])
        return photos
    }

    static func startVisit(_ db: some SQLConnection, kioskID: Int64, localID: String, now: Double) throws -> (
        draft: Draft?, discarded: [String]
    ) {
        let discarded = try endVisit(db, kioskID: kioskID)
        guard
            try db.scalar(
                "SELECT count(*) FROM kiosks k WHERE k.id = ? AND \(readySQL)", [.integer(kioskID), .real(now)]
            ).int == 1
        else { return (nil, discarded) }
        let userID = try reportsUser(db, kioskID: kioskID, now: now)
        guard
            let id = try db.scalar(
                """
                INSERT INTO reports (user_id, local_id, state, creation_time, updated_at, from_device, origin, kiosk_id)
                VALUES (?, ?, 'draft', ?, ?, 1, 'kiosk', ?) RETURNING id
                """, [.integer(userID), .text(localID), .real(now), .real(now), .integer(kioskID)]
            ).int
        else { throw StoreError(.invariant, "kiosk visit missing after its insert") }
        _ = try db.run("UPDATE kiosks SET visit_report_id = ? WHERE id = ?", [.integer(id), .integer(kioskID)])
        return (Draft(id: id, localID: localID, userID: userID, updatedAt: now), discarded)
    }

    /// A report the tablet made while the server could not be reached, named by the id the tablet gave it
    /// (off the network): a draft of the kiosk's account with origin "kiosk", made once; the
    /// same id sent again finds the same row. Not the kiosk's visit: no visitor's draft is discarded. Nil
    /// when the kiosk is revoked or has no account.
    static func openDeviceReport(_ db: some SQLConnection, kioskID: Int64, localID: String, now: Double) throws
        -> DeviceDraftState?
    {
        guard
            try db.scalar(
                "SELECT count(*) FROM kiosks k WHERE k.id = ? AND \(readySQL)", [.integer(kioskID), .real(now)]
            ).int == 1
        else { return nil }
        let userID = try reportsUser(db, kioskID: kioskID, now: now)
        _ = try db.run(
            """
            INSERT INTO reports (user_id, local_id, state, creation_time, updated_at, from_device, origin, kiosk_id)
            VALUES (?, ?, 'draft', ?, ?, 1, 'kiosk', ?) ON CONFLICT (local_id) DO NOTHING
            """, [.integer(userID), .text(localID), .real(now), .real(now), .integer(kioskID)])
        guard
            let row = try db.query(
                "SELECT id, user_id, state, kiosk_id FROM reports WHERE local_id = ?", [.text(localID)]
            ).first, let id = try row.int("id")
        else { throw StoreError(.invariant, "kiosk device report missing after its insert") }
        guard try row.int("kiosk_id") == kioskID, let owner = try row.int("user_id") else { return .elsewhere }
        guard try row.string("state") == "draft" else { return .submitted }
        _ = try db.run("UPDATE reports SET updated_at = ? WHERE id = ?", [.real(now), .integer(id)])
        return .draft(Draft(id: id, localID: localID, userID: owner, updatedAt: now))
    }

    static func recordSubmission(
        _ db: some SQLConnection, kioskID: Int64, reportID: Int64, receipt: NewReceipt, now: Double
    ) throws -> Bool {
        guard
            try db.scalar(
                "SELECT count(*) FROM reports WHERE id = ? AND kiosk_id = ? AND state <> 'draft'",
                [.integer(reportID), .integer(kioskID)]
            ).int == 1
        else { return false }
        if receipt.usedSiteLocation {
            _ = try db.run(
                """
                UPDATE reports SET latitude = k.latitude, longitude = k.longitude, accuracy = k.radius_m
                FROM kiosks k WHERE k.id = ? AND reports.id = ? AND reports.latitude IS NULL
                """, [.integer(kioskID), .integer(reportID)])
        }
        _ = try db.run(
            """
            INSERT INTO kiosk_receipts (code, report_id, secret_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
            """,
            [.text(receipt.code), .integer(reportID), .blob(receipt.secretHash), .real(now), .real(receipt.expiresAt)])
        _ = try db.run(
            "UPDATE kiosks SET visit_report_id = NULL WHERE id = ? AND visit_report_id = ?",
            [.integer(kioskID), .integer(reportID)])
        try audit(
            db, at: now, actor: "kiosk:\(kioskID)", action: "kiosk_submit", kioskID: kioskID, reportID: reportID,
            detail: receipt.usedSiteLocation ? "location: the site's (no usable location on the photos)" : nil)
        return true
    }

    // MARK: Receipts

    static let receiptColumns = """
        c.code, k.site_name, r.name, r.submitted_at, r.review_state, r.state, r.review_reason, r.latitude,
        r.longitude, c.expires_at, c.claimed_by
        """

    static func receipt(_ row: some SQLRowReading) throws -> ReceiptStatus {
        ReceiptStatus(
            code: try row.string("code") ?? "", siteName: try row.string("site_name") ?? "",
            name: try row.string("name"), submittedAt: try row.double("submitted_at") ?? 0,
            review: try row.string("review_state") ?? "received", delivery: try row.string("state") ?? "queued",
            reason: try row.string("review_reason"), latitude: try row.double("latitude"),
            longitude: try row.double("longitude"), expiresAt: try row.double("expires_at") ?? 0,
            claimedBy: try row.int("claimed_by"))
    }

    static let receiptJoin = """
        FROM kiosk_receipts c JOIN reports r ON r.id = c.report_id JOIN kiosks k ON k.id = r.kiosk_id
        """

    static func receipt(_ db: some SQLConnection, code: String) throws -> ReceiptStatus? {
        try db.query("SELECT \(receiptColumns) \(receiptJoin) WHERE c.code = ?", [.text(code)]).first.map {
            try receipt($0)
        }
    }

    static func claim(_ db: some SQLConnection, code: String, secretHash: [UInt8], userID: Int64, now: Double) throws
        -> ClaimOutcome
    {
        guard
            let row = try db.query(
                "SELECT secret_hash, expires_at, claimed_by, report_id FROM kiosk_receipts WHERE code = ?",
                [.text(code)]
            ).first
        else { return .unknown }
        let stored = try db.scalar("SELECT secret_hash FROM kiosk_receipts WHERE code = ?", [.text(code)]).blob ?? []
        guard Crypto.constantTimeEqual(stored, secretHash) else { return .wrongSecret }
        if let holder = try row.int("claimed_by") { return .alreadyClaimed(mine: holder == userID) }
        guard (try row.double("expires_at") ?? 0) > now else { return .expired }
        let changed = try db.run(
            "UPDATE kiosk_receipts SET claimed_by = ?, claimed_at = ? WHERE code = ? AND claimed_by IS NULL",
            [.integer(userID), .real(now), .text(code)])
        guard changed == 1 else { return .alreadyClaimed(mine: false) }
        // The claimer's list shows it from now: its version (its ETag) moves on.
        _ = try db.run(
            "INSERT INTO list_versions (user_id, version) VALUES (?, 0) ON CONFLICT (user_id) DO NOTHING",
            [.integer(userID)])
        _ = try db.run("UPDATE list_versions SET version = version + 1 WHERE user_id = ?", [.integer(userID)])
        let email = try db.scalar("SELECT email FROM users WHERE id = ?", [.integer(userID)]).string ?? "?"
        _ = try db.run(
            """
            INSERT INTO review_audit (at, actor, action, report_id, subject) VALUES (?, ?, 'receipt_claim', ?, ?)
            """, [.real(now), .text(email), SQLValue(try row.int("report_id")), .text("receipt:\(code)")])
        return .claimed
    }

    static func claimed(_ db: some SQLConnection, userID: Int64) throws -> [ReceiptStatus] {
        try db.query(claimedSQL, [.integer(userID)]).map { try receipt($0) }
    }

    /// Built once: read on every rendering of the report list, where interpolating it made and hashed
    /// its text anew each time (callgrind, docs/BENCHMARKS.md).
    private static let claimedSQL =
        "SELECT \(receiptColumns) \(receiptJoin) WHERE c.claimed_by = ? ORDER BY r.submitted_at DESC LIMIT 200"
}
