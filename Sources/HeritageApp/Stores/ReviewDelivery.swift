import SQLiteStorage

/// What a review decision does to a report's delivery (REV-11), in the decision's own transaction, once
/// for both databases. The rule, as docs/REVIEW.md's table states it:
///
/// - A decision that stops a report (rejected, duplicate) leaves a report the platform cannot have (no
///   create ever attempted) where it is: the worker never takes it up. Any other report, whatever its
///   delivery state, becomes `withdrawing`: the worker creates and completes nothing more of it, and
///   once the undo window has passed removes what the platform has (reconciling a create in doubt).
/// - Taking the stop back (undo, reopen) before the worker has begun the withdrawal returns the report
///   to the delivery state it was in. After that it is refused, with the reason: the platform's copy
///   is gone or going, and a second create would be a second report there.
enum ReviewDelivery {
    /// How long after a stopping decision a withdrawal may begin: the bulk undo's 10 s and a margin.
    static let withdrawalDelaySeconds = 15.0
    static let stopping: Set<ReviewState> = [.rejected, .duplicate]
    /// The delivery states a stopping decision turns into a withdrawal, when the platform may have the
    /// report. Draft, deleting (the reporter's own deletion goes on) and the ended states are left alone.
    static let withdrawable = """
        ('queued', 'creating', 'created', 'uploading', 'stored', 'retry_wait', 'needs_attention',
         'waiting_signin', 'held')
        """

    /// Nil when the decision from `from` to `to` may go ahead; a refusal when it would take back a stop
    /// whose withdrawal has begun or ended.
    static func refusal<C: SQLConnection>(_ db: C, id: Int64, from: ReviewState, to: ReviewState) throws
        -> ReviewOutcome?
    {
        guard stopping.contains(from), !stopping.contains(to) else { return nil }
        guard
            let row = try db.query(
                "SELECT state, withdrawal_started_at FROM reports WHERE id = ?", .integer(id)
            ).first
        else { return nil }
        let state = try row.string("state")
        let started = try row.double("withdrawal_started_at")
        if state == ReportState.withdrawn.rawValue || (state == ReportState.withdrawing.rawValue && started != nil) {
            return .notApplicable(state: ReportState.withdrawn.rawValue)
        }
        return nil
    }

    /// The delivery side of a decision already made: a withdrawal begun, or taken back. Returns the words
    /// the audit row adds ("withdrawal from the platform after 15 s", …), nil when delivery is unchanged.
    static func apply<C: SQLConnection>(_ db: C, id: Int64, from: ReviewState, to: ReviewState, now: Double) throws
        -> String?
    {
        if stopping.contains(to), !stopping.contains(from) {
            let changed = try db.run(
                """
                UPDATE reports SET withdraw_from = state, state = 'withdrawing', withdraw_after = ?,
                    withdrawal_started_at = NULL, next_attempt_at = NULL, updated_at = ?
                WHERE id = ? AND state IN \(withdrawable)
                  AND (platform_report_id IS NOT NULL OR create_attempted_at IS NOT NULL)
                """, .real(now + withdrawalDelaySeconds), .real(now), .integer(id))
            return changed == 1 ? "to be withdrawn from the platform" : nil
        }
        if stopping.contains(from), !stopping.contains(to) {
            let changed = try db.run(
                """
                UPDATE reports SET state = COALESCE(withdraw_from, 'queued'), withdraw_from = NULL,
                    withdraw_after = NULL, next_attempt_at = NULL, updated_at = ?
                WHERE id = ? AND state = 'withdrawing' AND withdrawal_started_at IS NULL
                """, .real(now), .integer(id))
            return changed == 1 ? "withdrawal called off" : nil
        }
        return nil
    }
}
