import PostgresStorage
import SQLiteStorage

/// The list's page on PostgreSQL (`ReportStore.page`), tuned for this engine: one statement, one round trip.
extension PostgresDatabase {
    /// One statement, outside a transaction (one round trip; it sees one snapshot): the rows, and with
    /// a limit the number of rows in all as a column (an uncorrelated subquery, counted once), where two
    /// statements in a transaction took four round trips.
    func reportPage(userID: Int64, limit: Int?) throws -> ReportPage {
        let limitClause = limit == nil ? "" : "LIMIT ?"
        let totalColumn =
            limit == nil
            ? "NULL"
            : "(SELECT COUNT(*) FROM reports t WHERE t.user_id = ? AND t.state NOT IN \(ReportSQL.hiddenStates))"
        let parameters: [SQLValue] =
            (limit == nil ? [] : [.integer(userID)]) + [.integer(userID)]
            + (limit.map { [.integer(Int64($0))] } ?? [])
        return try readStatement { db -> ReportPage in
            var total: Int64?
            let rows = try db.query(
                """
                SELECT r.local_id, r.platform_report_id, r.state, r.name, r.formatted_address, r.creation_time,
                       r.last_error,
                       -- Only an uploading row shows its photo counts ("n of m photos sent"): the
                       -- others skip the two lookups (half the query's time on a page of stored reports).
                       CASE WHEN r.state = 'uploading' THEN
                           (SELECT COUNT(*) FROM photos p WHERE p.report_id = r.id) END AS photo_count,
                       CASE WHEN r.state = 'uploading' THEN
                           (SELECT COUNT(*) FROM photos p WHERE p.report_id = r.id AND p.state = 'stored') END
                           AS photos_stored,
                       \(totalColumn) AS total
                FROM reports r
                WHERE r.user_id = ? AND r.state NOT IN \(ReportSQL.hiddenStates)
                ORDER BY r.creation_time DESC, r.id DESC
                \(limitClause)
                """, parameters
            ).compactMap { row -> ListedReport? in
                // Columns by position, in the SELECT's order: by name is a hash lookup each (perf: a
                // tenth of the list page's reads).
                if total == nil { total = try row.int(9) }
                guard let localID = try row.string(0), let stateName = try row.string(2),
                    let state = ReportState(rawValue: stateName)
                else { return nil }
                return ListedReport(
                    localID: localID, platformReportID: try row.string(1), state: state, name: try row.string(3),
                    formattedAddress: try row.string(4), creationTime: try row.double(5) ?? 0,
                    lastError: try row.string(6), photoCount: Int(try row.int(7) ?? 0),
                    photosStored: Int(try row.int(8) ?? 0))
            }
            return ReportPage(rows: rows, total: max(Int(total ?? 0), rows.count))
        }
    }
}
