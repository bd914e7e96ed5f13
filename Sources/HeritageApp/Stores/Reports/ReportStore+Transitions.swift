import Basics
import FoundationEssentials
import SQLiteStorage

/// The report stores whose outbox transitions are the ones below, written once for both dialects
/// (`SQLBackend`).
protocol SQLOutboxTransitions: OutboxStore {
    associatedtype Backend: SQLBackend
    var database: Backend { get }
}

extension SQLReportStore: SQLOutboxTransitions {}

/// The state transitions of the outbox (`OutboxStore`). Each is one write transaction (SQLite:
/// IMMEDIATE, committed with synchronous=FULL; PostgreSQL: SERIALIZABLE, run again on a serialization
/// failure), fenced by the worker's lease when it gives one, and a compare-and-set on the state.
extension SQLOutboxTransitions {
    private static var activeSQL: String { ReportSQL.activeSQL }
    private static func now() -> Double { WallClock.now() }
    private static func fence(_ db: Backend.Connection, _ lease: Lease?, now: Double) throws {
        try SQLOutboxLeases<Backend>.fence(db, lease, now: now)
    }
    /// A platform call's outcome in `delivery_attempts`, in the transition's own transaction (after
    /// its fence), at the step the report was at before the transition.
    private static func attempt(
        _ db: Backend.Connection, reportID: Int64, photoID: Int64? = nil, outcome: DeliveryAttempt.Outcome,
        status: Int? = nil, error: String? = nil, now: Double
    ) throws {
        guard let step = try SQLDeliveryAttempts<Backend>.step(db, reportID: reportID, photoID: photoID) else { return }
        try SQLDeliveryAttempts<Backend>.record(
            db, reportID: reportID, step: step, outcome: outcome, status: status, error: error, now: now)
    }

    /// Before `POST har/report`: creating, with the moment of the first attempt (reconciliation adopts
    /// a platform report created after it).
    func beginCreate(_ id: Int64, lease: Lease?) throws -> Bool {
        let now = Self.now()
        return try database.write { db in
            try Self.fence(db, lease, now: now)
            return try db.run(
                """
                UPDATE reports SET state = 'creating', create_attempted_at = COALESCE(create_attempted_at, ?),
                    next_attempt_at = NULL, updated_at = ?
                WHERE id = ? AND platform_report_id IS NULL AND state IN ('queued', 'creating', 'retry_wait')
                  AND NOT \(Self.stoppedByReviewSQL)
                """, .real(now), .real(now), .integer(id)) == 1
        }
    }

    /// The platform's report id, from a create's answer or adopted by reconciliation. Recorded whatever
    /// the state; the state moves to created only from an active one (a report cancelled meanwhile
    /// was sent after all: it becomes deleting, so that the worker removes it from the platform).
    ///
    /// The list's refresh may have listed the report before this commit and kept a copy of it (a row
    /// of the same user, stored or deleted, that was never submitted here: no create attempted, no
    /// photos). That copy is this report as the platform showed it: it is absorbed in the same
    /// transaction (removed, its address kept here) and the id recorded on this row, so that the
    /// photos go on. Returns false when the id is already another report's, a real one.
    func recordCreated(_ id: Int64, platformReportID: String, lease: Lease?) throws -> Bool {
        let now = Self.now()
        return try database.write { db in
            try Self.fence(db, lease, now: now)
            guard
                let row = try db.query(
                    "SELECT user_id, platform_report_id FROM reports WHERE id = ?", .integer(id)
                ).first,
                let userID = try row.int("user_id")
            else { return false }
            let copy = Self.platformCopySQL(alias: "r")
            // The list's copy may be under the report's user or, for a kiosk's report, under the account
            // it goes up with, whose list shows what that account sent.
            let mine = "(?, \(KioskStatements.uploaderSQL("?")))"
            let claimed =
                try db.scalar(
                    "SELECT count(*) FROM reports r WHERE platform_report_id = ? AND id != ? AND NOT (user_id IN \(mine) AND \(copy))",
                    .text(platformReportID), .integer(id), .integer(userID), .integer(userID)
                ).int ?? 0
            guard claimed == 0 else { return false }
            // Already recorded (this id, or one recorded earlier): nothing to absorb, nothing to change.
            guard try row.string("platform_report_id") == nil else { return true }
            try Self.attempt(db, reportID: id, outcome: .ok, now: now)
            let address = try db.query(
                "SELECT formatted_address FROM reports r WHERE platform_report_id = ? AND id != ? AND user_id IN \(mine) AND \(copy)",
                .text(platformReportID), .integer(id), .integer(userID), .integer(userID)
            ).first?.string("formatted_address")
            // The UNIQUE index wants the copy gone before the id is set here; it holds no photos.
            _ = try db.run(
                """
                DELETE FROM reports WHERE id IN (
                    SELECT r.id FROM reports r WHERE platform_report_id = ? AND id != ? AND user_id IN \(mine) AND \(copy))
                """,
                .text(platformReportID), .integer(id), .integer(userID), .integer(userID))
            _ = try db.run(
                """
                UPDATE reports SET platform_report_id = ?, attempts = 0, last_error = NULL, next_attempt_at = NULL,
                    formatted_address = COALESCE(formatted_address, ?),
                    state = CASE WHEN state IN (\(Self.activeSQL)) THEN 'created'
                                 WHEN state = 'cancelled' THEN 'deleting' ELSE state END,
                    updated_at = ?
                WHERE id = ? AND platform_report_id IS NULL
                """, .text(platformReportID), SQLValue(address), .real(now), .integer(id))
            return true
        }
    }

