/// The coordinators' side of the reports (REV-01..09): roles, the review state kept apart from
/// the delivery state, claims, the dashboard's search, and the append-only audit log. Every decision is a
/// compare-and-set on the review state, written in one transaction with its audit row, so two
/// coordinators acting at once never both decide a report (the loser is told who won).
protocol ReviewStore: Sendable {
    // MARK: Roles (REV-01, REV-10)

    /// The role the user's platform account holds (nil: none; a volunteer).
    func role(userID: Int64) throws -> Role?
    /// The role of the grant to `email` once bound to an account (nil: none, or still pending).
    func storedRole(email: String) throws -> Role?
    /// Grants `role`, audited as `actor`. A bound grant keeps its account; any other is pending until a
    /// verified sign-in with exactly that e-mail or an administrator's confirmation binds it (a grant
    /// never binds by itself). Returns the bound role held before.
    @discardableResult
    func grant(email: String, role: Role, actor: String, now: Double) throws -> Role?
    /// Confirms the first sign-in recorded for a pending grant, when `accountID` is its account.
    func confirm(email: String, accountID: String, actor: String, now: Double) throws -> GrantConfirmation
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
