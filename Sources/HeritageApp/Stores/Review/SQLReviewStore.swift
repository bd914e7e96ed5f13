import SQLiteStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `ReviewStore`, once for both databases (`SQLBackend`): `user_roles`, `review_audit` and the review
/// columns of `reports` (migration 6). Only reports submitted here (`submitted_at` set) are reviewed: the
/// list's copies of what the platform lists are not. What the dialects do differently is in
/// `ReviewSQL.whereClause` (the text and map filters ask each engine's own index). Every decision, claim
/// and trash move is a read then a compare-and-set in one write transaction (SQLite: the one writer;
/// PostgreSQL: SERIALIZABLE, run again on a serialization failure), so two coordinators on two nodes
/// acting at once never both decide a report: the loser finds the winner's decision.
struct SQLReviewStore<Backend: SQLBackend>: ReviewStore {
    let database: Backend
    /// Where a revocation is written before the database's change, for a restore (`RevocationJournal`).
    var revocations: RevocationJournal?

    // MARK: Roles

    private typealias Roles = SQLRoles<Backend>

    func role(userID: Int64) throws -> Role? {
        try database.read { db in try Roles.role(db, userID: userID) }
    }

    func storedRole(email: String) throws -> Role? {
        try database.read { db in try Roles.boundRole(db, email: email) }
    }

    func grant(email: String, role: Role, actor: String, now: Double) throws -> Role? {
        try database.write { db in try Roles.grant(db, email: email, role: role, actor: actor, now: now) }
    }

    func confirm(email: String, accountID: String, actor: String, now: Double) throws -> GrantConfirmation {
        try database.write { db in try Roles.confirm(db, email: email, accountID: accountID, actor: actor, now: now) }
    }

    func signedIn(email: String, accountID: String, verified: Bool, address: String, now: Double) throws
        -> GrantBinding
    {
        try database.write { db in
            try Roles.signedIn(db, email: email, accountID: accountID, verified: verified, address: address, now: now)
        }
    }

    func isAwaitingConfirmation(userID: Int64) throws -> Bool {
        try database.read { db in try Roles.isAwaitingConfirmation(db, userID: userID) }
    }

    func syncConfigured(emails: Set<String>, now: Double) throws {
        try database.write { db in try Roles.syncConfigured(db, emails: emails, now: now) }
    }

    func revoke(email: String, actor: String, now: Double) throws -> Role? {
        try revocations?.record(.init(at: now, kind: .role, subject: email, actor: actor))
        return try database.write { db -> Role? in
            guard
                let before = try db.scalar("SELECT role FROM user_roles WHERE lower(email) = lower(?)", .text(email))
                    .string
            else { return nil }
            _ = try db.run("DELETE FROM user_roles WHERE lower(email) = lower(?)", .text(email))
            try Self.insertAudit(
                db,
                AuditEntry(
                    at: now, actor: actor, action: "role_revoke", subject: email, before: before, after: "volunteer"))
            return Role(rawValue: before)
        }
    }

    func isReviewablePhoto(_ photoID: String) throws -> Bool {
        try database.read { db in try SQLReviewPhotos<Backend>.isReviewable(db, photoID: photoID) }
    }

    func grants() throws -> [RoleGrant] {
        try database.read { db in try Roles.grants(db) }
    }

    func userEmails() throws -> [String] {
        try database.read { db in
            try db.query("SELECT email FROM users WHERE kiosk_id IS NULL ORDER BY lower(email), email").compactMap {
                try $0.string("email")
            }
        }
    }

    // MARK: Policy

    func setPolicy(_ policy: ReviewPolicy) throws {
        try database.write { db in
            _ = try db.run(
                """
                INSERT INTO instance (key, value) VALUES ('review_policy', ?)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """, .text(policy.rawValue))
        }
    }

    // MARK: Dashboard

    func counts(now: Double) throws -> ReviewCounts {
        try database.read { db in
            guard
                let row = try db.query(
                    """
                    SELECT
                      sum(CASE WHEN \(ReviewSQL.needClause(.waiting)) THEN 1 ELSE 0 END) AS waiting,
                      sum(CASE WHEN \(ReviewSQL.needClause(.published)) THEN 1 ELSE 0 END) AS published,
                      sum(CASE WHEN \(ReviewSQL.needClause(.replied)) THEN 1 ELSE 0 END) AS replied,
                      sum(CASE WHEN r.state = 'needs_attention' THEN 1 ELSE 0 END) AS attention,
                      sum(CASE WHEN r.state = 'held' THEN 1 ELSE 0 END) AS held
                    FROM reports r WHERE \(ReviewSQL.reviewable) AND r.state != 'deleting' AND r.discarded_at IS NULL
                    """
                ).first
            else { return ReviewCounts() }
            return ReviewCounts(
                waitingForApproval: Int(try row.int("waiting") ?? 0),
                publishedUnreviewed: Int(try row.int("published") ?? 0),
                reporterReplied: Int(try row.int("replied") ?? 0),
                needsAttention: Int(try row.int("attention") ?? 0), held: Int(try row.int("held") ?? 0))
        }
    }