    /// A row the list's refresh made from the platform's listing, not a report submitted here: stored
    /// or deleted, never submitted, no create attempted, no photos of its own. Only such a row may be
    /// absorbed by the worker's report when it turns out to be that report. `alias` names `reports`.
    static func platformCopySQL(alias: String) -> String {
        """
        (\(alias).state IN ('stored', 'deleted') AND \(alias).create_attempted_at IS NULL \
        AND \(alias).submitted_at IS NULL \
        AND NOT EXISTS (SELECT 1 FROM photos p WHERE p.report_id = \(alias).id))
        """
    }

    /// Before a photo's upload: the report uploading and the photo uploading, in one commit.
    func beginPhoto(_ photoID: Int64, reportID: Int64, lease: Lease?) throws -> Bool {
        let now = Self.now()
        return try database.write { db in
            try Self.fence(db, lease, now: now)
            let changed = try db.run(
                """
                UPDATE reports SET state = 'uploading', next_attempt_at = NULL, updated_at = ?
                WHERE id = ? AND platform_report_id IS NOT NULL
                  AND state IN ('created', 'uploading', 'queued', 'retry_wait')
                """, .real(now), .integer(reportID))
            guard changed == 1 else { return false }
            _ = try db.run(
                "UPDATE photos SET state = 'uploading' WHERE id = ? AND state != 'stored'", .integer(photoID))
            return true
        }
    }

    /// A photo the platform holds (from an upload's answer, or found in the listing by its SHA-256 or
    /// by the number of photos; then the listing may give no photo id). The report becomes stored
    /// when it was the last one, if the report is still active.
    func recordPhotoStored(_ photoID: Int64, reportID: Int64, platformPhotoID: String?, lease: Lease?) throws {
        let now = Self.now()
        try database.write { db in
            try Self.fence(db, lease, now: now)
            let newlyStored = try db.run(
                """
                UPDATE photos SET state = 'stored', platform_photo_id = ?, stored_at = ?
                WHERE id = ? AND state != 'stored'
                """, SQLValue(platformPhotoID), .real(now), .integer(photoID))
            if newlyStored == 1 { try Self.attempt(db, reportID: reportID, photoID: photoID, outcome: .ok, now: now) }
            _ = try db.run(
                "UPDATE reports SET attempts = 0, last_error = NULL, updated_at = ? WHERE id = ?", .real(now),
                .integer(reportID))
            try Self.storeIfComplete(db, reportID: reportID, now: now)
        }
    }

