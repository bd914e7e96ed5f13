import SQLiteStorage

/// The SQL of `SQLSiteReviewStore` that both engines share: a site's columns, its standing as kept on its
/// row (migration 27's columns, kept by triggers on `reports`), and the register filter's WHERE clause,
/// each filter a condition on the site's own row that an index of migrations 26–28 answers.
enum SiteReviewSQL {
    static let siteColumns = "s.id, s.reference, s.name, s.designation, s.grade, s.lat, s.lon, s.outline, s.source"

    /// The standing's columns of site `s` (migration 27).
    static let standingColumns =
        "s.cur_condition, s.cur_priority, s.cur_at, s.prev_condition, s.report_count, s.last_at"

    /// One page of the register in name order after `cursor`: by `sites_name` (migration 26), or by the
    /// standing filter's index in name order (`sites_condition`, `sites_priority`, `sites_worsened`,
    /// `sites_reported`), so the page stops at its last match instead of sorting the register; by the
    /// trigram index for a text, whose few matches are sorted.
    static func registerPage(_ filter: SiteRegisterFilter, after cursor: SiteCursor?, limit: Int, dialect: SQLDialect)
        -> (String, [SQLValue])
    {
        var (clause, values) = whereClause(filter, dialect: dialect)
        if let cursor {
            clause += " AND (s.name > ? OR (s.name = ? AND s.id > ?))"
            values += [.text(cursor.name), .text(cursor.name), .integer(cursor.id)]
        }
        values.append(.integer(Int64(max(0, limit))))
        return (
            """
            SELECT \(siteColumns), \(standingColumns) FROM sites s
            WHERE \(clause) ORDER BY s.name, s.id LIMIT ?
            """, values
        )
    }

    /// How many sites match, counting at most the last value.
    static func registerCount(_ filter: SiteRegisterFilter, atMost: Int, dialect: SQLDialect) -> (String, [SQLValue]) {
        let (clause, values) = whereClause(filter, dialect: dialect)
        return (
            "SELECT count(*) FROM (SELECT 1 FROM sites s WHERE \(clause) LIMIT ?) AS matched",
            values + [.integer(Int64(max(0, atMost)))]
        )
    }

    /// The WHERE clause on site `s` and its values.
    static func whereClause(_ filter: SiteRegisterFilter, dialect: SQLDialect) -> (String, [SQLValue]) {
        var clauses = ["1 = 1"]
        var values: [SQLValue] = []
        if let designation = filter.designation {
            clauses.append("s.designation = ?")
            values.append(.text(designation))
        }
        if let condition = filter.condition {
            clauses.append("s.cur_condition = ?")
            values.append(.text(condition))
        }
        if let priority = filter.priority {
            clauses.append("s.cur_priority = ?")
            values.append(.text(priority))
        }
        if let since = filter.worsenedSince {
            clauses.append("s.worsened_at >= ?")
            values.append(.real(since))
        }
        if let since = filter.notReportedSince {
            clauses.append("(s.last_at IS NULL OR s.last_at < ?)")
            values.append(.real(since))
        }
        // Word for word the predicate of the partial index `sites_reported`.
        if filter.reportedOnly { clauses.append("s.report_count > 0") }
        if !filter.text.isEmpty {
            let (clause, more) = textClause(filter.text, dialect: dialect)
            clauses.append(clause)
            values += more
        }
        return (clauses.joined(separator: " AND "), values)
    }

    /// Part of the name or the reference, any case: the `LIKE` decides on both engines. On SQLite a text
    /// of three characters or more first asks `sites_text` (migration 28: a phrase of the text's trigrams
    /// is the text as a substring), so only the sites it finds are compared; PostgreSQL answers the `LIKE`
    /// itself from its trigram indexes on these two expressions. Under three characters no trigram index
    /// helps: the page walks the register in name order until it has its sites.
    static func textClause(_ text: String, dialect: SQLDialect) -> (String, [SQLValue]) {
        let pattern = SQLValue.text("%" + ReviewSQL.likeEscaped(text.lowercased()) + "%")
        let like = "(lower(s.name) LIKE ? ESCAPE '\\' OR lower(coalesce(s.reference, '')) LIKE ? ESCAPE '\\')"
        guard dialect.hasTrigramTable && text.count >= 3 else { return (like, [pattern, pattern]) }
        return (
            "s.id IN (SELECT rowid FROM sites_text WHERE sites_text MATCH ?) AND \(like)",
            [.text("\"" + text.replacing("\"", with: "\"\"") + "\""), pattern, pattern]
        )
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
