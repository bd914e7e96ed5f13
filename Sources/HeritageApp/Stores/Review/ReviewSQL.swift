import SQLiteStorage

/// The review's SQL that both databases share, and the one place the dialects differ (`whereClause`).
enum ReviewSQL {
    /// A volunteer's reports the review has said something about (`reviewStates`), built once: read
    /// on every rendering of the report list (the review's notices), where interpolating it made and
    /// hashed its text anew each time (callgrind, docs/BENCHMARKS.md).
    static let reporterStates = """
        SELECT local_id, review_state, review_message, review_reason, name, state FROM reports r
        WHERE r.user_id = ? AND r.review_state != 'received' AND \(reviewable)
        """

    /// The reports a coordinator sees: submitted here, not deleted by their reporter. A report the review
    /// withdrew from the platform (`withdrawing`, `withdrawn`; before migration 18, `deleted` with its
    /// decision) stays in the review.
    static let reviewable = """
        r.submitted_at IS NOT NULL AND (r.state NOT IN ('draft', 'cancelled', 'deleted')
            OR (r.state = 'deleted' AND r.review_state IN ('rejected', 'duplicate')))
        """

    static let rowColumns = """
        r.id, r.local_id, r.name, u.email, r.origin, r.submitted_at, r.designation, r.condition, r.grade,
        r.latitude, r.longitude, r.accuracy, r.state, r.review_state, r.review_reason, r.review_message,
        r.duplicate_of, r.reviewed_by, r.reviewed_at, r.replied_at, r.claimed_by, r.claimed_until, r.last_error,
        r.platform_report_id, r.occupancy, r.priority_category, r.owner_type, r.discarded_at, r.discarded_by, r.site_id,
        (SELECT count(*) FROM photos p WHERE p.report_id = r.id) AS photo_count,
        (SELECT p.local_id FROM photos p WHERE p.report_id = r.id ORDER BY p.position, p.id LIMIT 1) AS first_photo
        """

    /// The recorded policy (`ReviewStore.setPolicy`, default `kiosk`) holds the report back until a
    /// decision: the worker's own test (`ReportSQL.waitingForReviewSQL`), on `reports r`.
    static let policyHolds = """
        (SELECT coalesce(max(value), 'kiosk') FROM instance WHERE key = 'review_policy')
            IN ('all', CASE WHEN r.origin = 'kiosk' THEN 'kiosk' ELSE 'all' END)
        """

    /// Each counter's reports among those received (`ReviewFilter.Need`): waiting for approval is what
    /// the worker will not take up (only `queued` is held back); the rest of the unanswered ones went
    /// out, or are on their way, unreviewed; a reporter's answer is counted apart whatever the policy.
    static func needClause(_ need: ReviewFilter.Need) -> String {
        switch need {
        case .waiting:
            "(r.review_state = 'received' AND r.replied_at IS NULL AND r.state = 'queued' AND \(policyHolds))"
        case .published:
            "(r.review_state = 'received' AND r.replied_at IS NULL AND NOT (r.state = 'queued' AND \(policyHolds)))"
        case .replied:
            "(r.review_state = 'received' AND r.replied_at IS NOT NULL)"
        }
    }

    static let decisionActions = ReviewAction.decisions.map(\.rawValue)

    /// The WHERE clause of a filter and its values. Each filter that would read the whole table asks an
    /// index of migration 11 instead (docs/BENCHMARKS.md has the query plans).
    static func whereClause(_ filter: ReviewFilter, dialect: SQLDialect) -> (String, [SQLValue]) {
        var clauses = [reviewable, filter.trash ? "r.discarded_at IS NOT NULL" : "r.discarded_at IS NULL"]
        var values: [SQLValue] = []
        if let need = filter.need { clauses.append(needClause(need)) }
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
            if dialect.hasTrigramTable && filter.text.count >= 3 {
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
        if let site = filter.site {
            clauses.append("r.site_id = ?")
            values.append(.integer(site))
        }
        if filter.hasFailure {
            // Word for word the predicate of the partial index `reports_failure`.
            clauses.append("(r.state = 'needs_attention' OR r.last_error IS NOT NULL)")
        }
        if let (south, west, north, east) = filter.bounds {
            switch dialect.spatialIndex {
            case .rtreeTable:
                // The R*Tree keeps 32-bit boxes rounded outwards: it narrows, the BETWEENs decide.
                clauses.append(
                    "r.id IN (SELECT id FROM reports_position WHERE north >= ? AND south <= ? AND east >= ? AND west <= ?)"
                )
                values += [.real(south), .real(north), .real(west), .real(east)]
            case .pointInBox:
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
}
