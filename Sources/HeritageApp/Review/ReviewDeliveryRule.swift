/// What a review decision does to a report's delivery (REV-11): the one home of the rule, whose `table`
/// is the table of docs/REVIEW.md ("The decision governs delivery", checked against it by
/// `ReviewVocabularyTests.rev11TheRuleIsTheTableOfTheDocs`). The stores carry it out in the decision's
/// own transaction (`ReviewDelivery`, once for both databases), the worker obeys `stops`
/// (`OutboxReport.isStoppedByReview`).
///
/// A decision that stops a report leaves one the platform cannot have (no create ever attempted) where
/// it is; any other report the platform may have becomes `withdrawing`, and once the undo window has
/// passed the worker removes it there. Taking the stop back before the withdrawal began returns the
/// report to its delivery state; after, it is refused: a second create would be a second report there.
enum ReviewDeliveryRule {
    /// The review states that stop a report's delivery.
    static let stopping: Set<ReviewState> = [.rejected, .duplicate]

    /// How much later than the last possible undo a withdrawal may begin: an undo at the window's very
    /// end then never meets a withdrawal begun (the audit log's clock and the worker's are one host's).
    static let withdrawalMarginSeconds = 5.0
    /// How long after a stopping decision a withdrawal may begin.
    static let withdrawalDelaySeconds = ReviewAction.undoWindowSeconds + withdrawalMarginSeconds

    /// Whether the platform may hold a report in a row of the table.
    enum PlatformCopy: String, Sendable, CaseIterable {
        case no, maybe, yes
        /// The reporter's own deletion: not the review's to decide.
        case notApplicable = "—"
    }

    /// What the worker does with a stopped report.
    enum Stop: Sendable, Equatable {
        /// Never taken up: nothing of it can be on the platform.
        case leftAlone
        /// `withdrawing`: nothing more sent, then deleted there after the undo window; `withdrawn`.
        case withdrawal
        /// The reporter's deletion goes on.
        case deletionGoesOn
    }

    /// A row of the table: delivery states at the moment of the decision, and what happens.
    struct Row: Sendable, Equatable {
        let states: [ReportState]
        let platform: PlatformCopy
        let stop: Stop
    }

    /// docs/REVIEW.md's table, row by row, in its order.
    static let table: [Row] = [
        Row(states: [.queued], platform: .no, stop: .leftAlone),  // no create ever attempted
        Row(
            states: [.queued, .retryWait, .waitingSignIn, .held, .needsAttention], platform: .maybe,
            stop: .withdrawal),  // a create attempted, no platform id
        Row(states: [.creating], platform: .maybe, stop: .withdrawal),
        Row(states: [.created, .uploading], platform: .yes, stop: .withdrawal),
        Row(states: [.stored], platform: .yes, stop: .withdrawal),
        Row(states: [.held, .needsAttention, .waitingSignIn], platform: .yes, stop: .withdrawal),  // a platform id
        Row(states: [.deleting], platform: .notApplicable, stop: .deletionGoesOn),
    ]

    /// The delivery states a stop turns into a withdrawal, when the platform may have the report; draft,
    /// deleting and the ended states are left alone.
    static let withdrawable: [ReportState] = ReportState.allCases.filter { state in
        table.contains { $0.stop == .withdrawal && $0.states.contains(state) }
    }

    /// The worker creates, sends and retries nothing of a report rejected, marked duplicate or in the trash.
    static func stops(review: ReviewState?, discarded: Bool) -> Bool {
        discarded || review.map { stopping.contains($0) } == true
    }

    /// The decision from `from` to `to` stops the report's delivery.
    static func begins(from: ReviewState, to: ReviewState) -> Bool {
        stopping.contains(to) && !stopping.contains(from)
    }

    /// The decision from `from` to `to` takes a stop back (undo, reopen): the withdrawal is called off,
    /// or, once begun, the decision is refused.
    static func takesBack(from: ReviewState, to: ReviewState) -> Bool {
        stopping.contains(from) && !stopping.contains(to)
    }
}
