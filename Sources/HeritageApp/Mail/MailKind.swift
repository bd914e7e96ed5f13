/// Every kind of message the mail outbox holds (docs/NOTIFICATIONS.md), with what belongs to it: who it
/// is for, what one click turns off, the notification's line. The raw value is the outbox's `kind`
/// column, as stored since migration 19: the same strings, so no row changes. The mail of each kind is
/// made by `MailJobMessages`, its notification by `NotificationsScreen`, both switching over this type.
enum MailKind: String, Sendable, CaseIterable {
    /// A reporter's notices of a decision on their report: a question, an approval, a rejection.
    case needsInfo = "needs_info"
    case approved, rejected
    /// A coordinator's: each report as it arrives, or the digest of what waits.
    case reportArrived = "report_arrived"
    case digest
    /// An administrator's daily note of old problems.
    case adminNote = "admin_note"

    /// The reporter's notice of a decision that moved their report to `state`; nil for a state that
    /// sends none (received again, duplicate).
    init?(decidedState state: ReviewState) {
        switch state {
        case .needsInfo: self = .needsInfo
        case .approved: self = .approved
        case .rejected: self = .rejected
        case .received, .duplicate: return nil
        }
    }

    /// What the recipient turns off with the message's one-click unsubscribe.
    var topic: MailTopic {
        switch self {
        case .needsInfo: .questions
        case .approved, .rejected: .decisions
        case .reportArrived, .digest: .review
        case .adminNote: .adminNote
        }
    }

    /// A reporter's notice (else a coordinator's or an administrator's).
    var isForReporter: Bool { topic == .questions || topic == .decisions }

    /// The outbox row's `detail` for a decision's notice: a question carries the coordinator's message;
    /// an approval or a rejection only its public reason code, never a note.
    func detail(of decision: ReviewDecision) -> String? {
        self == .needsInfo ? decision.message : decision.reason
    }

    /// The notification's line in the catalogues (`notifications.*`).
    var notificationKey: String {
        switch self {
        case .needsInfo: "notifications.needsInfo"
        case .approved: "notifications.approved"
        case .rejected: "notifications.rejected"
        case .reportArrived: "notifications.report"
        case .digest: "notifications.digest"
        case .adminNote: "notifications.adminNote"
        }
    }
}
