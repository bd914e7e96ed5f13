/// Every action a coordinator takes on one report (REV-07), with what belongs to it. The raw value is
/// the word the forms post and the audit log stores (REV-08): the same strings as ever, so no row
/// changes. Screens, bulk, triage, undo and the store ask this type, never a list of their own.
enum ReviewAction: String, Sendable, CaseIterable {
    case approve, reject
    case needsInfo = "needs_info"
    case duplicate, reopen, claim
    case releaseClaim = "release_claim"
    case retry, hold, release, discard, restore
    /// Takes back a decision (`ReviewActions.undo`), audited under this name.
    case undo

    /// How long a decision may be taken back (the triage page's and the bulk results' Undo), judged on
    /// the audit log's clock. A withdrawal waits longer (`ReviewDeliveryRule.withdrawalDelaySeconds`).
    static let undoWindowSeconds = 10.0

    /// The review states a decision moves a report from, and the one it moves it to; nil for an action
    /// that is no decision (claims, delivery, trash, undo, whose states come from the audit row).
    var review: (from: [ReviewState], to: ReviewState)? {
        switch self {
        case .approve: ([.received, .needsInfo], .approved)
        case .reject: ([.received, .needsInfo], .rejected)
        case .needsInfo: ([.received], .needsInfo)
        case .duplicate: ([.received, .needsInfo], .duplicate)
        case .reopen: ([.approved, .rejected, .duplicate, .needsInfo], .received)
        case .claim, .releaseClaim, .retry, .hold, .release, .discard, .restore, .undo: nil
        }
    }

    /// The review's decisions: each one a compare-and-set of the review state, and each one an undo
    /// can take back within `undoWindowSeconds`.
    static let decisions = allCases.filter { $0.review != nil }

    /// Undo takes these back (a bulk's results, a triage page).
    var isUndoable: Bool { review != nil }

    /// The decisions made on a report waiting for one: triage moves on to the next waiting report
    /// after each, and its address may offer to undo them.
    static let triageDecisions = decisions.filter { $0.review?.from.contains(.received) == true }

    /// The delivery states a coordinator's delivery action takes a report from (the transitions of
    /// `har outbox`); nil for the other actions. Retry and release send it back to work, hold stops it.
    var delivery: [ReportState]? {
        switch self {
        case .retry: [.needsAttention, .retryWait, .waitingSignIn]
        case .hold: ReportState.active + [.needsAttention, .waitingSignIn]
        case .release: [.held]
        default: nil
        }
    }

    /// Done, it may give the upload worker something to do at once: a report due now (approved,
    /// reopened, restored, retried, released, an undone stop), or one to stop or withdraw.
    var wakesWorker: Bool {
        switch self {
        case .approve, .reject, .duplicate, .reopen, .restore, .retry, .hold, .release, .undo: true
        case .needsInfo, .claim, .releaseClaim, .discard: false
        }
    }

    /// The dashboard's bulk form offers it (duplicate needs a report of its own; claims are one by one).
    var isBulk: Bool {
        switch self {
        case .approve, .reject, .needsInfo, .reopen, .retry, .hold, .release, .discard, .restore: true
        case .duplicate, .claim, .releaseClaim, .undo: false
        }
    }

    static let bulk = allCases.filter(\.isBulk)

    /// The delivery states discard takes a report from: those the platform does not have (waiting,
    /// held, needs attention); a report on its way or there is never put in the trash.
    static let discardable: [ReportState] = [.queued, .held, .needsAttention]

    /// Its name in the user's language, in the catalogues (the audit log, the bulk form, the conflicts).
    var labelKey: String { Self.labelKey(rawValue) }

    /// The label of any word the audit log holds: a review action, or another part's (`role_grant`, …).
    static func labelKey(_ action: String) -> String { "review.action." + action }

    /// The review decision this action makes from its form's fields; nil when it is no decision or a
    /// field it needs is missing (a reject's reason, a duplicate's other report).
    func decision(reason: String?, message: String?, duplicateOf: Int64? = nil) -> ReviewDecision? {
        guard let (from, to) = review else { return nil }
        switch self {
        case .reject:
            guard let reason else { return nil }
            return ReviewDecision(to: to, from: from, reason: reason, message: message, action: rawValue)
        case .duplicate:
            guard let duplicateOf else { return nil }
            return ReviewDecision(
                to: to, from: from, reason: RejectReason.duplicate.rawValue, duplicateOf: duplicateOf,
                action: rawValue)
        case .needsInfo:
            return ReviewDecision(to: to, from: from, message: message, action: rawValue)
        default:
            return ReviewDecision(to: to, from: from, action: rawValue)
        }
    }
}
