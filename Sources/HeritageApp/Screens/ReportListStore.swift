import FoundationEssentials
import PlatformClient
import Storage

#if canImport(Glibc)
    import Glibc
#endif

/// A row of the report list as the store has it.
struct ListedReport: Sendable, Equatable {
    var localID: String
    var platformReportID: String?
    var state: String
    var name: String?
    var formattedAddress: String?
    var creationTime: Double
    var lastError: String?
    /// The report's photos, and how many the platform has: read for an `uploading` report only (0 otherwise).
    var photoCount: Int
    var photosStored: Int
}

/// What deleting a report needs from the platform, decided from its state (LST-06, LST-07).
enum DeletionPlan: Sendable, Equatable {
    /// Stored on the platform: DELETE har/report/{id} first, then mark it deleted here (LST-06).
    case deleteOnPlatform(reportID: String)
    /// Never reached the platform: cancelled here, no platform call, photo files removed (LST-07).
    case cancelledLocally
    /// Part-way through the transfer: marked `deleting`; the upload worker stops it and deletes what
    /// already exists on the platform (LST-07).
    case handedToWorker
    /// Not this user's, or no longer listed.
    case notFound
}

/// The list's reads and writes of `reports` (and the photo files of a cancelled report).
struct ReportListStore: Sendable {
    let store: DatabasePool
    let photosDirectory: String

    /// States the list never shows.
    static let hiddenStates = "('draft', 'cancelled', 'deleted', 'deleting')"
    /// States in which the report cannot have reached the platform when it has no platform id yet and
    /// no create was ever attempted ('creating' is missing on purpose: its create may be on the wire; a
    /// report retrying after an unanswered create may exist there too, and goes to the worker).
    static let notYetSentStates = "('queued', 'retry_wait', 'needs_attention', 'waiting_signin', 'held')"

    /// All of the user's listed reports, newest first.
    func reports(userID: Int64) throws -> [ListedReport] {
        try page(userID: userID, limit: nil).rows
    }

