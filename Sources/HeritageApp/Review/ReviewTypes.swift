// The review's domain: roles, the review state and policy, the dashboard's filter and rows, decisions
// and their outcomes, the audit log's entries (docs/REVIEW.md). The store that keeps them is
// `ReviewStore` (Stores/).

/// What a user may do beyond a volunteer's part.
enum Role: String, Sendable, CaseIterable, Comparable {
    case volunteer, coordinator, admin

    var rank: Int {
        switch self {
        case .volunteer: 0
        case .coordinator: 1
        case .admin: 2
        }
    }

    static func < (lhs: Role, rhs: Role) -> Bool { lhs.rank < rhs.rank }
}

struct RoleGrant: Sendable, Equatable {
    var email: String
    var role: Role
    var grantedBy: String
    var grantedAt: Double
    /// Not yet bound to a platform account: no role until it is.
    var isPending = false
    /// The first sign-in with the e-mail, waiting for an administrator to confirm it: its account, the
    /// e-mail exactly as typed then, when and from where.
    var firstSignInAt: Double? = nil
    var firstSignInAddress: String? = nil
    var firstSignInAccount: String? = nil
    var firstSignInEmail: String? = nil
    /// How a bound grant was bound (nil while pending), by whom and when.
    var binding: GrantBindingKind? = nil
    var boundBy: String? = nil
    var boundAt: Double? = nil
}

/// How a grant came to be bound to its account (REV-10).
enum GrantBindingKind: String, Sendable, Equatable {
    /// The platform called the account verified when it signed in with exactly the granted e-mail.
    case verified
    /// An administrator confirmed the account by its id.
    case confirmed
    /// Bound before the way was recorded.
    case earlier
}

/// What an administrator's confirmation of a pending grant did.
enum GrantConfirmation: Sendable, Equatable {
    case confirmed(Role)
    /// No pending grant with a first sign-in to confirm.
    case nothingToConfirm
    /// The account named is not the one that signed in.
    case otherAccount
    /// The first sign-in typed the e-mail otherwise than the grant (the local part's letters' case): on a
    /// platform that tells them apart that is another account; grant the e-mail as it was typed instead.
    case otherSpelling(String)
}

/// `HAR_REVIEW_POLICY`: which reports wait for a coordinator's approval before upload.
enum ReviewPolicy: String, Sendable, CaseIterable {
    case none, kiosk, all
}

/// The review state, apart from the delivery state (REV-02).
enum ReviewState: String, Sendable, CaseIterable {
    case received, approved
    case needsInfo = "needs_info"
    case rejected, duplicate
}

/// Where a report came from: a volunteer's own device or a site's kiosk.
enum ReportOrigin: String, Sendable, CaseIterable {
    case volunteer, kiosk
}

/// Why a report is rejected: the list coordinators pick from.
enum RejectReason: String, Sendable, CaseIterable {
    case outOfScope = "out_of_scope"
    case notHeritage = "not_heritage"
    case duplicate, unsafe, test
    case insufficientEvidence = "insufficient_evidence"
}

/// What needs a decision now, for the dashboard's counters (docs/REVIEW.md has their meaning under
/// each policy). The first three split the reports in `received`; each is a `ReviewFilter.Need`.
struct ReviewCounts: Sendable, Equatable {
    /// Held back by the policy: nothing of them goes out until a coordinator decides.
    var waitingForApproval = 0
    /// Let through by the policy (sent, or on their way) and not yet reviewed: they may be withdrawn.
    var publishedUnreviewed = 0
    var reporterReplied = 0
    var needsAttention = 0
    var held = 0
}