    /// A photo whose upload surely did not happen (or was not found on the platform): send it again.
    func resetPhoto(_ photoID: Int64, lease: Lease?) throws {
        let now = Self.now()
        try database.write { db in
            try Self.fence(db, lease, now: now)
            _ = try db.run(
                "UPDATE photos SET state = 'pending' WHERE id = ? AND state = 'uploading'", .integer(photoID))
        }
    }

    /// A report with every photo stored (or none at all) becomes stored.
    func storeIfComplete(_ reportID: Int64, lease: Lease?) throws {
        let now = Self.now()
        try database.write { db in
            try Self.fence(db, lease, now: now)
            try Self.storeIfComplete(db, reportID: reportID, now: now)
        }
    }

    private static func storeIfComplete(_ db: Backend.Connection, reportID: Int64, now: Double) throws {
        _ = try db.run(
            """
            UPDATE reports SET state = 'stored', attempts = 0, last_error = NULL, next_attempt_at = NULL,
                updated_at = ?
            WHERE id = ? AND platform_report_id IS NOT NULL AND state IN (\(Self.activeSQL))
              AND NOT EXISTS (SELECT 1 FROM photos WHERE report_id = ? AND state != 'stored')
            """, .real(now), .integer(reportID), .integer(reportID))
    }

    /// A retryable failure: retry_wait until `nextAttemptAt` (a deletion stays deleting, with the time).
    func recordRetry(_ id: Int64, error: String, nextAttemptAt: Double, status: Int?, lease: Lease?) throws {
        let now = Self.now()
        try database.write { db in
            try Self.fence(db, lease, now: now)
            try Self.attempt(db, reportID: id, outcome: .retry, status: status, error: error, now: now)
            _ = try db.run(
                """
                UPDATE reports SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?, updated_at = ?,
                    state = CASE WHEN state IN ('deleting', 'withdrawing') THEN state ELSE 'retry_wait' END
                WHERE id = ? AND state IN (\(Self.activeSQL), 'deleting', 'withdrawing')
                """, .text(error), .real(nextAttemptAt), .real(now), .integer(id))
        }
    }

    /// A refusal a retry cannot fix: needs attention, with the platform's message.
    func recordNeedsAttention(_ id: Int64, message: String, status: Int?, lease: Lease?) throws {
        try setState(
            id, to: .needsAttention, from: Self.activeSQL + ", 'deleting'", error: message,
            attempt: (.failed, status), lease: lease)
    }

    /// The user's platform session expired: waiting for sign-in.
    func recordWaitingForSignIn(_ id: Int64, refusedCall: Bool, lease: Lease?) throws {
        try setState(
            id, to: .waitingSignIn, from: Self.activeSQL, error: "platform session expired",
            attempt: refusedCall ? (.failed, 401) : nil, lease: lease)
    }

    private static var stoppedByReviewSQL: String { ReportSQL.stoppedByReviewSQL }

    /// Before the withdrawal's first call: only once the undo window has passed, and from then on no
    /// undo or reopen can take the report back (`ReviewStore.decide` checks `withdrawal_started_at`).
    func beginWithdrawal(_ id: Int64, lease: Lease?) throws -> Bool {
        let now = Self.now()
        return try database.write { db in
            try Self.fence(db, lease, now: now)
            return try db.run(
                """
                UPDATE reports SET withdrawal_started_at = COALESCE(withdrawal_started_at, ?), updated_at = ?
                WHERE id = ? AND state = 'withdrawing' AND COALESCE(withdraw_after, 0) <= ?
                """, .real(now), .real(now), .integer(id), .real(now)) == 1
        }
    }

    /// A withdrawal finished: the platform has nothing of the report (removed now, or never created).
    func finishWithdrawal(_ id: Int64, lease: Lease?) throws {
        try setState(id, to: .withdrawn, from: "'withdrawing'", error: nil, lease: lease)
    }

    /// A deletion finished: `deleted` when the platform had it, `cancelled` when it never did.
    func finishDeletion(_ id: Int64, wasOnPlatform: Bool, lease: Lease?) throws {
        try setState(
            id, to: wasOnPlatform ? .deleted : .cancelled, from: "'deleting', 'cancelled'", error: nil, lease: lease)
    }

