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
                SELECT \(ReportSQL.pageColumns),
                       \(totalColumn) AS total
                FROM reports r
                WHERE r.user_id = ? AND r.state NOT IN \(ReportSQL.hiddenStates)
                ORDER BY r.creation_time DESC, r.id DESC
                \(limitClause)
                """, parameters
            ).compactMap { row -> ListedReport? in
                if total == nil { total = try row.int(9) }
                return try ReportSQL.listedReport(row)
            }
            return ReportPage(rows: rows, total: max(Int(total ?? 0), rows.count))
        }
    }
}
