import SQLiteStorage

/// The list's page on SQLite (`ReportStore.page`), tuned for this engine: the rows read by position
/// straight from the statement, and the count asked of the listed-only index only when a page is full.
extension SQLiteDatabase {
    /// The listed states as four comparisons (`ReportSQL.listed`), and the rows read from the statement.
    func reportPage(userID: Int64, limit: Int?) throws -> ReportPage {
        let parameters: [SQLValue] = [.integer(userID)] + (limit.map { [.integer(Int64($0))] } ?? [])
        return try read { db -> ReportPage in
            // Appended as read: a `[ListedReport?]` then `compactMap` copied every row into a second
            // array (callgrind). Read from the statement itself: no `Row` (an array of values per row).
            var rows: [ListedReport] = []
            rows.reserveCapacity(min(limit ?? 0, 256))
            _ = try db.query(limit == nil ? Self.everyRowSQL : Self.pageSQL, parameters) { row in
                if let report = try ReportSQL.listedReport(row) { rows.append(report) }
            }
            // Fewer rows than asked for is every row: no second query.
            guard let limit, rows.count >= limit else { return ReportPage(rows: rows, total: rows.count) }
            let total =
                try db.query(
                    Self.countSQL, [.integer(userID)]
                ) { row in try row.int(0) }.first.flatMap { $0 } ?? 0
            return ReportPage(rows: rows, total: max(Int(total), rows.count))
        }
    }

    /// The page's statements, built once: interpolated on every request, their text was made anew
    /// and hashed twice by the prepared-statement cache (about 20 k instructions of the list page,
    /// docs/BENCHMARKS.md). No LIMIT at all for every row (`LIMIT -1` is SQLite's own spelling of none).
    private static let pageSQL = rowsSQL + "\nLIMIT ?"
    private static let everyRowSQL = rowsSQL
    private static let rowsSQL = """
        SELECT \(ReportSQL.pageColumns)
        FROM reports r
        WHERE r.user_id = ? AND \(ReportSQL.listed("r.state"))
        ORDER BY r.creation_time DESC, r.id DESC
        """
    // The planner takes the narrower `reports_user_time` and then tests four states per row; the
    // listed-only index (migration 15) needs no test: 0.4 M -> 0.15 M instructions for 200 reports
    // (bench/instructions.sh).
    private static let countSQL = """
        SELECT COUNT(*) AS n FROM reports INDEXED BY reports_listed
        WHERE user_id = ? AND \(ReportSQL.listed("state"))
        """
}