    /// The newest `limit` of the user's listed reports (all when nil), and how many there are in all,
    /// read in one transaction so that the two agree.
    func page(userID: Int64, limit: Int?) throws -> (rows: [ListedReport], total: Int) {
        try store.read { db -> (rows: [ListedReport], total: Int) in
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
                           AS photos_stored
                FROM reports r
                WHERE r.user_id = ? AND r.state NOT IN \(Self.hiddenStates)
                ORDER BY r.creation_time DESC, r.id DESC
                LIMIT ?
                """, .integer(userID), .integer(Int64(limit ?? -1))
            ).compactMap { row -> ListedReport? in
                // Columns by position, in the SELECT's order: by name is a hash lookup each (perf: a
                // tenth of the list page's reads).
                guard let localID = try row.string(0), let state = try row.string(2) else { return nil }
                return ListedReport(
                    localID: localID, platformReportID: try row.string(1), state: state, name: try row.string(3),
                    formattedAddress: try row.string(4), creationTime: try row.double(5) ?? 0,
                    lastError: try row.string(6), photoCount: Int(try row.int(7) ?? 0),
                    photosStored: Int(try row.int(8) ?? 0))
            }
            // Fewer rows than asked for is every row: no second query.
            guard let limit, rows.count >= limit else { return (rows, rows.count) }
            let total =
                try db.query(
                    "SELECT COUNT(*) AS n FROM reports WHERE user_id = ? AND state NOT IN \(Self.hiddenStates)",
                    .integer(userID)
                ).first?.int("n") ?? 0
            return (rows, max(Int(total), rows.count))
        }
    }

    /// LST-05: keeps a local copy of what the platform lists, matched by its report_id. Reports this
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
        _ listed: [PlatformReport], userID: Int64, now: Double, listingStartedAt: Double,
        clockSlack: Double = WorkerSettings().clockSlackSeconds
    ) throws {
        try store.write { db in
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
            let heldBack = try Self.inFlightMatches(db, userID: userID, among: unclaimed, clockSlack: clockSlack)
            for report in unclaimed where !heldBack.contains(report.reportID) {
                // Another user's row with that id would be a platform bug; the UNIQUE index refuses it.
                try db.run(
                    """
                    INSERT OR IGNORE INTO reports (user_id, local_id, platform_report_id, state, name, formatted_address,
                        designation, condition, occupancy, priority_category, owner_type, grade,
                        latitude, longitude, accuracy, altitude, creation_time, updated_at)
                    VALUES (?, ?, ?, 'stored', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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

    /// The listed reports (among those no row claims) that may be the user's reports in flight: for
    /// each report with a create attempted and no platform id, in the order of their attempts, the
    /// listed report reconciliation would adopt for it (same fields, created after the attempt less
    /// the clock slack, earliest first, one each).
    static func inFlightMatches(
        _ db: Database, userID: Int64, among unclaimed: [PlatformReport], clockSlack: Double
    ) throws -> Set<String> {
        guard !unclaimed.isEmpty else { return [] }
        let inFlight = try db.query(
            """
            SELECT \(OutboxReport.columns) FROM reports
            WHERE user_id = ? AND platform_report_id IS NULL AND create_attempted_at IS NOT NULL
              AND state NOT IN ('draft', 'cancelled', 'deleted')
            ORDER BY create_attempted_at, id
            """, .integer(userID)
        ).map(OutboxReport.init(row:))
        var held: Set<String> = []
        for report in inFlight {
            guard let attemptedAt = report.createAttemptedAt else { continue }
            switch report.newReport() {
            case .success(let body):
                if let match = Reconciliation.match(
                    body, attemptedAt: attemptedAt, slack: clockSlack, in: unclaimed,
                    isClaimed: { held.contains($0) })
                {
                    held.insert(match.reportID)
                }
            case .failure:
                // A body the platform would refuse was never created there.
                continue
            }
        }
        return held
    }

    /// Decides how to delete, and does the local part at once in the same transaction, so the worker
    /// (which changes states with conditional updates too) can never pick up a report being cancelled.
    func planDeletion(localID: String, userID: Int64, now: Double) throws -> DeletionPlan {
        let plan = try store.write { db -> (DeletionPlan, [String]) in
            let rows = try db.query(
                "SELECT id, state, platform_report_id FROM reports WHERE local_id = ? AND user_id = ?",
                .text(localID), .integer(userID))
            guard let row = rows.first, let id = try row.int("id"), let state = try row.string("state") else {
                return (.notFound, [])
            }
            let platformID = try row.string("platform_report_id")
            if state == "stored", let platformID { return (.deleteOnPlatform(reportID: platformID), []) }
            if ["draft", "cancelled", "deleted", "deleting"].contains(state) { return (.notFound, []) }
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
        // Files go after the commit: a crash in between leaves files of a cancelled report, never a
        // live report without its files.
        for photo in plan.1 { removePhotoFiles(photo) }
        return plan.0
    }

    /// LST-09: the platform deleted it (200): gone here too, with its files.
    func markDeleted(localID: String, userID: Int64, now: Double) throws {
        let photos = try store.write { db -> [String] in
            let rows = try db.query(
                "SELECT id FROM reports WHERE local_id = ? AND user_id = ?", .text(localID), .integer(userID))
            guard let id = try rows.first?.int("id") else { return [] }
            try db.run("UPDATE reports SET state = 'deleted', updated_at = ? WHERE id = ?", .real(now), .integer(id))
            return try db.query("SELECT local_id FROM photos WHERE report_id = ?", .integer(id))
                .compactMap { try $0.string("local_id") }
        }
        for photo in photos { removePhotoFiles(photo) }
    }

    private func removePhotoFiles(_ photoLocalID: String) {
        // Photo ids are UUIDs made here; anything else is not a file name we wrote.
        guard !photoLocalID.isEmpty, photoLocalID.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { return }
        unlink(photosDirectory + "/" + photoLocalID)
        unlink(photosDirectory + "/" + photoLocalID + ".thumb.jpg")
    }
}