/// The dashboard's filter, as the query string carries it (REV-05). Empty fields filter nothing.
struct ReviewFilter: Sendable, Equatable {
    enum Sort: String, Sendable, CaseIterable {
        case newest, oldest, name
    }
    /// What a counter of the dashboard counts (`need=`): waiting for approval, published and not yet
    /// reviewed, the reporter replied (`ReviewCounts`).
    enum Need: String, Sendable, CaseIterable {
        case waiting, published, replied
    }
    var need: Need?
    var review: ReviewState?
    var delivery: ReportState?
    var origin: ReportOrigin?
    /// Part of the reporter's e-mail.
    var reporter = ""
    /// Submitted at or after (Unix seconds), and before.
    var from: Double?
    var to: Double?
    /// Part of the name, address or local id.
    var text = ""
    var hasFailure = false
    /// The trash instead of the reports not discarded.
    var trash = false
    /// The map's bounds: south, west, north, east.
    var bounds: (Double, Double, Double, Double)?
    /// The reports of one site of the register.
    var site: Int64?
    var sort = Sort.newest

    static func == (lhs: ReviewFilter, rhs: ReviewFilter) -> Bool {
        lhs.need == rhs.need && lhs.review == rhs.review && lhs.delivery == rhs.delivery && lhs.origin == rhs.origin
            && lhs.reporter == rhs.reporter && lhs.from == rhs.from && lhs.to == rhs.to && lhs.text == rhs.text
            && lhs.hasFailure == rhs.hasFailure && lhs.sort == rhs.sort && lhs.trash == rhs.trash
            && lhs.site == rhs.site
            && lhs.bounds.map { [$0.0, $0.1, $0.2, $0.3] } == rhs.bounds.map { [$0.0, $0.1, $0.2, $0.3] }
    }
}

/// Where a page ended: the sort key of its last row and its id.
struct ReviewCursor: Sendable, Equatable {
    var key: String
    var id: Int64
}

/// A report as the dashboard shows it.
struct ReviewRow: Sendable, Equatable {
    var id: Int64
    var localID: String
    var name: String?
    var reporter: String
    var origin: String
    var submittedAt: Double
    var designation: String?
    var condition: String?
    var grade: String?
    var latitude: Double?
    var longitude: Double?
    var accuracy: Double?
    var delivery: String
    var review: String
    var reason: String?
    var message: String?
    var duplicateOf: Int64?
    var reviewedBy: String?
    var reviewedAt: Double?
    var repliedAt: Double?
    var claimedBy: String?
    var claimedUntil: Double?
    var lastError: String?
    var photoCount: Int
    var firstPhoto: String?
    var platformReportID: String?
    var occupancy: String?
    var priorityCategory: String?
    var ownerType: String?
    var discardedAt: Double?
    var discardedBy: String?
    /// The site of the register the report belongs to (docs/SITES.md).
    var siteID: Int64? = nil

    /// The key this row has in `sort`, for the next page's cursor.
    func cursorKey(_ sort: ReviewFilter.Sort) -> String {
        switch sort {
        case .newest, .oldest: String(submittedAt)
        case .name: name ?? ""
        }
    }
}

struct ReviewPhoto: Sendable, Equatable {
    var localID: String
    var latitude: Double?
    var longitude: Double?
    var accuracy: Double?
    var capturedAt: String?
}

/// A change of the review state.
struct ReviewDecision: Sendable, Equatable {
    var to: ReviewState
    /// The states it may be made from.
    var from: [ReviewState]
    var reason: String?
    var message: String?
    var duplicateOf: Int64?
    /// The audit's name of the action (approve, reject, needs_info, duplicate, reopen, …).
    var action: String
}

/// What came of an action on one report.
enum ReviewOutcome: Sendable, Equatable {
    case done
    case notFound
    /// Someone else decided or holds it first: who, what, when (from the audit log or the claim).
    case conflict(actor: String, action: String, at: Double)
    /// The action does not apply to the report's delivery state (retry a stored report, …).
    case notApplicable(state: String)
}

/// One row of the audit log: who did what to what, when, and the state before and after.
struct AuditEntry: Sendable, Equatable {
    var id: Int64 = 0
    var at: Double
    var actor: String
    var action: String
    var reportID: Int64?
    var subject: String?
    var before: String?
    var after: String?
    var detail: String?
}

struct AuditFilter: Sendable, Equatable {
    var actor = ""
    var action = ""
    var reportID: Int64?
}

/// A report's review as its reporter sees it.
struct ReporterView: Sendable, Equatable {
    var review: String
    var message: String?
    var reason: String?
    var name: String?
    var delivery: String
}
