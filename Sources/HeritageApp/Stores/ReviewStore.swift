/// The coordinators' side of the reports (issue 10, REV-01..09): roles, the review state kept apart from
/// the delivery state, claims, the dashboard's search, and the append-only audit log. Every decision is a
/// compare-and-set on the review state, written in one transaction with its audit row, so two
/// coordinators acting at once never both decide a report (the loser is told who won).
protocol ReviewStore: Sendable {
    // MARK: Roles (REV-01, REV-10)

    /// The role the user's platform account holds (nil: none; a volunteer).
    func role(userID: Int64) throws -> Role?
    /// The role of the grant to `email` once bound to an account (nil: none, or still pending).
    func storedRole(email: String) throws -> Role?
    /// Grants `role`, audited as `actor`: bound to the account that signed in here with that e-mail (or
    /// whose first sign-in waits for confirmation), else pending. Returns the bound role held before.
    @discardableResult
    func grant(email: String, role: Role, actor: String, now: Double) throws -> Role?
    /// Confirms the first sign-in recorded for a pending grant; nil when there is none to confirm.
    func confirm(email: String, actor: String, now: Double) throws -> Role?
    /// Takes the stored role away, audited as `actor`; returns the role held before (nil: none, nothing done).
    @discardableResult
    func revoke(email: String, actor: String, now: Double) throws -> Role?
    /// A sign-in with `email` by the platform account `accountID`: what it did to a grant of the e-mail.
    func signedIn(email: String, accountID: String, verified: Bool, address: String, now: Double) throws
        -> GrantBinding
    /// Whether the user's e-mail has a grant that waits for an administrator's confirmation.
    func isAwaitingConfirmation(userID: Int64) throws -> Bool
    /// The configuration's coordinators as grants (`configuration`), kept in step with it.
    func syncConfigured(emails: Set<String>, now: Double) throws
    /// Every stored grant, by e-mail.
    func grants() throws -> [RoleGrant]
    /// The e-mail of every user who has signed in here, sorted.
    func userEmails() throws -> [String]

    // MARK: Policy (REV-03)

    /// Records the policy the upload worker applies (`OutboxStore.dueReports` reads it).
    func setPolicy(_ policy: ReviewPolicy) throws

    // MARK: Dashboard (REV-05, REV-06)

    func counts(now: Double) throws -> ReviewCounts
    /// One page of the filtered reports in the filter's order, after `cursor` (keyset paging).
    func search(_ filter: ReviewFilter, after cursor: ReviewCursor?, limit: Int) throws -> [ReviewRow]
    /// How many reports match the filter, counting at most `atMost` (nil: all).
    func count(_ filter: ReviewFilter, atMost: Int?) throws -> Int
    func row(id: Int64) throws -> ReviewRow?
    /// The photos of a report, in order.
    func photos(reportID: Int64) throws -> [ReviewPhoto]
    /// Whether the photo (by its local id) belongs to a report on the review: the only ones it serves.
    func isReviewablePhoto(_ photoID: String) throws -> Bool
    /// Submitted reports within `metres` of the report's location, nearest first, itself excluded.
    func nearby(id: Int64, metres: Double, limit: Int) throws -> [ReviewRow]

    // MARK: Actions (REV-02, REV-07)

