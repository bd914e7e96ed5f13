import FoundationEssentials
import Platform
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

    func reports(userID: Int64) throws -> [ListedReport] {
        try store.read { db in
            try db.query(
                """
                SELECT r.local_id, r.platform_report_id, r.state, r.name, r.formatted_address, r.creation_time,
                       r.last_error,
                       (SELECT COUNT(*) FROM photos p WHERE p.report_id = r.id) AS photo_count,
                       (SELECT COUNT(*) FROM photos p WHERE p.report_id = r.id AND p.state = 'stored') AS photos_stored
                FROM reports r
                WHERE r.user_id = ? AND r.state NOT IN \(Self.hiddenStates)
                ORDER BY r.creation_time DESC, r.id DESC
                """, .integer(userID)
            ).compactMap { row in
                guard let localID = try row.string("local_id"), let state = try row.string("state") else { return nil }
                return ListedReport(
                    localID: localID, platformReportID: try row.string("platform_report_id"), state: state,
                    name: try row.string("name"), formattedAddress: try row.string("formatted_address"),
                    creationTime: try row.double("creation_time") ?? 0, lastError: try row.string("last_error"),
                    photoCount: Int(try row.int("photo_count") ?? 0), photosStored: Int(try row.int("photos_stored") ?? 0))
            }
        }
    }

    /// LST-05: keeps a local copy of what the platform lists, matched by its report_id. Reports this
    /// server is still sending keep their state (the worker says when they are stored); stored copies the
    /// platform no longer lists were deleted elsewhere and are marked so.
    func merge(_ listed: [PlatformReport], userID: Int64, now: Double) throws {
        try store.write { db in
            for report in listed {
                let changed = try db.run(
                    """
                    UPDATE reports SET name = COALESCE(?, name), formatted_address = COALESCE(?, formatted_address),
                        creation_time = ?, updated_at = ?
                    WHERE platform_report_id = ? AND user_id = ?
                    """, SQLValue(report.name), SQLValue(report.formattedAddress),
                    .real(report.creationTime.timeIntervalSince1970), .real(now), .text(report.reportID),
                    .integer(userID))
                guard changed == 0 else { continue }
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
                "SELECT id, platform_report_id FROM reports WHERE user_id = ? AND state = 'stored'", .integer(userID))
            for row in stored {
                guard let id = try row.int("id"), let platformID = try row.string("platform_report_id"),
                    !ids.contains(platformID)
                else { continue }
                try db.run("UPDATE reports SET state = 'deleted', updated_at = ? WHERE id = ?", .real(now), .integer(id))
            }
        }
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
