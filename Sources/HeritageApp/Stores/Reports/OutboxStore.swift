import SQLiteStorage

/// The reports' aggregate as the upload worker and `har outbox` see it: every read of the outbox and
/// every state transition, one per state change. Each transition is atomic and durable before it
/// returns, and each is a compare-and-set on the state: it returns false (or changes nothing) when the
/// report was changed meanwhile (deleted by the list, held by `har outbox`), and the caller re-reads.
///
/// What the platform answered (a report id, a photo id) is recorded whatever the state has become: it
/// is a fact about the platform, and forgetting it would orphan what the platform holds.
protocol OutboxStore: Sendable {
    // MARK: Reading

    func report(id: Int64) throws -> OutboxReport?
    func photos(reportID: Int64) throws -> [OutboxPhoto]
    /// The platform session of the user (nil: none recorded), for the worker's calls.
    func session(userID: Int64) throws -> OutboxSession?
    /// Reports the worker should take up now: active ones (retry_wait once due) and deletions once
    /// due, oldest first, at most `limit`, leaving out `busy`.
    func dueReports(now: Double, excluding busy: Set<Int64>, limit: Int) throws -> [Int64]
    /// The earliest moment a waiting report (retry_wait, deleting) becomes due.
    func nextDueTime() throws -> Double?
    /// Users with reports waiting for sign-in, and the session each now has (nil: none or expired).
    func usersWaitingForSignIn(now: Double) throws -> [(userID: Int64, session: OutboxSession?)]
    /// Which of these platform report ids another local report already has (a copy the list made of
    /// the platform's listing for `userID` does not count: `recordCreated` absorbs it).
    func claimedReportIDs(among ids: [String], userID: Int64) throws -> Set<String>
    /// Platform photo ids already recorded for a report's photos.
    func claimedPhotoIDs(reportID: Int64) throws -> Set<String>
    /// How many reports are in each state, by the state's stored name (`/metrics`, `har outbox counts`).
    func countsByState() throws -> [String: Int]
    /// The row id of the report with that local id.
    func reportID(localID: String) throws -> Int64?
    /// The row ids of every report in `state`, in row order.
    func reportIDs(in state: ReportState) throws -> [Int64]
    /// Every report but drafts, oldest submission first, for `har outbox list`.
    func listing() throws -> [OutboxListing]
    /// Photo ids whose files may go: stored with `stored_at` in `stored` (lower bound excluded), or of a
    /// report cancelled or deleted last changed in `ended` (lower bound excluded).
    func removablePhotos(stored: ClosedRange<Double>, ended: ClosedRange<Double>) throws -> [String]

    // MARK: Transitions

    // The worker's transitions take its lease on the report: each is fenced by it, checked
    // in the same transaction, and throws `LeaseLost` (writing nothing) when another node has taken
    // the report over or the lease lapsed. Without a lease (`har outbox`, tests) they are not fenced.

    /// Before `POST har/report`: creating, with the moment of the first attempt.
    func beginCreate(_ id: Int64, lease: Lease?) throws -> Bool
    /// The platform's report id, from a create's answer or adopted by reconciliation (absorbing the
    /// list's copy of that same report). False when the id is already another report's.
    func recordCreated(_ id: Int64, platformReportID: String, lease: Lease?) throws -> Bool
    /// Before a photo's upload: the report uploading and the photo uploading, in one commit.
    func beginPhoto(_ photoID: Int64, reportID: Int64, lease: Lease?) throws -> Bool
    /// A photo the platform holds; the report becomes stored when it was the last one.
    func recordPhotoStored(_ photoID: Int64, reportID: Int64, platformPhotoID: String?, lease: Lease?) throws
    /// A photo whose upload surely did not happen: pending again.
    func resetPhoto(_ photoID: Int64, lease: Lease?) throws
    /// A report with every photo stored (or none at all) becomes stored.
    func storeIfComplete(_ reportID: Int64, lease: Lease?) throws
    /// A retryable failure: retry_wait until `nextAttemptAt` (a deletion stays deleting, with the time).
    /// `status`: the HTTP status the platform answered, if any. Recorded in `delivery_attempts` too.
    func recordRetry(_ id: Int64, error: String, nextAttemptAt: Double, status: Int?, lease: Lease?) throws
    /// A refusal a retry cannot fix: needs attention, with the message (and in `delivery_attempts`).
    func recordNeedsAttention(_ id: Int64, message: String, status: Int?, lease: Lease?) throws
    /// The user's platform session expired: waiting for sign-in. `refusedCall`: a platform call was
    /// just refused for it (recorded in `delivery_attempts`), rather than the session known expired.
    func recordWaitingForSignIn(_ id: Int64, refusedCall: Bool, lease: Lease?) throws
    /// A deletion finished: `deleted` when the platform had it, `cancelled` when it never did.
    func finishDeletion(_ id: Int64, wasOnPlatform: Bool, lease: Lease?) throws
    /// Before a withdrawal's first call (the review stopped a report the platform has or may have):
    /// false while the undo window runs, or when the report is no longer withdrawing (an undo took it
    /// back). From here on the decision cannot be undone.
    func beginWithdrawal(_ id: Int64, lease: Lease?) throws -> Bool
    /// A withdrawal finished: nothing of the report is on the platform.
    func finishWithdrawal(_ id: Int64, lease: Lease?) throws
    /// Back to work from one of `states` (after a sign-in, `har outbox retry` and `release`).
    @discardableResult
    func resume(_ id: Int64, from states: [ReportState]) throws -> Bool
    /// Every report of the user waiting for sign-in goes back to work; returns how many.
    func resumeWaitingForSignIn(userID: Int64) throws -> Int
    /// `har outbox hold`: a report the worker would still send is held; one in flight stops at the
    /// worker's next step. False when it is in no such state.
    func hold(_ id: Int64) throws -> Bool
    /// A coordinator's retry, hold or release (`resume` from `from`, or `hold`) and its audit row, in one
    /// transaction: the delivery states before and after, nil when the report was in no such state.
    func coordinatorDeliveryAction(_ action: String, id: Int64, from: [ReportState], actor: String, now: Double)
        throws -> (before: String, after: String)?
}

