import SQLiteStorage

/// The SQL of `SQLSiteReviewStore` that both engines share: a site's columns, its standing as
/// correlated subqueries on `reports (site_id)` (the register pages 50 sites at a time, so each
/// subquery runs for the page, not for 400,000 sites), and the register filter's WHERE clause.
enum SiteReviewSQL {
    /// A report that counts for a site: reviewable and not in the trash.
    static let counted = "\(ReviewSQL.reviewable) AND r.discarded_at IS NULL"
    static let approved = "\(counted) AND r.review_state = 'approved'"

    static let siteColumns = "s.id, s.reference, s.name, s.designation, s.grade, s.lat, s.lon, s.outline, s.source"

    /// The standing's columns of site `s`.
    static let standingColumns = """
        (SELECT r.condition FROM reports r WHERE r.site_id = s.id AND \(approved)
            ORDER BY r.submitted_at DESC, r.id DESC LIMIT 1) AS cur_condition,
        (SELECT r.priority_category FROM reports r WHERE r.site_id = s.id AND \(approved)
            ORDER BY r.submitted_at DESC, r.id DESC LIMIT 1) AS cur_priority,
        (SELECT r.submitted_at FROM reports r WHERE r.site_id = s.id AND \(approved)
            ORDER BY r.submitted_at DESC, r.id DESC LIMIT 1) AS cur_at,
        (SELECT r.condition FROM reports r WHERE r.site_id = s.id AND \(approved)
            ORDER BY r.submitted_at DESC, r.id DESC LIMIT 1 OFFSET 1) AS prev_condition,
        (SELECT count(*) FROM reports r WHERE r.site_id = s.id AND \(counted)) AS report_count,
        (SELECT max(r.submitted_at) FROM reports r WHERE r.site_id = s.id AND \(counted)) AS last_at
        """

    /// A condition's rank in SQL (bad 0 … good 3), as `SiteStanding.rank`.
    static func rank(_ column: String) -> String {
        "CASE \(column) "
            + SiteStanding.conditionOrder.enumerated().map { "WHEN '\($0.element)' THEN \($0.offset)" }.joined(
                separator: " ") + " END"
    }

    /// The WHERE clause on the derived table `x` (the site's and the standing's columns) and its values.
    static func whereClause(_ filter: SiteRegisterFilter) -> (String, [SQLValue]) {
        var clauses = ["1 = 1"]
        var values: [SQLValue] = []
        if let condition = filter.condition {
            clauses.append("x.cur_condition = ?")
            values.append(.text(condition))
        }
        if let priority = filter.priority {
            clauses.append("x.cur_priority = ?")
            values.append(.text(priority))
        }
        if let since = filter.worsenedSince {
            clauses.append("x.cur_at >= ? AND (\(rank("x.cur_condition"))) < (\(rank("x.prev_condition")))")
            values.append(.real(since))
        }
        if let since = filter.notReportedSince {
            clauses.append("(x.last_at IS NULL OR x.last_at < ?)")
            values.append(.real(since))
        }
        if filter.reportedOnly { clauses.append("x.report_count > 0") }
        return (clauses.joined(separator: " AND "), values)
    }

    /// The clause on the sites' own columns (before the standing is read) and its values.
    static func siteClause(_ filter: SiteRegisterFilter) -> (String, [SQLValue]) {
        var clauses = ["1 = 1"]
        var values: [SQLValue] = []
        if let designation = filter.designation {
            clauses.append("s.designation = ?")
            values.append(.text(designation))
        }
        if !filter.text.isEmpty {
            clauses.append(
                "(lower(s.name) LIKE ? ESCAPE '\\' OR lower(coalesce(s.reference, '')) LIKE ? ESCAPE '\\')")
            let pattern = "%" + ReviewSQL.likeEscaped(filter.text.lowercased()) + "%"
            values += [.text(pattern), .text(pattern)]
        }
        // Only sites some report names can have a condition, a priority or a worsening: asked of
        // `reports (site_id)` first rather than of every site.
        if filter.condition != nil || filter.priority != nil || filter.worsenedSince != nil || filter.reportedOnly {
            clauses.append("s.id IN (SELECT r.site_id FROM reports r WHERE r.site_id IS NOT NULL AND \(counted))")
        }
        return (clauses.joined(separator: " AND "), values)
    }

    static func site(_ row: some SQLRowReading) throws -> RegisterSite {
        RegisterSite(
            id: try row.int("id") ?? 0, reference: try row.string("reference"), name: try row.string("name") ?? "",
            designation: try row.string("designation"), grade: try row.string("grade"),
            latitude: try row.double("lat"), longitude: try row.double("lon"), outline: try row.string("outline"),
            source: try row.string("source"))
    }

    static func standing(_ row: some SQLRowReading) throws -> SiteStanding {
        SiteStanding(
            condition: try row.string("cur_condition"), priority: try row.string("cur_priority"),
            approvedAt: try row.double("cur_at"), previousCondition: try row.string("prev_condition"),
            reportCount: Int(try row.int("report_count") ?? 0), lastReportAt: try row.double("last_at"))
    }
}
