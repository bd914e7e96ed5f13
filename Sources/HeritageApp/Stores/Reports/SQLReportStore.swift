import FoundationEssentials
import PlatformClient
import SQLiteStorage

/// `ReportStore` and `OutboxStore`, once for both databases (`SQLBackend`): the `reports` and `photos`
/// tables. The list's side is here, the worker's in `+Outbox` (reads) and `ReportStore+Transitions`; the
/// list's page, tuned per engine, is the backend's (`SQLBackend.reportPage`).
final class SQLReportStore<Backend: SQLBackend>: ReportStore, Sendable {
    let database: Backend

    init(database: Backend) { self.database = database }

    /// Bumped by the triggers of migration 8 (`Migration08ListVersions`).
    func listVersion(userID: Int64) throws -> Int64 {
        try database.readStatement { db in
            try db.query("SELECT version FROM list_versions WHERE user_id = ?", .integer(userID)).first?.int(0) ?? 0
        }
    }

    func page(userID: Int64, limit: Int?) throws -> ReportPage {
        try database.reportPage(userID: userID, limit: limit)
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
    private static func inFlight(_ db: Backend.Connection, userID: Int64) throws -> [OutboxReport] {
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
                    AND state IN \(ReportSQL.notYetSentStates)
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
