import Basics
import Dispatch
import FoundationEssentials
import Storage

/// The worker's side of the store: every read and every state transition of the outbox, as SQL on
/// the application's database. Each transition is one IMMEDIATE transaction committed with
/// synchronous=FULL before the worker makes its next network call, and each is a compare-and-set on
/// the state, so that a change made meanwhile by a screen (deleting) or by `har outbox` (hold) wins
/// and the worker notices it at its next step.
///
/// What the platform answered (a report id, a photo id) is recorded whatever the state has become:
/// it is a fact about the platform, and forgetting it would orphan what the platform holds.
final class OutboxStore: Sendable {
    let pool: DatabasePool
    /// SQLite calls block (a commit waits for fsync): they run on this queue, never on the Swift
    /// concurrency pool (two threads on this machine) nor on an MHD thread.
    private let queue = DispatchQueue(label: "har.worker.store")

    init(pool: DatabasePool) { self.pool = pool }

    /// Runs blocking store work on the store's own queue and suspends the caller meanwhile.
    func run<T: Sendable>(_ work: @escaping @Sendable (OutboxStore) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work(self) }) }
        }
    }

    static func now() -> Double { WallClock.now() }

    // MARK: - Reading

    func report(id: Int64) throws -> OutboxReport? {
        try pool.read { db in
            try db.query("SELECT \(OutboxReport.columns) FROM reports WHERE id = ?", .integer(id)).first
                .map(OutboxReport.init(row:))
        }
    }

    func photos(reportID: Int64) throws -> [OutboxPhoto] {
        try pool.read { db in
            try db.query(
                "SELECT \(OutboxPhoto.columns) FROM photos WHERE report_id = ? ORDER BY position, id",
                .integer(reportID)
            ).map(OutboxPhoto.init(row:))
        }
    }

    func session(userID: Int64) throws -> OutboxSession? {
        try pool.read { db in
            guard
                let row = try db.query(
                    "SELECT platform_session_id, platform_session_expires_at FROM users WHERE id = ?",
                    .integer(userID)
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
        return try pool.read { db in
            try db.query(
                """
                SELECT id FROM reports
                WHERE (state IN ('queued', 'creating', 'created', 'uploading')
                       OR (state IN ('retry_wait', 'deleting') AND COALESCE(next_attempt_at, 0) <= ?))
                ORDER BY COALESCE(submitted_at, creation_time), id
                LIMIT ?
                """, .real(now), .integer(Int64(limit + busy.count))
            ).compactMap { try $0.int("id") }.filter { !busy.contains($0) }.prefix(limit).map { $0 }
        }
    }

    /// The earliest moment a waiting report becomes due, for the worker's timer.
    func nextDueTime() throws -> Double? {
        try pool.read { db in
            try db.scalar(
                "SELECT MIN(next_attempt_at) FROM reports WHERE state IN ('retry_wait', 'deleting')"
            ).double
        }
    }

    /// Users with reports waiting for sign-in, and the session each now has (nil: none or expired).
    func usersWaitingForSignIn(now: Double) throws -> [(userID: Int64, session: OutboxSession?)] {
        try pool.read { db in
            try db.query(
                """
                SELECT DISTINCT u.id, u.platform_session_id, u.platform_session_expires_at FROM reports r
                JOIN users u ON u.id = r.user_id WHERE r.state = 'waiting_signin'
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
        return try pool.read { db in
            Set(
                try db.query(
                    """
                    SELECT platform_report_id FROM reports r WHERE platform_report_id IN (\(marks))
                      AND NOT (user_id = ? AND \(Self.platformCopySQL(alias: "r")))
                    """,
                    ids.map(SQLValue.text) + [.integer(userID)]
                ).compactMap { try $0.string("platform_report_id") })
        }
    }

    /// Platform photo ids already recorded for a report's photos.
    func claimedPhotoIDs(reportID: Int64) throws -> Set<String> {
        try pool.read { db in
            Set(
                try db.query(
                    "SELECT platform_photo_id FROM photos WHERE report_id = ? AND platform_photo_id IS NOT NULL",
                    .integer(reportID)
                ).compactMap { try $0.string("platform_photo_id") })
        }
    }

    /// How many reports are in each state (for `/metrics` and `har outbox counts`).
    func countsByState() throws -> [String: Int] {
        try pool.read { db in
            var counts: [String: Int] = [:]
            for row in try db.query("SELECT state, count(*) AS n FROM reports GROUP BY state") {
                counts[try row.string("state") ?? "?"] = Int(try row.int("n") ?? 0)
            }
            return counts
        }
    }
}