    /// The page's ids first, by the filter's index and in its order, then the columns of those rows only:
    /// the photo count and first photo (two subqueries a row) are read for 50 rows, not for every
    /// match a sort has to see (the text and map filters sort theirs).
    func search(_ filter: ReviewFilter, after cursor: ReviewCursor?, limit: Int) throws -> [ReviewRow] {
        var (clause, values) = ReviewSQL.whereClause(filter, dialect: Backend.dialect)
        let order: String
        switch filter.sort {
        case .newest:
            order = "r.submitted_at DESC, r.id DESC"
            if let cursor, let key = Double(cursor.key) {
                clause += " AND (r.submitted_at < ? OR (r.submitted_at = ? AND r.id < ?))"
                values += [.real(key), .real(key), .integer(cursor.id)]
            }
        case .oldest:
            order = "r.submitted_at, r.id"
            if let cursor, let key = Double(cursor.key) {
                clause += " AND (r.submitted_at > ? OR (r.submitted_at = ? AND r.id > ?))"
                values += [.real(key), .real(key), .integer(cursor.id)]
            }
        case .name:
            order = "coalesce(r.name, ''), r.id"
            if let cursor {
                clause += " AND (coalesce(r.name, '') > ? OR (coalesce(r.name, '') = ? AND r.id > ?))"
                values += [.text(cursor.key), .text(cursor.key), .integer(cursor.id)]
            }
        }
        values.append(.integer(Int64(max(0, limit))))
        return try database.read { db in
            try db.query(
                """
                SELECT \(ReviewSQL.rowColumns)
                FROM (SELECT r.id FROM reports r WHERE \(clause) ORDER BY \(order) LIMIT ?) AS page
                JOIN reports r ON r.id = page.id JOIN users u ON u.id = r.user_id
                ORDER BY \(order)
                """, values
            ).map(Self.row)
        }
    }

    func count(_ filter: ReviewFilter, atMost: Int?) throws -> Int {
        let (clause, values) = ReviewSQL.whereClause(filter, dialect: Backend.dialect)
        let limit = atMost.map { " LIMIT \(max(0, $0))" } ?? ""
        return try database.read { db in
            Int(
                try db.scalar(
                    "SELECT count(*) FROM (SELECT 1 FROM reports r WHERE \(clause)\(limit)) AS matched",
                    values
                ).int ?? 0)
        }
    }

    func row(id: Int64) throws -> ReviewRow? {
        try database.read { db in
            try db.query(
                """
                SELECT \(ReviewSQL.rowColumns) FROM reports r JOIN users u ON u.id = r.user_id
                WHERE r.id = ? AND \(ReviewSQL.reviewable)
                """, .integer(id)
            ).first.map(Self.row)
        }
    }

    func photos(reportID: Int64) throws -> [ReviewPhoto] {
        try database.read { db in
            try db.query(
                """
                SELECT local_id, latitude, longitude, accuracy, captured_at FROM photos
                WHERE report_id = ? ORDER BY position, id
                """, .integer(reportID)
            ).map { row in
                ReviewPhoto(
                    localID: try row.string("local_id") ?? "", latitude: try row.double("latitude"),
                    longitude: try row.double("longitude"), accuracy: try row.double("accuracy"),
                    capturedAt: try row.string("captured_at"))
            }
        }
    }

    func nearby(id: Int64, metres: Double, limit: Int) throws -> [ReviewRow] {
        guard let center = try row(id: id), let latitude = center.latitude, let longitude = center.longitude else {
            return []
        }
        // A box first (the index-friendly part), then the exact distance here.
        let latitudeDelta = metres / 111_320
        let longitudeDelta = metres / max(1, 111_320 * cos(latitude * .pi / 180))
        let rows = try database.read { db in
            try db.query(
                """
                SELECT \(ReviewSQL.rowColumns) FROM reports r JOIN users u ON u.id = r.user_id
                WHERE \(ReviewSQL.reviewable) AND r.id != ? AND r.latitude BETWEEN ? AND ? AND r.longitude BETWEEN ? AND ?
                LIMIT 500
                """, .integer(id), .real(latitude - latitudeDelta), .real(latitude + latitudeDelta),
                .real(longitude - longitudeDelta), .real(longitude + longitudeDelta)
            ).map(Self.row)
        }
        return
            rows
            .compactMap { row -> (Double, ReviewRow)? in
                guard let lat = row.latitude, let lon = row.longitude else { return nil }
                let distance = Geo.distance(latitude, longitude, lat, lon)
                return distance <= metres ? (distance, row) : nil
            }
            .sorted { $0.0 < $1.0 }.prefix(limit).map(\.1)
    }

    static func row(_ row: some SQLRowReading) throws -> ReviewRow {
        ReviewRow(
            id: try row.int("id") ?? 0, localID: try row.string("local_id") ?? "", name: try row.string("name"),
            reporter: try row.string("email") ?? "", origin: try row.string("origin") ?? "volunteer",
            submittedAt: try row.double("submitted_at") ?? 0, designation: try row.string("designation"),
            condition: try row.string("condition"), grade: try row.string("grade"),
            latitude: try row.double("latitude"), longitude: try row.double("longitude"),
            accuracy: try row.double("accuracy"), delivery: try row.string("state") ?? "",
            review: try row.string("review_state") ?? "", reason: try row.string("review_reason"),
            message: try row.string("review_message"), duplicateOf: try row.int("duplicate_of"),
            reviewedBy: try row.string("reviewed_by"), reviewedAt: try row.double("reviewed_at"),
            repliedAt: try row.double("replied_at"), claimedBy: try row.string("claimed_by"),
            claimedUntil: try row.double("claimed_until"), lastError: try row.string("last_error"),
            photoCount: Int(try row.int("photo_count") ?? 0), firstPhoto: try row.string("first_photo"),
            platformReportID: try row.string("platform_report_id"), occupancy: try row.string("occupancy"),
            priorityCategory: try row.string("priority_category"), ownerType: try row.string("owner_type"),
            discardedAt: try row.double("discarded_at"), discardedBy: try row.string("discarded_by"),
            siteID: try row.int("site_id"))
    }
}
