import Foundation
import Testing

@testable import HeritageApp

/// The review gate through the stores, once per backend: REV-11's table (review state × delivery state →
/// what the worker does), REV-10's roles held by accounts, REV-07's bulk snapshot.
@Suite struct ReviewGateStoreTests {
    /// How a report reaches each delivery state, through the worker's own transitions.
    enum Reached: String, CaseIterable {
        case queued, creating, retryWait, created, uploading, stored, needsAttention, held, waitingSignIn
    }

    static func reach(_ reached: Reached, _ scene: StoreScene, id: Int64) throws {
        let outbox = scene.stores.outbox
        if reached == .queued { return }
        #expect(try outbox.beginCreate(id))
        switch reached {
        case .creating: return
        case .retryWait:
            try outbox.recordRetry(id, error: "503", nextAttemptAt: scene.now - 1)
            return
        default: break
        }
        #expect(try outbox.recordCreated(id, platformReportID: "P-\(id)"))
        let photos = try outbox.photos(reportID: id)
        switch reached {
        case .uploading: #expect(try outbox.beginPhoto(photos[0].id, reportID: id))
        case .stored:
            for photo in photos {
                #expect(try outbox.beginPhoto(photo.id, reportID: id))
                try outbox.recordPhotoStored(photo.id, reportID: id, platformPhotoID: "F-\(photo.id)")
            }
        case .needsAttention: try outbox.recordNeedsAttention(id, message: "refused")
        case .held: #expect(try outbox.hold(id))
        case .waitingSignIn: try outbox.recordWaitingForSignIn(id)
        default: break
        }
    }

    static let reject = ReviewDecision(
        to: .rejected, from: [.received, .needsInfo], reason: "unsafe", message: nil, action: "reject")
    static let undo = ReviewDecision(to: .received, from: [.rejected], action: "undo")

