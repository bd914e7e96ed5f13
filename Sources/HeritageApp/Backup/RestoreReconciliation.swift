import Basics
import FoundationEssentials
import PostgresStorage
import SQLiteStorage

/// What a restored database must do before it sends anything: the platform may already hold what
/// the backup still has on its way there (delivered after the backup was taken), so every such report
/// and photo goes through the worker's reconciliation first, as after an unanswered call:
/// - a report with no platform id gets `create_attempted_at` (when the report was submitted, a time
///   before any create of it), so the worker lists the user's reports and adopts the one already
///   made before it creates (`ReportUploader.reconcile`);
/// - a photo not yet stored becomes `uploading`, so the worker settles it against the platform's
///   listing of its report before it sends it (`ReportUploader.settleUnansweredPhotos`);
/// - leases and create gates of the process that was running at backup time are dropped.
/// Drafts are left alone. Plain SQL on the restored file: the restore runs with no server.
enum RestoreReconciliation {
    struct Counts {
        var reports = 0
        var photos = 0
    }

    /// States in which nothing more goes to the platform, for an SQL list (`withdrawn`: the review's,
    /// where the schema has it).
    static let finalStates = "'draft', 'cancelled', 'deleted', 'withdrawn'"

    static func apply(to db: Database, now: Double) throws -> Counts {
        try db.transaction { try statements(db, now: now) }
    }

    /// The same on a restored PostgreSQL database, in one transaction.
    static func apply(to db: PostgresConnection, now: Double) throws -> Counts {
        try db.transaction(.serializable) { try statements(db, now: now) }
    }

    /// The changes, in the words both dialects share; the caller holds the transaction.
    private static func statements<C: SQLConnection>(_ db: C, now: Double) throws -> Counts {
        var counts = Counts()
        counts.reports = try db.run(
            """
            UPDATE reports SET create_attempted_at = COALESCE(create_attempted_at, submitted_at, creation_time)
            WHERE platform_report_id IS NULL AND state NOT IN (\(finalStates), 'stored')
            """)
        counts.photos = try db.run(
            """
            UPDATE photos SET state = 'uploading'
            WHERE state = 'pending'
              AND report_id IN (SELECT id FROM reports WHERE state NOT IN (\(finalStates)))
            """)
        _ = try db.run(
            "UPDATE reports SET lease_holder = NULL, lease_until = NULL WHERE lease_holder IS NOT NULL")
        _ = try db.run("DELETE FROM worker_gates")
        // Due at once: the retry delays were the old process's.
        _ = try db.run("UPDATE reports SET next_attempt_at = NULL WHERE state = 'retry_wait'")
        _ = try db.run(
            """
            INSERT INTO instance (key, value) VALUES ('restored_at', ?)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value
            """, .text(ISO8601.utc(seconds: now)))
        return counts
    }

    /// A report the data folder had that the restore takes back: filed (submitted) there, and in the
    /// backup absent or still a draft.
    struct RolledBack {
        let localID: String
        let name: String
        let state: String
        let submittedAt: Double
    }

    static func rolledBack(old: Database, restored: Database) throws -> [RolledBack] {
        var restoredStates: [String: String] = [:]
        for row in try restored.query("SELECT local_id, state FROM reports") {
            restoredStates[try row.string("local_id") ?? ""] = try row.string("state")
        }
        return try old.query(
            """
            SELECT local_id, name, state, submitted_at FROM reports
            WHERE submitted_at IS NOT NULL AND state NOT IN ('draft', 'cancelled', 'deleted')
            ORDER BY submitted_at, id
            """
        ).compactMap { row in
            let localID = try row.string("local_id") ?? ""
            let before = restoredStates[localID]
            guard before == nil || before == "draft" else { return nil }
            return RolledBack(
                localID: localID, name: try row.string("name") ?? "", state: try row.string("state") ?? "",
                submittedAt: try row.double("submitted_at") ?? 0)
        }
    }
}
