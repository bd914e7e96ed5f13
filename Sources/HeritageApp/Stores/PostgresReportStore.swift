import FoundationEssentials
import PlatformClient
import PostgresStorage
import Storage

/// `ReportStore` and `OutboxStore` on PostgreSQL: the `reports` and `photos` tables. The list's side is
/// here, the worker's in `+Outbox` (reads) and `+Transitions`.
final class PostgresReportStore: ReportStore, Sendable {
    let database: PostgresDatabase

    init(database: PostgresDatabase) { self.database = database }

    /// States the list never shows.
    static let hiddenStates = "('draft', 'cancelled', 'deleted', 'deleting')"
    /// States in which the report cannot have reached the platform when it has no platform id yet and
    /// no create was ever attempted ('creating' is missing on purpose: its create may be on the wire; a
    /// report retrying after an unanswered create may exist there too, and goes to the worker).
    static let notYetSentStates = "('queued', 'retry_wait', 'needs_attention', 'waiting_signin', 'held')"

    /// Bumped by the trigger functions of migration 8 (`PostgresAppMigrations.listVersions`).
    func listVersion(userID: Int64) throws -> Int64 {
        try database.readStatement { db in
            try db.query("SELECT version FROM list_versions WHERE user_id = ?", .integer(userID)).first?.int(0) ?? 0
        }
    }