/// The transitions without a lease, as `har outbox` and the tests make them.
extension OutboxStore {
    func beginCreate(_ id: Int64) throws -> Bool { try beginCreate(id, lease: nil) }
    func recordCreated(_ id: Int64, platformReportID: String) throws -> Bool {
        try recordCreated(id, platformReportID: platformReportID, lease: nil)
    }
    func beginPhoto(_ photoID: Int64, reportID: Int64) throws -> Bool {
        try beginPhoto(photoID, reportID: reportID, lease: nil)
    }
    func recordPhotoStored(_ photoID: Int64, reportID: Int64, platformPhotoID: String?) throws {
        try recordPhotoStored(photoID, reportID: reportID, platformPhotoID: platformPhotoID, lease: nil)
    }
    func resetPhoto(_ photoID: Int64) throws { try resetPhoto(photoID, lease: nil) }
    func storeIfComplete(_ reportID: Int64) throws { try storeIfComplete(reportID, lease: nil) }
    func recordRetry(_ id: Int64, error: String, nextAttemptAt: Double) throws {
        try recordRetry(id, error: error, nextAttemptAt: nextAttemptAt, status: nil, lease: nil)
    }
    func recordRetry(_ id: Int64, error: String, nextAttemptAt: Double, lease: Lease?) throws {
        try recordRetry(id, error: error, nextAttemptAt: nextAttemptAt, status: nil, lease: lease)
    }
    func recordNeedsAttention(_ id: Int64, message: String) throws {
        try recordNeedsAttention(id, message: message, status: nil, lease: nil)
    }
    func recordNeedsAttention(_ id: Int64, message: String, lease: Lease?) throws {
        try recordNeedsAttention(id, message: message, status: nil, lease: lease)
    }
    func recordWaitingForSignIn(_ id: Int64) throws { try recordWaitingForSignIn(id, refusedCall: false, lease: nil) }
    func recordWaitingForSignIn(_ id: Int64, lease: Lease?) throws {
        try recordWaitingForSignIn(id, refusedCall: false, lease: lease)
    }
    func finishDeletion(_ id: Int64, wasOnPlatform: Bool) throws {
        try finishDeletion(id, wasOnPlatform: wasOnPlatform, lease: nil)
    }
}

/// A line of `har outbox list`.
struct OutboxListing: Sendable, Equatable {
    var localID: String
    var state: String
    var attempts: Int
    var photosStored: Int
    var photoCount: Int
    var platformReportID: String?
    var lastError: String?
}

/// What the worker takes up, as one condition on `reports` (unaliased) for both dialects: the
/// `OutboxStore.dueReports` of one node and the lease claims of several (`SQLOutboxLeases`).
enum OutboxDue {
    /// Active reports (retry_wait once due) the review lets go, deletions once due, and withdrawals once
    /// the decision's undo window and any retry delay have passed. A queued report the review keeps back
    /// (`ReportSQL.waitingForReviewSQL`) waits; one the review stopped is never created nor
    /// completed, whatever its delivery state: it is withdrawn instead (docs/REVIEW.md's table).
    static let sql = """
        (((state IN ('queued', 'creating', 'created', 'uploading')
           OR (state IN ('retry_wait', 'deleting') AND COALESCE(next_attempt_at, 0) <= ?))
          AND NOT (state = 'queued' AND \(ReportSQL.waitingForReviewSQL))
          AND NOT (state != 'deleting' AND \(ReportSQL.stoppedByReviewSQL)))
         OR (state = 'withdrawing' AND COALESCE(withdraw_after, 0) <= ? AND COALESCE(next_attempt_at, 0) <= ?))
        """

    /// The values of `sql`'s three placeholders.
    static func values(now: Double) -> [SQLValue] { [.real(now), .real(now), .real(now)] }

    /// The earliest moment a waiting report (retry_wait, deleting, withdrawing) becomes due.
    static let nextSQL = """
        SELECT MIN(CASE WHEN state = 'withdrawing' AND COALESCE(withdraw_after, 0) > COALESCE(next_attempt_at, 0)
                        THEN withdraw_after ELSE next_attempt_at END)
        FROM reports WHERE state IN ('retry_wait', 'deleting', 'withdrawing')
        """
}
