import Storage

#if canImport(Glibc)
    import Glibc
#endif

/// `ReviewStore` on SQLite: `user_roles`, `review_audit` and the review columns of `reports`
/// (migration 6). Only reports submitted here (`submitted_at` set) are reviewed: the list's copies of
/// what the platform lists are not.
struct SQLiteReviewStore: ReviewStore {
    let database: SQLiteDatabase

    // MARK: Roles

    private typealias Roles = SQLRoles<SQLiteDatabase>

    func role(userID: Int64) throws -> Role? {
        try database.read { db in try Roles.role(db, userID: userID) }
    }

    func storedRole(email: String) throws -> Role? {
        try database.read { db in try Roles.boundRole(db, email: email) }
    }

    func grant(email: String, role: Role, actor: String, now: Double) throws -> Role? {
        try database.write { db in try Roles.grant(db, email: email, role: role, actor: actor, now: now) }
    }

    func confirm(email: String, actor: String, now: Double) throws -> Role? {
        try database.write { db in try Roles.confirm(db, email: email, actor: actor, now: now) }
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
        try database.write { db -> Role? in
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
        try database.read { db in try SQLReviewPhotos<SQLiteDatabase>.isReviewable(db, photoID: photoID) }
    }

    func grants() throws -> [RoleGrant] {
        try database.read { db in try Roles.grants(db) }
    }

    func userEmails() throws -> [String] {
        try database.read { db in
            try db.query("SELECT email FROM users ORDER BY email").compactMap { try $0.string("email") }
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

    /// The reports a coordinator sees: submitted here, not withdrawn by their reporter.
    /// A report rejected (or marked duplicate) after it was stored is withdrawn from the platform and ends
    /// `deleted`: it stays in the review, with its decision.
    static let reviewable = """
        r.submitted_at IS NOT NULL AND (r.state NOT IN ('draft', 'cancelled', 'deleted')
            OR (r.state = 'deleted' AND r.review_state IN ('rejected', 'duplicate')))
        """

    static let rowColumns = """
        r.id, r.local_id, r.name, u.email, r.origin, r.submitted_at, r.designation, r.condition, r.grade,
        r.latitude, r.longitude, r.accuracy, r.state, r.review_state, r.review_reason, r.review_message,
        r.duplicate_of, r.reviewed_by, r.reviewed_at, r.replied_at, r.claimed_by, r.claimed_until, r.last_error,
        r.platform_report_id, r.occupancy, r.priority_category, r.owner_type, r.discarded_at, r.discarded_by,
        (SELECT count(*) FROM photos p WHERE p.report_id = r.id) AS photo_count,
        (SELECT p.local_id FROM photos p WHERE p.report_id = r.id ORDER BY p.position, p.id LIMIT 1) AS first_photo
        """

    func counts(now: Double) throws -> ReviewCounts {
        try database.read { db in
            guard
                let row = try db.query(
                    """
                    SELECT
                      sum(CASE WHEN r.review_state = 'received' AND r.replied_at IS NULL THEN 1 ELSE 0 END) AS awaiting,
                      sum(CASE WHEN r.review_state = 'received' AND r.replied_at IS NOT NULL THEN 1 ELSE 0 END) AS replied,
                      sum(CASE WHEN r.state = 'needs_attention' THEN 1 ELSE 0 END) AS attention,
                      sum(CASE WHEN r.state = 'held' THEN 1 ELSE 0 END) AS held
                    FROM reports r WHERE \(Self.reviewable) AND r.state != 'deleting' AND r.discarded_at IS NULL
                    """
                ).first
            else { return ReviewCounts() }
            return ReviewCounts(
                awaitingReview: Int(try row.int("awaiting") ?? 0), reporterReplied: Int(try row.int("replied") ?? 0),
                needsAttention: Int(try row.int("attention") ?? 0), held: Int(try row.int("held") ?? 0))
        }
    }

    /// The SQL dialects the filter is written in: the same clause but for the text and the map's bounds,
    /// which each asks its own index (migration 11).
    enum Dialect { case sqlite, postgres }

    /// The WHERE clause of a filter and its values. Each filter that would read the whole table asks an
    /// index of migration 11 instead (docs/BENCHMARKS.md has the query plans).
    static func whereClause(_ filter: ReviewFilter, dialect: Dialect = .sqlite) -> (String, [SQLValue]) {
        var clauses = [reviewable, filter.trash ? "r.discarded_at IS NOT NULL" : "r.discarded_at IS NULL"]
        var values: [SQLValue] = []
        if let review = filter.review {
            clauses.append("r.review_state = ?")
            values.append(.text(review.rawValue))
        }
        if let delivery = filter.delivery {
            clauses.append("r.state = ?")
            values.append(.text(delivery.rawValue))
        }
        if let origin = filter.origin {
            clauses.append("r.origin = ?")
            values.append(.text(origin.rawValue))
        }
        if !filter.reporter.isEmpty {
            // The few users whose e-mail matches first (1,000 rows, not 100,000), then their reports by
            // `reports_user_submitted`.
            clauses.append("r.user_id IN (SELECT id FROM users WHERE lower(email) LIKE ? ESCAPE '\\')")
            values.append(.text("%" + likeEscaped(filter.reporter.lowercased()) + "%"))
        }
        if let from = filter.from {
            clauses.append("r.submitted_at >= ?")
            values.append(.real(from))
        }
        if let to = filter.to {
            clauses.append("r.submitted_at < ?")
            values.append(.real(to))
        }
        if !filter.text.isEmpty {
            if dialect == .sqlite && filter.text.count >= 3 {
                // The trigram index: a phrase of the text's trigrams is the text as a substring, any case,
                // in the name or the address (what the LIKE below says, answered from `reports_text`).
                clauses.append(
                    "(r.id IN (SELECT rowid FROM reports_text WHERE reports_text MATCH ?) OR r.local_id = ?)")
                values += [.text("\"" + filter.text.replacing("\"", with: "\"\"") + "\""), .text(filter.text)]
            } else {
                // PostgreSQL's trigram indexes are on these two expressions; under three characters no
                // trigram index helps, and SQLite reads the table.
                clauses.append(
                    "(lower(coalesce(r.name, '')) LIKE ? ESCAPE '\\' OR lower(coalesce(r.formatted_address, '')) LIKE ? ESCAPE '\\' OR r.local_id = ?)"
                )
                let pattern = "%" + likeEscaped(filter.text.lowercased()) + "%"
                values += [.text(pattern), .text(pattern), .text(filter.text)]
            }
        }
        if filter.hasFailure {
            // Word for word the predicate of the partial index `reports_failure`.
            clauses.append("(r.state = 'needs_attention' OR r.last_error IS NOT NULL)")
        }
        if let (south, west, north, east) = filter.bounds {
            switch dialect {
            case .sqlite:
                // The R*Tree keeps 32-bit boxes rounded outwards: it narrows, the BETWEENs decide.
                clauses.append(
                    "r.id IN (SELECT id FROM reports_position WHERE north >= ? AND south <= ? AND east >= ? AND west <= ?)"
                )
                values += [.real(south), .real(north), .real(west), .real(east)]
            case .postgres:
                clauses.append(
                    "point(r.longitude, r.latitude) <@ box(point(CAST(? AS double precision), CAST(? AS double precision)), point(CAST(? AS double precision), CAST(? AS double precision)))"
                )
                values += [.real(west), .real(south), .real(east), .real(north)]
            }
            clauses.append("r.latitude BETWEEN ? AND ? AND r.longitude BETWEEN ? AND ?")
            values += [.real(south), .real(north), .real(west), .real(east)]
        }
        return (clauses.joined(separator: " AND "), values)
    }

    static func likeEscaped(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("%", with: "\\%").replacing("_", with: "\\_")
    }

    /// The page's ids first, by the filter's index and in its order, then the columns of those rows only:
    /// the photo count and first photo (two subqueries a row) are read for 50 rows, not for every
    /// match a sort has to see (the text and map filters sort theirs).
    func search(_ filter: ReviewFilter, after cursor: ReviewCursor?, limit: Int) throws -> [ReviewRow] {
        var (clause, values) = Self.whereClause(filter)
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
                SELECT \(Self.rowColumns)
                FROM (SELECT r.id FROM reports r WHERE \(clause) ORDER BY \(order) LIMIT ?) AS page
                JOIN reports r ON r.id = page.id JOIN users u ON u.id = r.user_id
                ORDER BY \(order)
                """, values
            ).map(Self.row)
        }
    }

    func count(_ filter: ReviewFilter, atMost: Int?) throws -> Int {
        let (clause, values) = Self.whereClause(filter)
        let limit = atMost.map { " LIMIT \(max(0, $0))" } ?? ""
        return try database.read { db in
            Int(
                try db.scalar(
                    "SELECT count(*) FROM (SELECT 1 FROM reports r WHERE \(clause)\(limit))",
                    values
                ).int ?? 0)
        }
    }

    func row(id: Int64) throws -> ReviewRow? {
        try database.read { db in
            try db.query(
                """
                SELECT \(Self.rowColumns) FROM reports r JOIN users u ON u.id = r.user_id
                WHERE r.id = ? AND \(Self.reviewable)
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
                SELECT \(Self.rowColumns) FROM reports r JOIN users u ON u.id = r.user_id
                WHERE \(Self.reviewable) AND r.id != ? AND r.latitude BETWEEN ? AND ? AND r.longitude BETWEEN ? AND ?
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

    static func row(_ row: Row) throws -> ReviewRow {
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
            discardedAt: try row.double("discarded_at"), discardedBy: try row.string("discarded_by"))
    }

    // MARK: Actions

    func decide(_ decision: ReviewDecision, id: Int64, actor: String, now: Double) throws -> ReviewOutcome {
        try database.write { db in try Self.decide(db, decision, id: id, actor: actor, now: now) }
    }

    /// Each report its own compare-and-set, 500 to a transaction (one commit for many, and the writer
    /// free again between them).
    func decideAll(_ decision: ReviewDecision, ids: [Int64], actor: String, now: Double) throws -> [ReviewOutcome] {
        var outcomes: [ReviewOutcome] = []
        outcomes.reserveCapacity(ids.count)
        var start = 0
        while start < ids.count {
            let chunk = ids[start..<min(start + 500, ids.count)]
            outcomes += try database.write { db in
                try chunk.map { try Self.decide(db, decision, id: $0, actor: actor, now: now) }
            }
            start += chunk.count
        }
        return outcomes
    }

    static func decide(_ db: Database, _ decision: ReviewDecision, id: Int64, actor: String, now: Double) throws
        -> ReviewOutcome
    {
        guard
            let current = try db.query(
                "SELECT review_state, claimed_by, claimed_until FROM reports r WHERE r.id = ? AND \(Self.reviewable)",
                .integer(id)
            ).first, let state = try current.string("review_state")
        else { return .notFound }
        if let holder = try current.string("claimed_by"), holder.lowercased() != actor.lowercased(),
            let until = try current.double("claimed_until"), until > now
        {
            return try Self.lastAction(db, reportID: id, actions: ["claim"])
                ?? .conflict(actor: holder, action: "claim", at: until)
        }
        guard decision.from.map(\.rawValue).contains(state) else {
            return try Self.lastAction(db, reportID: id, actions: Self.decisionActions)
                ?? .conflict(actor: "?", action: state, at: 0)
        }
        if let from = ReviewState(rawValue: state),
            let refused = try ReviewDelivery.refusal(db, id: id, from: from, to: decision.to)
        {
            return refused
        }
        if let duplicateOf = decision.duplicateOf {
            let exists = try db.scalar(
                "SELECT count(*) FROM reports r WHERE r.id = ? AND r.id != ? AND \(Self.reviewable)",
                .integer(duplicateOf), .integer(id)
            ).int
            guard exists == 1 else { return .notFound }
        }
        let changed = try db.run(
            """
            UPDATE reports SET review_state = ?, review_reason = ?, review_message = ?, duplicate_of = ?,
                reviewed_by = ?, reviewed_at = ?, claimed_by = NULL, claimed_until = NULL,
                replied_at = CASE WHEN ? = 'received' THEN replied_at ELSE NULL END
            WHERE id = ? AND review_state = ?
            """, .text(decision.to.rawValue), SQLValue(decision.reason), SQLValue(decision.message),
            decision.duplicateOf.map(SQLValue.integer) ?? .null, .text(actor), .real(now),
            .text(decision.to.rawValue), .integer(id), .text(state))
        guard changed == 1 else { throw StoreError(.invariant, "review state changed inside its transaction") }
        var detail = [decision.reason, decision.message].compactMap { $0 }.joined(separator: ": ")
        if let from = ReviewState(rawValue: state),
            let delivery = try ReviewDelivery.apply(db, id: id, from: from, to: decision.to, now: now)
        {
            detail += (detail.isEmpty ? "" : "; ") + delivery
        }
        if let duplicateOf = decision.duplicateOf {
            detail =
                "duplicate of #\(duplicateOf)"
                + (detail.hasSuffix("platform") ? "; to be withdrawn from the platform" : "")
        }
        try Self.insertAudit(
            db,
            AuditEntry(
                at: now, actor: actor, action: decision.action, reportID: id, before: state,
                after: decision.to.rawValue, detail: detail.isEmpty ? nil : detail))
        return .done
    }

    static let decisionActions = ["approve", "reject", "needs_info", "duplicate", "reopen"]

    /// The latest of these actions on a report, as a conflict to tell the loser.
    static func lastAction(_ db: Database, reportID: Int64, actions: [String]) throws -> ReviewOutcome? {
        let marks = Array(repeating: "?", count: actions.count).joined(separator: ", ")
        guard
            let row = try db.query(
                """
                SELECT actor, action, at FROM review_audit WHERE report_id = ? AND action IN (\(marks))
                ORDER BY id DESC LIMIT 1
                """, [.integer(reportID)] + actions.map(SQLValue.text)
            ).first
        else { return nil }
        return .conflict(
            actor: try row.string("actor") ?? "?", action: try row.string("action") ?? "?",
            at: try row.double("at") ?? 0)
    }

    func claim(id: Int64, actor: String, now: Double, until: Double) throws -> ReviewOutcome {
        try database.write { db -> ReviewOutcome in
            guard
                let current = try db.query(
                    "SELECT claimed_by, claimed_until FROM reports r WHERE r.id = ? AND \(Self.reviewable)",
                    .integer(id)
                ).first
            else { return .notFound }
            let holder = try current.string("claimed_by")
            if let holder, holder.lowercased() != actor.lowercased(), let end = try current.double("claimed_until"),
                end > now
            {
                return try Self.lastAction(db, reportID: id, actions: ["claim"])
                    ?? .conflict(actor: holder, action: "claim", at: end)
            }
            _ = try db.run(
                "UPDATE reports SET claimed_by = ?, claimed_until = ? WHERE id = ?", .text(actor), .real(until),
                .integer(id))
            try Self.insertAudit(
                db, AuditEntry(at: now, actor: actor, action: "claim", reportID: id, before: holder, after: actor))
            return .done
        }
    }

    func releaseClaim(id: Int64, actor: String, now: Double) throws -> ReviewOutcome {
        try database.write { db -> ReviewOutcome in
            guard
                let current = try db.query(
                    "SELECT claimed_by, claimed_until FROM reports r WHERE r.id = ? AND \(Self.reviewable)",
                    .integer(id)
                ).first
            else { return .notFound }
            guard let holder = try current.string("claimed_by") else { return .done }
            if holder.lowercased() != actor.lowercased(), let end = try current.double("claimed_until"), end > now {
                return try Self.lastAction(db, reportID: id, actions: ["claim"])
                    ?? .conflict(actor: holder, action: "claim", at: end)
            }
            _ = try db.run("UPDATE reports SET claimed_by = NULL, claimed_until = NULL WHERE id = ?", .integer(id))
            try Self.insertAudit(
                db, AuditEntry(at: now, actor: actor, action: "release_claim", reportID: id, before: holder))
            return .done
        }
    }

    func reporterView(localID: String, userID: Int64) throws -> ReporterView? {
        try database.read { db in
            try db.query(
                """
                SELECT review_state, review_message, review_reason, name, state FROM reports r
                WHERE r.local_id = ? AND r.user_id = ? AND \(Self.reviewable)
                """, .text(localID), .integer(userID)
            ).first.map(Self.reporterView)
        }
    }

    func reviewStates(userID: Int64) throws -> [String: ReporterView] {
        // One statement: its own snapshot, without BEGIN and COMMIT around it (issue 14).
        try database.readOneStatement { db in
            var states: [String: ReporterView] = [:]
            for row in try db.query(
                """
                SELECT local_id, review_state, review_message, review_reason, name, state FROM reports r
                WHERE r.user_id = ? AND r.review_state != 'received' AND \(Self.reviewable)
                """, .integer(userID))
            {
                states[try row.string("local_id") ?? ""] = try Self.reporterView(row)
            }
            return states
        }
    }

    static func reporterView(_ row: Row) throws -> ReporterView {
        ReporterView(
            review: try row.string("review_state") ?? "", message: try row.string("review_message"),
            reason: try row.string("review_reason"), name: try row.string("name"),
            delivery: try row.string("state") ?? "")
    }

    func discard(id: Int64, actor: String, now: Double) throws -> ReviewOutcome {
        try database.write { db -> ReviewOutcome in
            guard
                let row = try db.query(
                    "SELECT state, discarded_at FROM reports r WHERE r.id = ? AND \(Self.reviewable)", .integer(id)
                ).first, let state = try row.string("state")
            else { return .notFound }
            if try row.double("discarded_at") != nil {
                return try Self.lastAction(db, reportID: id, actions: ["discard"])
                    ?? .conflict(actor: "?", action: "discard", at: 0)
            }
            guard ["queued", "held", "needs_attention"].contains(state) else { return .notApplicable(state: state) }
            _ = try db.run(
                """
                UPDATE reports SET discarded_at = ?, discarded_by = ?, claimed_by = NULL, claimed_until = NULL
                WHERE id = ? AND discarded_at IS NULL AND state IN ('queued', 'held', 'needs_attention')
                """, .real(now), .text(actor), .integer(id))
            try Self.insertAudit(db, AuditEntry(at: now, actor: actor, action: "discard", reportID: id, before: state))
            return .done
        }
    }

    func restore(id: Int64, actor: String, now: Double, since: Double) throws -> ReviewOutcome {
        try database.write { db -> ReviewOutcome in
            guard
                let row = try db.query(
                    "SELECT state, discarded_at FROM reports r WHERE r.id = ? AND \(Self.reviewable)", .integer(id)
                ).first
            else { return .notFound }
            guard let discardedAt = try row.double("discarded_at") else {
                return try Self.lastAction(db, reportID: id, actions: ["restore"])
                    ?? .notApplicable(state: try row.string("state") ?? "")
            }
            guard discardedAt > since else { return .notApplicable(state: "cancelled") }
            _ = try db.run(
                "UPDATE reports SET discarded_at = NULL, discarded_by = NULL WHERE id = ? AND discarded_at IS NOT NULL",
                .integer(id))
            try Self.insertAudit(
                db, AuditEntry(at: now, actor: actor, action: "restore", reportID: id, after: try row.string("state")))
            return .done
        }
    }

    func purgeTrash(before cutoff: Double, now: Double) throws -> [String] {
        try database.write { db -> [String] in
            let ids = try db.query(
                """
                SELECT id FROM reports WHERE discarded_at IS NOT NULL AND discarded_at <= ?
                  AND state IN ('queued', 'held', 'needs_attention')
                """, .real(cutoff)
            ).compactMap { try $0.int("id") }
            var photos: [String] = []
            for id in ids {
                photos += try db.query("SELECT local_id FROM photos WHERE report_id = ?", .integer(id)).compactMap {
                    try $0.string("local_id")
                }
                _ = try db.run(
                    "UPDATE reports SET state = 'cancelled', updated_at = ? WHERE id = ? AND discarded_at IS NOT NULL",
                    .real(now), .integer(id))
                try Self.insertAudit(
                    db, AuditEntry(at: now, actor: "system", action: "purge", reportID: id, after: "cancelled"))
            }
            return photos
        }
    }

    func reply(localID: String, userID: Int64, fields: ReportFields?, note: String, now: Double) throws -> Bool {
        try database.write { db -> Bool in
            guard
                let row = try db.query(
                    """
                    SELECT r.id, u.email, r.name, r.designation, r.condition, r.occupancy, r.priority_category,
                        r.owner_type, r.grade, CASE WHEN \(ReplyRoom.openSQL) THEN 1 ELSE 0 END AS open
                    FROM reports r JOIN users u ON u.id = r.user_id
                    WHERE r.local_id = ? AND r.user_id = ? AND r.review_state = 'needs_info'
                    """, .text(localID), .integer(userID)
                ).first, let id = try row.int("id")
            else { return false }
            var detail = note.isEmpty ? [] : [note]
            // The fields change only while the platform has nothing of the report yet.
            if let fields, try row.int("open") == 1 {
                let before = ReportFields(
                    name: try row.string("name") ?? "", designation: try row.string("designation") ?? "",
                    condition: try row.string("condition") ?? "", occupancy: try row.string("occupancy") ?? "",
                    priorityCategory: try row.string("priority_category") ?? "",
                    ownerType: try row.string("owner_type") ?? "", grade: try row.string("grade") ?? "")
                detail += ReplyRoom.changes(from: before, to: fields)
                _ = try db.run(
                    """
                    UPDATE reports SET name = ?, designation = ?, condition = ?, occupancy = ?, priority_category = ?,
                        owner_type = ?, grade = ?
                    WHERE id = ?
                    """, .text(fields.name), .text(fields.designation), .text(fields.condition),
                    .text(fields.occupancy), .text(fields.priorityCategory), .text(fields.ownerType),
                    .text(fields.grade), .integer(id))
            }
            _ = try db.run(
                """
                UPDATE reports SET review_state = 'received', replied_at = ?, updated_at = ?
                WHERE id = ? AND review_state = 'needs_info'
                """, .real(now), .real(now), .integer(id))
            try Self.insertAudit(
                db,
                AuditEntry(
                    at: now, actor: try row.string("email") ?? "?", action: "reporter_reply", reportID: id,
                    before: "needs_info", after: "received",
                    detail: detail.isEmpty ? nil : detail.joined(separator: "\n")))
            return true
        }
    }

    func replyRoom(localID: String, userID: Int64) throws -> ReplyRoom? {
        try database.read { db in
            try db.query(
                """
                SELECT r.id, (SELECT count(*) FROM photos p WHERE p.report_id = r.id) AS photo_count FROM reports r
                WHERE r.local_id = ? AND r.user_id = ? AND \(ReplyRoom.openSQL)
                """, .text(localID), .integer(userID)
            ).first.map { ReplyRoom(id: try $0.int("id") ?? 0, photoCount: Int(try $0.int("photo_count") ?? 0)) }
        }
    }

    func addReplyPhoto(_ photo: NewPhoto, localID: String, userID: Int64, now: Double) throws -> PhotoAddResult {
        try database.write { db -> PhotoAddResult in
            guard
                let row = try db.query(
                    """
                    SELECT r.id, u.email, (SELECT count(*) FROM photos p WHERE p.report_id = r.id) AS photo_count,
                        (SELECT coalesce(max(position), -1) + 1 FROM photos p WHERE p.report_id = r.id) AS next
                    FROM reports r JOIN users u ON u.id = r.user_id
                    WHERE r.local_id = ? AND r.user_id = ? AND \(ReplyRoom.openSQL)
                    """, .text(localID), .integer(userID)
                ).first, let id = try row.int("id")
            else { return .gone }
            guard try row.int("photo_count") ?? 0 < Int64(Draft.maximumPhotos) else { return .full }
            let position = Int(try row.int("next") ?? 0)
            _ = try db.run(
                """
                INSERT INTO photos (report_id, local_id, position, content_type, size, sha256, width, height,
                    latitude, longitude, accuracy, altitude, captured_at, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .integer(id), .text(photo.localID), .integer(Int64(position)), .text(photo.contentType),
                    .integer(Int64(photo.size)), .text(photo.sha256), .integer(Int64(photo.width)),
                    .integer(Int64(photo.height)), SQLValue(photo.fix?.latitude), SQLValue(photo.fix?.longitude),
                    SQLValue(photo.fix?.accuracy), SQLValue(photo.fix?.altitude), .text(photo.capturedAt), .real(now),
                ])
            _ = try db.run("UPDATE reports SET updated_at = ? WHERE id = ?", .real(now), .integer(id))
            try Self.insertAudit(
                db,
                AuditEntry(
                    at: now, actor: try row.string("email") ?? "?", action: "reporter_photo", reportID: id,
                    after: photo.localID))
            return .added(position: position)
        }
    }

    // MARK: Audit

    func appendAudit(_ entry: AuditEntry) throws {
        try database.write { db in try Self.insertAudit(db, entry) }
    }

    static func insertAudit(_ db: Database, _ entry: AuditEntry) throws {
        _ = try db.run(
            """
            INSERT INTO review_audit (at, actor, action, report_id, subject, before, after, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, .real(entry.at), .text(entry.actor), .text(entry.action),
            entry.reportID.map(SQLValue.integer) ?? .null, SQLValue(entry.subject), SQLValue(entry.before),
            SQLValue(entry.after), SQLValue(entry.detail))
    }

    func deliveryAttempts(reportID: Int64, limit: Int) throws -> [DeliveryAttempt] {
        try database.read { try SQLDeliveryAttempts<SQLiteDatabase>.list($0, reportID: reportID, limit: limit) }
    }

    func audit(_ filter: AuditFilter, beforeID: Int64?, limit: Int) throws -> [AuditEntry] {
        var clauses = ["1 = 1"]
        var values: [SQLValue] = []
        if !filter.actor.isEmpty {
            clauses.append("lower(actor) LIKE ? ESCAPE '\\'")
            values.append(.text("%" + Self.likeEscaped(filter.actor.lowercased()) + "%"))
        }
        if !filter.action.isEmpty {
            clauses.append("action = ?")
            values.append(.text(filter.action))
        }
        if let reportID = filter.reportID {
            clauses.append("report_id = ?")
            values.append(.integer(reportID))
        }
        if let beforeID {
            clauses.append("id < ?")
            values.append(.integer(beforeID))
        }
        values.append(.integer(Int64(max(0, limit))))
        return try database.read { db in
            try db.query(
                """
                SELECT id, at, actor, action, report_id, subject, before, after, detail FROM review_audit
                WHERE \(clauses.joined(separator: " AND ")) ORDER BY id DESC LIMIT ?
                """, values
            ).map { row in
                AuditEntry(
                    id: try row.int("id") ?? 0, at: try row.double("at") ?? 0, actor: try row.string("actor") ?? "",
                    action: try row.string("action") ?? "", reportID: try row.int("report_id"),
                    subject: try row.string("subject"), before: try row.string("before"),
                    after: try row.string("after"), detail: try row.string("detail"))
            }
        }
    }
}
