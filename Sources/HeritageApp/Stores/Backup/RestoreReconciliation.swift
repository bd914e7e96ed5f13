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
/// Drafts are left alone. And nothing the backup remembers lets anyone back in: every web session
/// and every kiosk credential and enrolment link is void (people sign in again, tablets enrol again),
/// the roles and kiosks revoked since the backup's moment (`RevocationJournal`) are revoked again, and
/// the audit log gets a `backup_restore` row naming the backup's moment. Plain SQL on the restored
/// file: the restore runs with no server.
enum RestoreReconciliation {
    struct Counts {
        var reports = 0
        var photos = 0
        var sessions = 0
        var kioskCredentials = 0
        /// The revocations made again, as "role of EMAIL" and "kiosk ID".
        var revokedAgain: [String] = []
    }

    /// Who restores which backup, and what was revoked since it was taken.
    struct Restore {
        let actor: String
        /// The manifest's `created_at`.
        let backupTakenAt: String
        let revocations: [RevocationJournal.Entry]
    }

    /// States in which nothing more goes to the platform, for an SQL list (`withdrawn`: the review's,
    /// where the schema has it).
    static let finalStates = "'draft', 'cancelled', 'deleted', 'withdrawn'"

    static func apply(to db: Database, now: Double, restore: Restore) throws -> Counts {
        try db.transaction { try statements(db, now: now, restore: restore) }
    }

    /// The same on a restored PostgreSQL database, in one transaction.
    static func apply(to db: PostgresConnection, now: Double, restore: Restore) throws -> Counts {
        try db.transaction(.serializable) { try statements(db, now: now, restore: restore) }
    }

    /// The changes, in the words both dialects share; the caller holds the transaction.
    private static func statements<C: SQLConnection>(_ db: C, now: Double, restore: Restore) throws -> Counts {
        var counts = try revocations(db, now: now, restore: restore)
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

    /// Sessions, kiosk credentials and the revocations since the backup; the audit row of the restore.
    private static func revocations<C: SQLConnection>(_ db: C, now: Double, restore: Restore) throws -> Counts {
        var counts = Counts()
        counts.sessions = try db.run("DELETE FROM web_sessions")
        counts.kioskCredentials = try db.run(
            """
            UPDATE kiosks SET credential_hash = NULL, enrol_token_hash = NULL, enrol_expires_at = NULL
            WHERE credential_hash IS NOT NULL OR enrol_token_hash IS NOT NULL
            """)
        for entry in restore.revocations {
            switch entry.kind {
            case .role:
                let before = try db.scalar(
                    "SELECT role FROM user_roles WHERE lower(email) = lower(?)", .text(entry.subject)
                ).string
                guard let before else { continue }
                _ = try db.run("DELETE FROM user_roles WHERE lower(email) = lower(?)", .text(entry.subject))
                try audit(
                    db, at: now, actor: entry.actor, action: "role_revoke", subject: entry.subject, before: before,
                    after: "volunteer")
                counts.revokedAgain.append("role of \(entry.subject)")
            case .kiosk:
                guard let id = Int64(entry.subject),
                    try db.run(
                        "UPDATE kiosks SET revoked_at = ?, revoked_by = ? WHERE id = ? AND revoked_at IS NULL",
                        .real(entry.at), .text(entry.actor), .integer(id)) > 0
                else { continue }
                try audit(db, at: now, actor: entry.actor, action: "kiosk_revoke", subject: "kiosk:\(id)")
                counts.revokedAgain.append("kiosk \(id)")
            }
        }
        try audit(
            db, at: now, actor: restore.actor, action: "backup_restore", subject: restore.backupTakenAt,
            detail: "sessions and kiosk credentials void; revoked again: \(counts.revokedAgain.count)")
        return counts
    }

    private static func audit<C: SQLConnection>(
        _ db: C, at: Double, actor: String, action: String, subject: String, before: String? = nil,
        after: String? = nil, detail: String? = nil
    ) throws {
        _ = try db.run(
            "INSERT INTO review_audit (at, actor, action, subject, before, after, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
            .real(at), .text(actor), .text(action), .text(subject), SQLValue(before), SQLValue(after),
            SQLValue(detail))
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
