import SQLiteStorage

/// The SQL of `SQLSiteReviewStore` that both engines share: a site's columns, its standing as
/// correlated subqueries on `reports (site_id)` (the register pages 50 sites at a time, so each
/// subquery runs for the page, not for 400,000 sites), and the register filter's WHERE clause.
enum SiteReviewSQL {
    /// A report that counts for a site: reviewable and not in the trash.
    static let counted = "\(ReviewSQL.reviewable) AND r.discarded_at IS NULL"
    static let approved = "\(counted) AND r.review_state = 'approved'"

    static let siteColumns = "s.id, s.reference, s.name, s.designation, s.grade, s.lat, s.lon, s.outline, s.source"

    /// The standing's columns of site `s`, each by its name.
    static let standing: [(name: String, sql: String)] = [
        ("cur_condition", latest("r.condition")), ("cur_priority", latest("r.priority_category")),
        ("cur_at", latest("r.submitted_at")), ("prev_condition", latest("r.condition", offset: 1)),
        ("report_count", "(SELECT count(*) FROM reports r WHERE r.site_id = s.id AND \(counted))"),
        // The newest counted report by `reports_site_time`, not max() over all of the site's reports.
        (
            "last_at",
            "(SELECT r.submitted_at FROM reports r WHERE r.site_id = s.id AND \(counted) "
                + "ORDER BY r.submitted_at DESC, r.id DESC LIMIT 1)"
        ),
    ]

    static let standingColumns = standing.map { "\($0.sql) AS \($0.name)" }.joined(separator: ",\n")

    /// Only the standing's columns that the filter's WHERE clause reads: the count reads no others.
    static func standingColumns(for filter: SiteRegisterFilter) -> String {
        var names: Set<String> = []
        if filter.condition != nil { names.insert("cur_condition") }
        if filter.priority != nil { names.insert("cur_priority") }
        if filter.worsenedSince != nil { names.formUnion(["cur_at", "cur_condition", "prev_condition"]) }
        if filter.notReportedSince != nil { names.insert("last_at") }
        if filter.reportedOnly { names.insert("report_count") }
        return standing.filter { names.contains($0.name) }.map { ", \($0.sql) AS \($0.name)" }.joined()
    }

    /// The latest approved report's column (or the one `offset` before it), by `reports_site_time`.
    private static func latest(_ column: String, offset: Int = 0) -> String {
        "(SELECT \(column) FROM reports r WHERE r.site_id = s.id AND \(approved) "
            + "ORDER BY r.submitted_at DESC, r.id DESC LIMIT 1\(offset > 0 ? " OFFSET \(offset)" : ""))"
    }

    /// One page of the register in name order after `cursor`: the sites walked by `sites_name`
    /// (migration 26) in order, so the page stops at its last match instead of sorting the register.
    static func registerPage(_ filter: SiteRegisterFilter, after cursor: SiteCursor?, limit: Int)
        -> (String, [SQLValue])
    {
        var (siteClause, values) = self.siteClause(filter)
        if let cursor {
            siteClause += " AND (s.name > ? OR (s.name = ? AND s.id > ?))"
            values += [.text(cursor.name), .text(cursor.name), .integer(cursor.id)]
        }
        let (clause, more) = whereClause(filter)
        values += more
        values.append(.integer(Int64(max(0, limit))))
        return (
            """
            SELECT x.* FROM (SELECT \(siteColumns), \(standingColumns) FROM sites s
                WHERE \(siteClause)) AS x
            WHERE \(clause) ORDER BY x.name, x.id LIMIT ?
            """, values
        )
    }

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
