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
                    try due(scene.now + ReviewDelivery.withdrawalDelaySeconds + 1), "\(reached): withdrawn after it")
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
    /// recorded, not bound, until confirmed; a verified one binds; a role is read by account only.
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
        #expect(try review.grants().first?.firstSignInAddress == "192.0.2.7")
        #expect(try review.confirm(email: "NEW@example.org", actor: "cli:op", now: scene.now) == .coordinator)
        #expect(try review.role(userID: stranger) == .coordinator)

        try review.grant(email: "ver@example.org", role: .admin, actor: "cli:op", now: scene.now)
        let verified = try scene.user("ver@example.org", token: 2)
        #expect(
            try review.signedIn(
                email: "ver@example.org", accountID: "account-ver@example.org", verified: true, address: "x",
                now: scene.now) == .bound(.admin))
        #expect(try review.role(userID: verified) == .admin)

        // Signed in before the grant: bound at once.
        let known = try scene.user("known@example.org", token: 3)
        try review.grant(email: "known@example.org", role: .coordinator, actor: "cli:op", now: scene.now)
        #expect(try review.role(userID: known) == .coordinator)

        // The configuration's coordinators follow the same rule, and leave with it.
        try review.syncConfigured(emails: ["conf@example.org"], now: scene.now)
        #expect(try review.grants().contains { $0.email == "conf@example.org" && $0.isPending })
        try review.syncConfigured(emails: [], now: scene.now)
        #expect(try !review.grants().contains { $0.email == "conf@example.org" })
        let actions = try review.audit(AuditFilter(), beforeID: nil, limit: 20).map(\.action)
        #expect(actions.contains("role_confirm"))
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