    /// REV-11, every cell of docs/REVIEW.md's table: a rejected report the platform cannot have stays
    /// where it is and is never taken up; any other becomes `withdrawing`, is not taken up during the
    /// undo window, then is due for its withdrawal only (never a create or a photo); an undo before the
    /// withdrawal begins returns it to its state, and after that is refused.
    @Test(arguments: StoreBackend.all) func rev11DecisionGovernsDeliveryInEveryState(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let user = try scene.user("v@example.org")
        let review = scene.stores.review
        let outbox = scene.stores.outbox
        try review.setPolicy(.none)
        for reached in Reached.allCases {
            let (id, _) = try scene.queuedReport(userID: user, name: "Cell \(reached.rawValue)")
            try Self.reach(reached, scene, id: id)
            let before = try #require(try outbox.report(id: id)).state
            #expect(try review.decide(Self.reject, id: id, actor: "c@example.org", now: scene.now) == .done)
            let after = try #require(try outbox.report(id: id))
            func due(_ at: Double) throws -> Bool {
                try outbox.dueReports(now: at, excluding: [], limit: 100).contains(id)
            }
            if reached == .queued {
                #expect(after.state == .queued, "\(reached): nothing on the platform, nothing to withdraw")
                #expect(try !due(scene.now + 3600), "\(reached): never taken up")
                #expect(try !outbox.beginCreate(id), "\(reached): never created")
            } else {
                #expect(after.state == .withdrawing, "\(reached)")
                #expect(try !due(scene.now + 1), "\(reached): not during the undo window")
                #expect(
                    try due(scene.now + ReviewDeliveryRule.withdrawalDelaySeconds + 1), "\(reached): withdrawn after it"
                )
                #expect(try !outbox.beginCreate(id), "\(reached): never created")
                if let photo = try outbox.photos(reportID: id).first(where: { $0.state == .pending }) {
                    #expect(try !outbox.beginPhoto(photo.id, reportID: id), "\(reached): no photo sent")
                }
            }
            // Undo at once: back to where it was, and not withdrawn.
            #expect(try review.decide(Self.undo, id: id, actor: "c@example.org", now: scene.now + 2) == .done)
            #expect(try outbox.report(id: id)?.state == before, "\(reached): undo restores the delivery state")
            #expect(try outbox.report(id: id)?.withdrawAfter == nil)
        }
    }

    /// REV-11: once the worker has begun a withdrawal, undo and reopen are refused, said why; the
    /// finished withdrawal stays on the review as `withdrawn`.
    @Test(arguments: StoreBackend.all) func rev11NoUndoAfterTheWithdrawalBegan(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let user = try scene.user("v@example.org")
        let review = scene.stores.review
        let outbox = scene.stores.outbox
        let (id, _) = try scene.queuedReport(userID: user)
        try Self.reach(.stored, scene, id: id)
        // Decided in the past, so that the undo window is over by the real clock the worker reads.
        let past = scene.now - 60
        #expect(try review.decide(Self.reject, id: id, actor: "c@example.org", now: past) == .done)
        #expect(try outbox.beginWithdrawal(id, lease: nil))
        #expect(
            try review.decide(Self.undo, id: id, actor: "c@example.org", now: scene.now)
                == .notApplicable(state: "withdrawn"))
        let reopen = ReviewDecision(to: .received, from: [.rejected], action: "reopen")
        #expect(
            try review.decide(reopen, id: id, actor: "c@example.org", now: scene.now)
                == .notApplicable(state: "withdrawn"))
        try outbox.finishWithdrawal(id, lease: nil)
        #expect(try outbox.report(id: id)?.state == .withdrawn)
        #expect(try review.row(id: id)?.review == "rejected", "still on the review, with its decision")
        #expect(
            try review.decide(reopen, id: id, actor: "c@example.org", now: scene.now)
                == .notApplicable(state: "withdrawn"))
    }

    /// REV-10: a grant to an e-mail nobody signed in with is pending; an unverified first sign-in is
    /// recorded, not bound, until an administrator confirms it by its account id; a verified one binds;
    /// a role is read by account only; each binding says how it was made.
    @Test(arguments: StoreBackend.all) func rev10RolesBelongToAccounts(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let review = scene.stores.review
        try review.grant(email: "new@example.org", role: .coordinator, actor: "cli:op", now: scene.now)
        #expect(try review.storedRole(email: "new@example.org") == nil, "pending")
        #expect(try review.grants().first?.isPending == true)
        let stranger = try scene.user("new@example.org")
        #expect(
            try review.signedIn(
                email: "new@example.org", accountID: "account-new@example.org", verified: false, address: "192.0.2.7",
                now: scene.now) == .awaitingConfirmation(.coordinator))
        #expect(try review.role(userID: stranger) == nil, "an unverified first sign-in takes no role")
        #expect(try review.isAwaitingConfirmation(userID: stranger))
        let waiting = try #require(try review.grants().first)
        #expect(waiting.firstSignInAddress == "192.0.2.7" && waiting.firstSignInAccount == "account-new@example.org")
        #expect(
            try review.confirm(email: "NEW@example.org", accountID: "account-other", actor: "cli:op", now: scene.now)
                == .otherAccount, "the administrator must name the account that signed in")
        #expect(try review.role(userID: stranger) == nil)
        #expect(
            try review.confirm(
                email: "NEW@example.org", accountID: "account-new@example.org", actor: "cli:op", now: scene.now)
                == .confirmed(.coordinator))
        #expect(try review.role(userID: stranger) == .coordinator)
        let confirmed = try #require(try review.grants().first { $0.email == "new@example.org" })
        #expect(confirmed.binding == .confirmed && confirmed.boundBy == "cli:op")

        try review.grant(email: "ver@example.org", role: .admin, actor: "cli:op", now: scene.now)
        let verified = try scene.user("ver@example.org", token: 2)
        #expect(
            try review.signedIn(
                email: "ver@example.org", accountID: "account-ver@example.org", verified: true, address: "x",
                now: scene.now) == .bound(.admin))
        #expect(try review.role(userID: verified) == .admin)
        #expect(try review.grants().first { $0.email == "ver@example.org" }?.binding == .verified)

        // The configuration's coordinators follow the same rule, and leave with it.
        try review.syncConfigured(emails: ["conf@example.org"], now: scene.now)
        #expect(try review.grants().contains { $0.email == "conf@example.org" && $0.isPending })
        try review.syncConfigured(emails: [], now: scene.now)
        #expect(try !review.grants().contains { $0.email == "conf@example.org" })
        let actions = try review.audit(AuditFilter(), beforeID: nil, limit: 20).map(\.action)
        #expect(actions.contains("role_confirm"))
    }

    /// REV-10: a grant never binds by itself. A stranger who signed in (unverified) before the grant, or
    /// before the configuration named the e-mail, is recorded as the first sign-in to confirm, not
    /// bound; a second grant of the pending e-mail (to change its role) confirms nothing; the next
    /// verified sign-in of the same account binds it.
    @Test(arguments: StoreBackend.all) func rev10AGrantNeverBindsByItself(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let review = scene.stores.review
        let stranger = try scene.user("known@example.org")
        try review.grant(email: "known@example.org", role: .coordinator, actor: "cli:op", now: scene.now)
        #expect(try review.role(userID: stranger) == nil, "signed in before the grant: not bound by it")
        let recorded = try #require(try review.grants().first)
        #expect(recorded.isPending && recorded.firstSignInAccount == "account-known@example.org")
        try review.grant(email: "known@example.org", role: .admin, actor: "cli:op", now: scene.now + 1)
        #expect(try review.role(userID: stranger) == nil, "a second grant confirms nothing")
        #expect(try review.grants().first?.role == .admin)

        let early = try scene.user("early@example.org", token: 2)
        try review.syncConfigured(emails: ["early@example.org"], now: scene.now)
        #expect(try review.role(userID: early) == nil, "named by the configuration after signing in: pending")
        try review.syncConfigured(emails: ["early@example.org"], now: scene.now + 1)
        #expect(try review.role(userID: early) == nil)

        #expect(
            try review.signedIn(
                email: "known@example.org", accountID: "account-known@example.org", verified: true, address: "x",
                now: scene.now + 2) == .bound(.admin), "its next verified sign-in binds it")
        #expect(try review.role(userID: stranger) == .admin)
    }

    /// REV-10, the e-mail's case: a grant keeps its local part as typed and binds by itself only to a
    /// sign-in that typed the same (the domain's case does not count); a verified account that typed
    /// `ann@` for a grant to `Ann@` (another account on a platform that tells them apart) is shown for
    /// confirmation and refused when confirmed; granting the other spelling is the way to give it.
    @Test(arguments: StoreBackend.all) func rev10AGrantBindsOnlyToItsOwnSpelling(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let review = scene.stores.review
        try review.grant(email: "Ann@Example.org", role: .coordinator, actor: "cli:op", now: scene.now)
        #expect(try review.grants().first?.email == "Ann@example.org", "the domain lower-cased, the rest as typed")
        let other = try scene.user("ann@example.org")
        #expect(
            try review.signedIn(
                email: "ann@example.org", accountID: "account-ann@example.org", verified: true, address: "x",
                now: scene.now) == .awaitingConfirmation(.coordinator))
        #expect(try review.role(userID: other) == nil, "a verified ann@ is not Ann@")
        #expect(try review.grants().first?.firstSignInEmail == "ann@example.org")
        #expect(
            try review.confirm(
                email: "Ann@example.org", accountID: "account-ann@example.org", actor: "cli:op", now: scene.now)
                == .otherSpelling("ann@example.org"))
        #expect(try review.role(userID: other) == nil)
        // The administrator grants the spelling that signed in: now it may be confirmed, or bound verified.
        try review.grant(email: "ann@example.org", role: .coordinator, actor: "cli:op", now: scene.now)
        #expect(
            try review.signedIn(
                email: "ann@EXAMPLE.org", accountID: "account-ann@example.org", verified: true, address: "x",
                now: scene.now) == .bound(.coordinator))
        #expect(try review.role(userID: other) == .coordinator)
    }

    /// REV-07: the snapshot of an "all matching" confirmation round-trips, and refuses what is not one.
    @Test func rev07BulkSnapshotEncoding() {
        let ids: [Int64] = [1, 2, 3, 7, 9, 10, 11, 40]
        let text = ReviewBulk.encodeSnapshot(ids)
        #expect(text == "1-3,7,9-11,40")
        #expect(ReviewBulk.decodeSnapshot(text) == ids)
        #expect(ReviewBulk.decodeSnapshot("5-1") == nil)
        #expect(ReviewBulk.decodeSnapshot("1-999999999") == nil)
        #expect(ReviewBulk.decodeSnapshot("x") == nil)
        #expect(ReviewBulk.decodeSnapshot("") == nil)
    }
}