    /// One statement, outside a transaction (one round trip; it sees one snapshot): the rows, and with
    /// a limit the number of rows in all as a column (an uncorrelated subquery, counted once), where two
    /// statements in a transaction took four round trips.
    func page(userID: Int64, limit: Int?) throws -> ReportPage {
        let limitClause = limit == nil ? "" : "LIMIT ?"
        let totalColumn =
            limit == nil
            ? "NULL"
            : "(SELECT COUNT(*) FROM reports t WHERE t.user_id = ? AND t.state NOT IN \(Self.hiddenStates))"
        let parameters: [SQLValue] =
            (limit == nil ? [] : [.integer(userID)]) + [.integer(userID)]
            + (limit.map { [.integer(Int64($0))] } ?? [])
        return try database.readStatement { db -> ReportPage in
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
                WHERE r.user_id = ? AND r.state NOT IN \(Self.hiddenStates)
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

    /// Keeps a local copy of what the platform lists, matched by its report_id. Reports this
    /// server is still sending keep their state (the worker says when they are stored).
    ///
    /// `listingStartedAt` is the moment the `GET har/report` was sent. The listing says nothing about
    /// what changed after that moment, so only rows last changed before it are judged by it:
    /// - a `stored` row it does not list was deleted elsewhere and is marked `deleted`, unless the
    ///   worker stored it (or anything else touched it) after the GET was sent;
    /// - a `deleted` row it lists again is `stored` once more (the platform is the authority on what it
    ///   holds; a delete made here removed it there first, so a listing sent later does not have it).
    ///
    /// A listed report no row claims is not inserted while one of the user's reports in flight could
    /// be it (no platform id yet, a create attempted, same fields, created after the attempt): that is
    /// the worker's own report, whose id the worker records (after reconciling, when the answer was
    /// lost). Each such report holds back at most one listed report, the one reconciliation would
    /// adopt, so a lookalike made elsewhere is still shown.
    func merge(
        _ listed: [PlatformReport], userID: Int64, now: Double, listingStartedAt: Double, clockSlack: Double
    ) throws {
        try database.write { db in
            var unclaimed: [PlatformReport] = []
            for report in listed {
                let changed = try db.run(
                    """
                    UPDATE reports SET name = COALESCE(?, name), formatted_address = COALESCE(?, formatted_address),
                        creation_time = ?, updated_at = ?,
                        state = CASE WHEN state = 'deleted' AND updated_at < ? THEN 'stored' ELSE state END
                    WHERE platform_report_id = ? AND user_id = ?
                    """, SQLValue(report.name), SQLValue(report.formattedAddress),
                    .real(report.creationTime.timeIntervalSince1970), .real(now), .real(listingStartedAt),
                    .text(report.reportID), .integer(userID))
                if changed == 0 { unclaimed.append(report) }
            }
            let heldBack =
                unclaimed.isEmpty
                ? []
                : Reconciliation.heldBack(
                    among: unclaimed, inFlight: try Self.inFlight(db, userID: userID), clockSlack: clockSlack)
            for report in unclaimed where !heldBack.contains(report.reportID) {
                // Another user's row with that id would be a platform bug; the UNIQUE index refuses it.
                try db.run(
                    """
                    INSERT INTO reports (user_id, local_id, platform_report_id, state, name, formatted_address,
                        designation, condition, occupancy, priority_category, owner_type, grade,
                        latitude, longitude, accuracy, altitude, creation_time, updated_at)
                    VALUES (?, ?, ?, 'stored', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT DO NOTHING
                    """, .integer(userID), .text(UUID().uuidString.lowercased()), .text(report.reportID),
                    SQLValue(report.name), SQLValue(report.formattedAddress), SQLValue(report.designation),
                    SQLValue(report.condition), SQLValue(report.occupancy), SQLValue(report.priorityCategory),
                    SQLValue(report.ownerType), SQLValue(report.grade), SQLValue(report.location?.latitude),
                    SQLValue(report.location?.longitude), SQLValue(report.location?.accuracy),
                    SQLValue(report.location?.altitude), .real(report.creationTime.timeIntervalSince1970), .real(now))
            }
            let ids = Set(listed.map(\.reportID))
            let stored = try db.query(
                "SELECT id, platform_report_id FROM reports WHERE user_id = ? AND state = 'stored' AND updated_at < ?",
                .integer(userID), .real(listingStartedAt))
            for row in stored {
                guard let id = try row.int("id"), let platformID = try row.string("platform_report_id"),
                    !ids.contains(platformID)
                else { continue }
                try db.run(
                    "UPDATE reports SET state = 'deleted', updated_at = ? WHERE id = ? AND state = 'stored'",
                    .real(now),
                    .integer(id))
            }
        }
    }

    /// The user's reports with a create attempted and no platform id, in the order of their attempts:
    /// those a listed report may turn out to be.
    private static func inFlight(_ db: PostgresConnection, userID: Int64) throws -> [OutboxReport] {
        try db.query(
            """
            SELECT \(OutboxReport.columns) FROM reports
            WHERE user_id = ? AND platform_report_id IS NULL AND create_attempted_at IS NOT NULL
              AND state NOT IN ('draft', 'cancelled', 'deleted')
            ORDER BY create_attempted_at, id
            """, .integer(userID)
        ).map(OutboxReport.init(row:))
    }

    func planDeletion(localID: String, userID: Int64, now: Double) throws -> (plan: DeletionPlan, photos: [String]) {
        try database.write { db -> (plan: DeletionPlan, photos: [String]) in
            let rows = try db.query(
                "SELECT id, state, platform_report_id FROM reports WHERE local_id = ? AND user_id = ?",
                .text(localID), .integer(userID))
            guard let row = rows.first, let id = try row.int("id"),
                let state = ReportState(rawValue: try row.string("state") ?? "")
            else {
                return (.notFound, [])
            }
            let platformID = try row.string("platform_report_id")
            if state == .stored, let platformID { return (.deleteOnPlatform(reportID: platformID), []) }
            if [.draft, .cancelled, .deleted, .deleting].contains(state) { return (.notFound, []) }
            let cancelled = try db.run(
                """
                UPDATE reports SET state = 'cancelled', updated_at = ?
                WHERE id = ? AND platform_report_id IS NULL AND create_attempted_at IS NULL
                    AND state IN \(Self.notYetSentStates)
                """, .real(now), .integer(id))
            if cancelled == 1 {
                let photos = try db.query("SELECT local_id FROM photos WHERE report_id = ?", .integer(id))
                return (.cancelledLocally, try photos.compactMap { try $0.string("local_id") })
            }
            try db.run("UPDATE reports SET state = 'deleting', updated_at = ? WHERE id = ?", .real(now), .integer(id))
            return (.handedToWorker, [])
        }
    }

    func markDeleted(localID: String, userID: Int64, now: Double) throws -> [String] {
        try database.write { db -> [String] in
            let rows = try db.query(
                "SELECT id FROM reports WHERE local_id = ? AND user_id = ?", .text(localID), .integer(userID))
            guard let id = try rows.first?.int("id") else { return [] }
            try db.run("UPDATE reports SET state = 'deleted', updated_at = ? WHERE id = ?", .real(now), .integer(id))
            return try db.query("SELECT local_id FROM photos WHERE report_id = ?", .integer(id))
                .compactMap { try $0.string("local_id") }
        }
    }
}
