import SQLiteStorage

/// What a review decision does to a report's delivery (REV-11), in the decision's own transaction, once
/// for both databases: the SQL of `ReviewDeliveryRule`, which holds the rule and docs/REVIEW.md's table.
enum ReviewDelivery {
    /// The delivery states a stopping decision turns into a withdrawal (`ReviewDeliveryRule.withdrawable`).
    static let withdrawable =
        "(" + ReviewDeliveryRule.withdrawable.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"

    /// Nil when the decision from `from` to `to` may go ahead; a refusal when it would take back a stop
    /// whose withdrawal has begun or ended.
    static func refusal<C: SQLConnection>(_ db: C, id: Int64, from: ReviewState, to: ReviewState) throws
        -> ReviewOutcome?
    {
        guard ReviewDeliveryRule.takesBack(from: from, to: to) else { return nil }
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
        if ReviewDeliveryRule.begins(from: from, to: to) {
            let changed = try db.run(
                """
                UPDATE reports SET withdraw_from = state, state = 'withdrawing', withdraw_after = ?,
                    withdrawal_started_at = NULL, next_attempt_at = NULL, updated_at = ?
                WHERE id = ? AND state IN \(withdrawable)
                  AND (platform_report_id IS NOT NULL OR create_attempted_at IS NOT NULL)
                """, .real(now + ReviewDeliveryRule.withdrawalDelaySeconds), .real(now), .integer(id))
            return changed == 1 ? "to be withdrawn from the platform" : nil
        }
        if ReviewDeliveryRule.takesBack(from: from, to: to) {
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
