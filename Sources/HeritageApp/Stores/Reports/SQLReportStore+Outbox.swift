import Basics
import SQLiteStorage

/// The worker's and `har outbox`'s reads of the outbox (`OutboxStore`).
extension SQLReportStore: OutboxStore {
    func report(id: Int64) throws -> OutboxReport? {
        try database.read { db in
            try db.query("SELECT \(OutboxReport.columns) FROM reports WHERE id = ?", .integer(id)).first
                .map(OutboxReport.init(row:))
        }
    }

    func photos(reportID: Int64) throws -> [OutboxPhoto] {
        try database.read { db in
            try db.query(
                "SELECT \(OutboxPhoto.columns) FROM photos WHERE report_id = ? ORDER BY position, id",
                .integer(reportID)
            ).map(OutboxPhoto.init(row:))
        }
    }

    func session(userID: Int64) throws -> OutboxSession? {
        try database.read { db in
            guard
                let row = try db.query(
                    """
                    SELECT platform_session_id, platform_session_expires_at FROM users
                    WHERE id = \(KioskStatements.uploaderSQL("?"))
                    """, .integer(userID)
                ).first,
                let id = try row.string("platform_session_id"), !id.isEmpty
            else { return nil }
            return OutboxSession(sessionID: id, expiresAt: try row.double("platform_session_expires_at"))
        }
    }

    /// Reports the worker should take up now: active ones (retry_wait once due) and deletions, oldest
    /// first, leaving out those already being worked on.
    func dueReports(now: Double, excluding busy: Set<Int64>, limit: Int) throws -> [Int64] {
        guard limit > 0 else { return [] }
        return try database.read { db in
            try db.query(
                """
                SELECT id FROM reports WHERE \(OutboxDue.sql)
                ORDER BY COALESCE(submitted_at, creation_time), id
                LIMIT ?
                """, OutboxDue.values(now: now) + [.integer(Int64(limit + busy.count))]
            ).compactMap { try $0.int("id") }.filter { !busy.contains($0) }.prefix(limit).map { $0 }
        }
    }

    /// The earliest moment a waiting report becomes due, for the worker's timer.
    func nextDueTime() throws -> Double? {
        try database.read { db in
            try db.scalar(
                OutboxDue.nextSQL
            ).double
        }
    }

    /// Users with reports waiting for sign-in, and the session each now has (nil: none or expired).
    func usersWaitingForSignIn(now: Double) throws -> [(userID: Int64, session: OutboxSession?)] {
        try database.read { db in
            try db.query(
                """
                SELECT DISTINCT r.user_id AS id, u.platform_session_id, u.platform_session_expires_at FROM reports r
                LEFT JOIN users u ON u.id = \(KioskStatements.uploaderSQL("r.user_id"))
                WHERE r.state = 'waiting_signin'
                """
            ).map { row in
                let userID = try row.int("id") ?? 0
                guard let id = try row.string("platform_session_id"), !id.isEmpty else { return (userID, nil) }
                let expires = try row.double("platform_session_expires_at")
                if let expires, expires <= now { return (userID, nil) }
                return (userID, OutboxSession(sessionID: id, expiresAt: expires))
            }
        }
    }

    /// Which of these platform report ids some other local report already has. A copy the list's
    /// refresh made of the platform's listing for `userID` (see `platformCopySQL`) does not count: it
    /// may be this very report, listed before its id was recorded, and `recordCreated` absorbs it.
    func claimedReportIDs(among ids: [String], userID: Int64) throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        return try database.read { db in
            Set(
                try db.query(
                    """
                    SELECT platform_report_id FROM reports r WHERE platform_report_id IN (\(marks))
                      AND NOT (user_id IN (?, \(KioskStatements.uploaderSQL("?"))) AND \(Self.platformCopySQL(alias: "r")))
                    """,
                    ids.map(SQLValue.text) + [.integer(userID), .integer(userID)]
                ).compactMap { try $0.string("platform_report_id") })
        }
    }

    /// Platform photo ids already recorded for a report's photos.
    func claimedPhotoIDs(reportID: Int64) throws -> Set<String> {
        try database.read { db in
            Set(
                try db.query(
                    "SELECT platform_photo_id FROM photos WHERE report_id = ? AND platform_photo_id IS NOT NULL",
                    .integer(reportID)
                ).compactMap { try $0.string("platform_photo_id") })
        }
    }

    /// How many reports are in each state (for `/metrics` and `har outbox counts`).
    func countsByState() throws -> [String: Int] {
        try database.read { db in
            var counts: [String: Int] = [:]
            for row in try db.query("SELECT state, count(*) AS n FROM reports GROUP BY state") {
                counts[try row.string("state") ?? "?"] = Int(try row.int("n") ?? 0)
            }
            return counts
        }
    }

    func reportID(localID: String) throws -> Int64? {
        try database.read { db in
            try db.scalar("SELECT id FROM reports WHERE local_id = ?", .text(localID)).int
        }
    }

    func reportIDs(in state: ReportState) throws -> [Int64] {
        try database.read { db in
            try db.query("SELECT id FROM reports WHERE state = ? ORDER BY id", .text(state.rawValue)).compactMap {
                try $0.int("id")
            }
        }
    }

    func listing() throws -> [OutboxListing] {
        try database.read { db in
            try db.query(
                """
                SELECT r.local_id, r.state, r.attempts, r.platform_report_id, r.last_error,
                    (SELECT count(*) FROM photos p WHERE p.report_id = r.id AND p.state = 'stored') AS sent,
                    (SELECT count(*) FROM photos p WHERE p.report_id = r.id) AS total
                FROM reports r WHERE r.state != 'draft' ORDER BY COALESCE(r.submitted_at, r.creation_time), r.id
                """
            ).map { row in
                OutboxListing(
                    localID: try row.string("local_id") ?? "", state: try row.string("state") ?? "",
                    attempts: Int(try row.int("attempts") ?? 0), photosStored: Int(try row.int("sent") ?? 0),
                    photoCount: Int(try row.int("total") ?? 0), platformReportID: try row.string("platform_report_id"),
                    lastError: try row.string("last_error"))
            }
        }
    }

    func removablePhotos(stored: ClosedRange<Double>, ended: ClosedRange<Double>) throws -> [String] {
        try database.read { db in
            let storedRows = try db.query(
                "SELECT local_id FROM photos WHERE state = 'stored' AND stored_at > ? AND stored_at <= ?",
                .real(stored.lowerBound), .real(stored.upperBound))
            let endedRows = try db.query(
                """
                SELECT p.local_id FROM photos p JOIN reports r ON r.id = p.report_id
                WHERE r.state IN ('cancelled', 'deleted') AND r.updated_at > ? AND r.updated_at <= ?
                """, .real(ended.lowerBound), .real(ended.upperBound))
            return try (storedRows + endedRows).compactMap { try $0.string("local_id") }
        }
    }
}
