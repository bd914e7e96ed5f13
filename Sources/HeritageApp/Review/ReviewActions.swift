import Basics
import HTTPServer
import Mustache

/// The actions on one report (REV-07): the review's decisions go through `ReviewStore.decide` (a
/// compare-and-set written with its audit row); the delivery's (retry, hold, release) through the
/// outbox's own transitions, then audited.
enum ReviewActions {
    /// The review decision an action makes, when it is one that needs nothing but the state (bulk).
    static func decision(_ action: String, reason: String?, message: String?) -> ReviewDecision? {
        switch action {
        case "approve": ReviewDecision(to: .approved, from: [.received, .needsInfo], action: action)
        case "reject":
            reason.map {
                ReviewDecision(
                    to: .rejected, from: [.received, .needsInfo], reason: $0, message: message, action: action)
            }
        case "needs_info": ReviewDecision(to: .needsInfo, from: [.received], message: message, action: action)
        case "reopen":
            ReviewDecision(to: .received, from: [.approved, .rejected, .duplicate, .needsInfo], action: action)
        default: nil
        }
    }

    static func perform(
        _ review: Review, action: String, id: Int64, actor: String, reason: String?, message: String?,
        duplicateOf: Int64?, now: Double
    ) throws -> ReviewOutcome {
        let store = review.store
        switch action {
        case "approve":
            return try store.decide(
                ReviewDecision(to: .approved, from: [.received, .needsInfo], action: action), id: id, actor: actor,
                now: now)
        case "reject":
            guard let reason else { return .notApplicable(state: "reason") }
            return try store.decide(
                ReviewDecision(
                    to: .rejected, from: [.received, .needsInfo], reason: reason, message: message, action: action),
                id: id, actor: actor, now: now)
        case "needs_info":
            return try store.decide(
                ReviewDecision(to: .needsInfo, from: [.received], message: message, action: action), id: id,
                actor: actor, now: now)
        case "duplicate":
            guard let duplicateOf else { return .notFound }
            return try store.decide(
                ReviewDecision(
                    to: .duplicate, from: [.received, .needsInfo], reason: RejectReason.duplicate.rawValue,
                    duplicateOf: duplicateOf, action: action), id: id, actor: actor, now: now)
        case "reopen":
            return try store.decide(
                ReviewDecision(to: .received, from: [.approved, .rejected, .duplicate, .needsInfo], action: action),
                id: id, actor: actor, now: now)
        case "claim":
            return try store.claim(id: id, actor: actor, now: now, until: now + Review.claimSeconds)
        case "release_claim":
            return try store.releaseClaim(id: id, actor: actor, now: now)
        case "discard":
            try purge(review, now: now)
            return try store.discard(id: id, actor: actor, now: now)
        case "restore":
            return try store.restore(id: id, actor: actor, now: now, since: now - Review.trashSeconds)
        case "retry", "hold", "release":
            return try delivery(review, action: action, id: id, actor: actor, now: now)
        default:
            return .notApplicable(state: action)
        }
    }

    /// Takes back a decision: only when the report's latest audit row is this actor's `action`, at most
    /// `ReviewBulk.undoSeconds` old (judged on the audit log's time, not the form's); the report goes back
    /// to the state before it, by a compare-and-set from the state after it, audited as `undo`. The bulk
    /// results' Undo and a triage page's Undo both come here.
    static func undo(_ review: Review, action: String, id: Int64, actor: String, now: Double) throws -> ReviewOutcome {
        guard
            let last = try review.store.audit(AuditFilter(reportID: id), beforeID: nil, limit: 1).first,
            last.action == action, last.actor.lowercased() == actor.lowercased(),
            now - last.at <= ReviewBulk.undoSeconds,
            let before = ReviewState(rawValue: last.before ?? ""),
            let after = ReviewState(rawValue: last.after ?? "")
        else { return .notApplicable(state: "undo") }
        return try review.store.decide(
            ReviewDecision(to: before, from: [after], action: "undo"), id: id, actor: actor, now: now)
    }

    /// retry (needs attention, retry wait, waiting for sign-in → back to work), hold, release (held →
    /// back to work): the transitions of `har outbox`, audited with the delivery state before and after.
    static func delivery(_ review: Review, action: String, id: Int64, actor: String, now: Double) throws
        -> ReviewOutcome
    {
        let outbox = review.web.stores.outbox
        guard let before = try review.store.row(id: id) else { return .notFound }
        let from: [ReportState] =
            switch action {
            case "retry": [.needsAttention, .retryWait, .waitingSignIn]
            case "hold": ReportState.active + [.needsAttention, .waitingSignIn]
            default: [.held]
            }
        // The change and its audit row in one transaction: never one without the other.
        guard try outbox.coordinatorDeliveryAction(action, id: id, from: from, actor: actor, now: now) != nil else {
            return .notApplicable(state: before.delivery)
        }
        review.settings.wakeWorker()
        return .done
    }

    /// Empties the trash of what has been there 30 days: cancelled, photo files removed.
    static func purge(_ review: Review, now: Double) throws {
        let photos = try review.store.purgeTrash(before: now - Review.trashSeconds, now: now)
        let files = PhotoFiles(directory: review.web.photosDirectory)
        for photo in photos { files.remove(photo) }
    }
}