    /// The one "back to work" change of state, for one report (`resume`) or for all of a user's waiting
    /// for sign-in (`resumeWaitingForSignIn`). A deletion the platform refused (needs attention since
    /// its last call, whose step was `delete`) goes back to deleting: never to an upload of a report its
    /// user deleted.
    private static var resumed: String {
        """
        state = CASE \
        WHEN (SELECT a.step FROM delivery_attempts a WHERE a.report_id = reports.id ORDER BY a.id DESC LIMIT 1) \
        = 'delete' THEN 'deleting' \
        WHEN platform_report_id IS NULL THEN 'queued' ELSE 'uploading' END, \
        attempts = 0, next_attempt_at = NULL
        """
    }

    /// Back to work: the state the worker resumes from, derived from what is known (a report the
    /// platform has goes on with its photos; one that may have been created is reconciled first).
    /// Used after a sign-in, by `har outbox retry` and `release`.
    @discardableResult
    func resume(_ id: Int64, from states: [ReportState]) throws -> Bool {
        let now = Self.now()
        let from = states.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return try database.write { db in
            try db.run(
                """
                UPDATE reports SET \(Self.resumed), updated_at = ?
                WHERE id = ? AND state IN (\(from))
                """, .real(now), .integer(id)) == 1
        }
    }

    func hold(_ id: Int64) throws -> Bool {
        let now = Self.now()
        return try database.write { db in
            try db.run(
                """
                UPDATE reports SET state = 'held', next_attempt_at = NULL, updated_at = ?
                WHERE id = ? AND state IN (\(Self.activeSQL), 'needs_attention', 'waiting_signin')
                """, .real(now), .integer(id)) == 1
        }
    }

    func coordinatorDeliveryAction(_ action: String, id: Int64, from: [ReportState], actor: String, now: Double)
        throws -> (before: String, after: String)?
    {
        let from = from.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return try database.write { db -> (before: String, after: String)? in
            guard let before = try db.scalar("SELECT state FROM reports WHERE id = ?", .integer(id)).string else {
                return nil
            }
            let change =
                action == "hold"
                ? "state = 'held', next_attempt_at = NULL"
                : Self.resumed
            guard
                try db.run(
                    "UPDATE reports SET \(change), updated_at = ? WHERE id = ? AND state IN (\(from))", .real(now),
                    .integer(id)) == 1,
                let after = try db.scalar("SELECT state FROM reports WHERE id = ?", .integer(id)).string
            else { return nil }
            _ = try db.run(
                """
                INSERT INTO review_audit (at, actor, action, report_id, subject, before, after, detail)
                VALUES (?, ?, ?, ?, NULL, ?, ?, NULL)
                """, .real(now), .text(actor), .text(action), .integer(id), .text(before), .text(after))
            return (before, after)
        }
    }

    /// A user signed in again: every report of theirs waiting for it goes back to work.
    func resumeWaitingForSignIn(userID: Int64) throws -> Int {
        let now = Self.now()
        return try database.write { db in
            try db.run(
                """
                UPDATE reports SET \(Self.resumed), last_error = NULL, updated_at = ?
                WHERE user_id = ? AND state = 'waiting_signin'
                """, .real(now), .integer(userID))
        }
    }

    private func setState(
        _ id: Int64, to state: ReportState, from: String, error: String?,
        attempt: (outcome: DeliveryAttempt.Outcome, status: Int?)? = nil, lease: Lease?
    ) throws {
        let now = Self.now()
        try database.write { db in
            try Self.fence(db, lease, now: now)
            if let attempt {
                try Self.attempt(
                    db, reportID: id, outcome: attempt.outcome, status: attempt.status, error: error, now: now)
            }
            _ = try db.run(
                """
                UPDATE reports SET state = ?, last_error = ?, next_attempt_at = NULL, updated_at = ?
                WHERE id = ? AND state IN (\(from))
                """, .text(state.rawValue), SQLValue(error), .real(now), .integer(id))
        }
    }
}