    /// A decision on the review state; done only when the report is in one of `decision.from` and not
    /// claimed by someone else; audited in the same transaction.
    func decide(_ decision: ReviewDecision, id: Int64, actor: String, now: Double) throws -> ReviewOutcome
    /// `decide` on each of `ids`, in order (a bulk action): each its own compare-and-set and audit row.
    func decideAll(_ decision: ReviewDecision, ids: [Int64], actor: String, now: Double) throws -> [ReviewOutcome]
    /// Claims (or renews) the report for `actor` until `until`, unless someone else's claim runs.
    func claim(id: Int64, actor: String, now: Double, until: Double) throws -> ReviewOutcome
    /// Releases the actor's claim.
    func releaseClaim(id: Int64, actor: String, now: Double) throws -> ReviewOutcome
    /// The review of one of the user's own reports (nil: not theirs, or not submitted).
    func reporterView(localID: String, userID: Int64) throws -> ReporterView?
    /// The review state of each of the user's submitted reports not simply received, by local id (the list).
    func reviewStates(userID: Int64) throws -> [String: ReporterView]
    /// Moves a report the platform does not have (queued, held, needs attention) to the trash.
    func discard(id: Int64, actor: String, now: Double) throws -> ReviewOutcome
    /// Takes a report out of the trash, when it went there after `since`.
    func restore(id: Int64, actor: String, now: Double, since: Double) throws -> ReviewOutcome
    /// Reports in the trash since before `cutoff` are cancelled for good; returns their photos' ids
    /// (whose files are to go).
    func purgeTrash(before cutoff: Double, now: Double) throws -> [String]
    /// The reporter sends a report in needs info back with a note (REV-04). `fields` replace the report's
    /// while the platform has nothing of it yet (`replyRoom` answers), and are ignored after; each change
    /// is written in the audit row. False: not theirs, or not waiting for their answer.
    func reply(localID: String, userID: Int64, fields: ReportFields?, note: String, now: Double) throws -> Bool
    /// The user's report in needs info while the platform has nothing of it yet (`ReplyRoom.openSQL`):
    /// the only time its fields may be corrected and photos added. Nil otherwise.
    func replyRoom(localID: String, userID: Int64) throws -> ReplyRoom?
    /// Adds a photo (its files in place) after the report's others, in one transaction that checks
    /// `ReplyRoom.openSQL` (else `.gone`) and `Draft.maximumPhotos` (else `.full`); audited as the
    /// reporter's `reporter_photo`. The photo is pending: the worker sends it with the others, once.
    func addReplyPhoto(_ photo: NewPhoto, localID: String, userID: Int64, now: Double) throws -> PhotoAddResult

    // MARK: Audit (REV-08)

    /// Appends one row; nothing changes or removes a row.
    func appendAudit(_ entry: AuditEntry) throws
    /// Audit rows, newest first, after `beforeID` (keyset), filtered.
    func audit(_ filter: AuditFilter, beforeID: Int64?, limit: Int) throws -> [AuditEntry]
    /// The upload worker's platform calls for a report (`delivery_attempts`), newest first, at most `limit`.
    func deliveryAttempts(reportID: Int64, limit: Int) throws -> [DeliveryAttempt]
}

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
    /// The first sign-in with the e-mail, waiting for an administrator to confirm it.
    var firstSignInAt: Double? = nil
    var firstSignInAddress: String? = nil
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

/// Where a report came from: a volunteer's own device or a site's kiosk (issue 11).
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

/// What needs attention now, for the dashboard's counters.
struct ReviewCounts: Sendable, Equatable {
    var awaitingReview = 0
    var reporterReplied = 0
    var needsAttention = 0
    var held = 0
}

/// The dashboard's filter, as the query string carries it (REV-05). Empty fields filter nothing.
struct ReviewFilter: Sendable, Equatable {
    enum Sort: String, Sendable, CaseIterable {
        case newest, oldest, name
    }
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
    var sort = Sort.newest

    static func == (lhs: ReviewFilter, rhs: ReviewFilter) -> Bool {
        lhs.review == rhs.review && lhs.delivery == rhs.delivery && lhs.origin == rhs.origin
            && lhs.reporter == rhs.reporter && lhs.from == rhs.from && lhs.to == rhs.to && lhs.text == rhs.text
            && lhs.hasFailure == rhs.hasFailure && lhs.sort == rhs.sort && lhs.trash == rhs.trash
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

/// A report its reporter may still change in their answer to needs info.
struct ReplyRoom: Sendable, Equatable {
    var id: Int64
    var photoCount: Int

    /// The report (alias `r`) waits for its reporter's answer and the platform has nothing of it: queued,
    /// never created nor tried (a create in doubt may have landed), not in the trash. While it waits for
    /// review the worker leaves it alone; under the policy `none` the worker's first step moves it out
    /// of `queued`, in a transaction of its own, so a change either lands before it or is refused.
    static let openSQL = """
        r.review_state = 'needs_info' AND r.state = 'queued' AND r.platform_report_id IS NULL
        AND r.create_attempted_at IS NULL AND r.discarded_at IS NULL
        """

    /// The audit's words for what an answer changed: one `field: before → after` line each.
    static func changes(from before: ReportFields, to after: ReportFields) -> [String] {
        let pairs: [(String, String, String)] = [
            ("name", before.name, after.name), ("designation", before.designation, after.designation),
            ("condition", before.condition, after.condition), ("occupancy", before.occupancy, after.occupancy),
            ("priority_category", before.priorityCategory, after.priorityCategory),
            ("owner_type", before.ownerType, after.ownerType), ("grade", before.grade, after.grade),
        ]
        return pairs.filter { $0.1 != $0.2 }.map { "\($0.0): \($0.1) → \($0.2)" }
    }
}
