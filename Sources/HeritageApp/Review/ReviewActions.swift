import Basics
import HTTPServer
import Mustache

/// The actions on one report (REV-07): the review's decisions go through `ReviewStore.decide` (a
/// compare-and-set written with its audit row); the delivery's (retry, hold, release) through the
/// outbox's own transitions, then audited. What each action is and may do is `ReviewAction`'s.
enum ReviewActions {
    static func perform(
        _ review: Review, action: ReviewAction, id: Int64, actor: String, reason: String?, message: String?,
        duplicateOf: Int64?, now: Double
    ) throws -> ReviewOutcome {
        let store = review.store
        if let decision = action.decision(reason: reason, message: message, duplicateOf: duplicateOf) {
            return try store.decide(decision, id: id, actor: actor, now: now)
        }
        switch action {
        case .reject: return .notApplicable(state: "reason")
        case .duplicate: return .notFound
        case .claim: return try store.claim(id: id, actor: actor, now: now, until: now + Review.claimSeconds)
        case .releaseClaim: return try store.releaseClaim(id: id, actor: actor, now: now)
        case .discard:
            try purge(review, now: now)
            return try store.discard(id: id, actor: actor, now: now)
        case .restore: return try store.restore(id: id, actor: actor, now: now, since: now - Review.trashSeconds)
        case .retry, .hold, .release: return try delivery(review, action: action, id: id, actor: actor, now: now)
        case .approve, .needsInfo, .reopen, .undo: return .notApplicable(state: action.rawValue)
        }
    }

    /// Takes back a decision: only when the report's latest audit row is this actor's `action`, at most
    /// `ReviewAction.undoWindowSeconds` old (judged on the audit log's time, not the form's); the report
    /// goes back to the state before it, by a compare-and-set from the state after it, audited as `undo`.
    /// The bulk results' Undo and a triage page's Undo both come here.
    static func undo(_ review: Review, action: ReviewAction, id: Int64, actor: String, now: Double) throws
        -> ReviewOutcome
    {
        guard action.isUndoable,
            let last = try review.store.audit(AuditFilter(reportID: id), beforeID: nil, limit: 1).first,
            last.action == action.rawValue, last.actor.lowercased() == actor.lowercased(),
            now - last.at <= ReviewAction.undoWindowSeconds,
            let before = ReviewState(rawValue: last.before ?? ""),
            let after = ReviewState(rawValue: last.after ?? "")
        else { return .notApplicable(state: "undo") }
        return try review.store.decide(
            ReviewDecision(to: before, from: [after], action: ReviewAction.undo.rawValue), id: id, actor: actor,
            now: now)
    }

    /// retry (needs attention, retry wait, waiting for sign-in → back to work), hold, release (held →
    /// back to work): the transitions of `har outbox`, audited with the delivery state before and after.
    static func delivery(_ review: Review, action: ReviewAction, id: Int64, actor: String, now: Double) throws
        -> ReviewOutcome
    {
        let outbox = review.web.stores.outbox
        guard let from = action.delivery, let before = try review.store.row(id: id) else { return .notFound }
        // The change and its audit row in one transaction: never one without the other.
        guard
            try outbox.coordinatorDeliveryAction(action.rawValue, id: id, from: from, actor: actor, now: now) != nil
        else {
            return .notApplicable(state: before.delivery)
        }
        return .done
    }

    /// Empties the trash of what has been there 30 days: cancelled, photo files removed.
    static func purge(_ review: Review, now: Double) throws {
        let photos = try review.store.purgeTrash(before: now - Review.trashSeconds, now: now)
        let files = PhotoFiles(directory: review.web.photosDirectory)
        for photo in photos { files.remove(photo) }
    }
}
