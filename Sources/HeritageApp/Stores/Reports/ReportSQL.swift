import SQLiteStorage

/// The reports' SQL that the stores, the worker's queries and the list share, once for both databases.
enum ReportSQL {
    /// States the list never shows.
    static let hiddenStates = "('draft', 'cancelled', 'deleted', 'deleting')"
    /// States in which the report cannot have reached the platform when it has no platform id yet and
    /// no create was ever attempted ('creating' is missing on purpose: its create may be on the wire; a
    /// report retrying after an unanswered create may exist there too, and goes to the worker).
    static let notYetSentStates = "('queued', 'retry_wait', 'needs_attention', 'waiting_signin', 'held')"

    /// `column NOT IN hiddenStates` as four comparisons: SQLite evaluates a NOT IN list through an
    /// ephemeral index, one seek per row (about 500 instructions a row, a twentieth of the list page's
    /// instructions with 200 reports; bench/instructions.sh).
    static func listed(_ column: String) -> String {
        "\(column) != 'draft' AND \(column) != 'cancelled' AND \(column) != 'deleted' AND \(column) != 'deleting'"
    }

    /// SQL list of the active states, for `state IN (…)`.
    static let activeSQL = ReportState.active.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    /// The review stops the report (rejected, duplicate) or keeps it out of the queue (the trash): the
    /// worker neither creates it nor sends its photos. `reports` unaliased.
    static let stoppedByReviewSQL = "(review_state IN ('rejected', 'duplicate') OR discarded_at IS NOT NULL)"

    /// A queued report the review keeps back (REV-03): in the trash, rejected or marked duplicate, or not yet approved
    /// when the policy recorded by `ReviewStore.setPolicy` (default `kiosk`) makes its origin wait. Only
    /// `queued` is held back: a report the worker has begun sending was approved or never had to be.
    static let waitingForReviewSQL = """
        (discarded_at IS NOT NULL OR review_state IN ('rejected', 'duplicate')
         OR (review_state != 'approved'
             AND (SELECT coalesce(max(value), 'kiosk') FROM instance WHERE key = 'review_policy')
                 IN ('all', CASE WHEN origin = 'kiosk' THEN 'kiosk' ELSE 'all' END)))
        """

    /// The list page's columns (`reports r`), read by `listedReport` by position: both engines' pages
    /// (`SQLiteDatabase.reportPage`, `PostgresDatabase.reportPage`) select these first. Only an
    /// uploading row shows its photo counts ("n of m photos sent"): the others skip the two lookups
    /// (half the query's time on a page of stored reports).
    static let pageColumns = """
        r.local_id, r.platform_report_id, r.state, r.name, r.formatted_address, r.creation_time, r.last_error,
        CASE WHEN r.state = 'uploading' THEN (SELECT COUNT(*) FROM photos p WHERE p.report_id = r.id) END
            AS photo_count,
        CASE WHEN r.state = 'uploading' THEN
            (SELECT COUNT(*) FROM photos p WHERE p.report_id = r.id AND p.state = 'stored') END AS photos_stored
        """

    /// A row of `pageColumns`, by position in their order: by name is a hash lookup each (perf: a tenth
    /// of the list page's reads). SQLite reads straight from its statement, PostgreSQL from its row.
    @inline(__always)
    static func listedReport(_ row: some ValueReading) throws -> ListedReport? {
        guard let localID = try row.string(0), let stateName = try row.string(2),
            let state = ReportState.parse(stateName)
        else { return nil }
        return ListedReport(
            localID: localID, platformReportID: try row.string(1), state: state, name: try row.string(3),
            formattedAddress: try row.string(4), creationTime: try row.double(5) ?? 0,
            lastError: try row.string(6), photoCount: Int(try row.int(7) ?? 0),
            photosStored: Int(try row.int(8) ?? 0))
    }
}
