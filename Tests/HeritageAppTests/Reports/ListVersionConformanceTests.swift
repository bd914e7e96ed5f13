import Foundation
import PlatformClient
import Testing

@testable import HeritageApp

/// `ReportStore.listVersion` changes with every change to what a user's list shows, in the
/// same transaction, whoever makes it (the screens, a submit, the upload worker), and only then. The
/// list's ETag is made from it: a version that failed to move would hide a status change. Written
/// against the protocols, run for every backend.
@Suite struct ListVersionConformanceTests {
    /// Runs `change` and checks that the user's version moved (and another user's did not).
    static func expectBump(
        _ scene: StoreScene, _ userID: Int64, other: Int64, _ what: String, _ change: () throws -> Void
    ) throws {
        let before = try scene.stores.reports.listVersion(userID: userID)
        let otherBefore = try scene.stores.reports.listVersion(userID: other)
        let pageBefore = try scene.stores.reports.page(userID: userID, limit: nil)
        try change()
        let after = try scene.stores.reports.listVersion(userID: userID)
        #expect(after != before, "\(what) did not change the list version")
        #expect(try scene.stores.reports.listVersion(userID: other) == otherBefore, "\(what) touched another user")
        // The version moves whenever the list itself changed (never the other way round).
        if try scene.stores.reports.page(userID: userID, limit: nil) != pageBefore {
            #expect(after != before)
        }
    }

    static func check(_ condition: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(condition, sourceLocation: sourceLocation)
    }

    static func expectSame(_ scene: StoreScene, _ userID: Int64, _ what: String, _ change: () throws -> Void) throws {
        let before = try scene.stores.reports.listVersion(userID: userID)
        try change()
        #expect(try scene.stores.reports.listVersion(userID: userID) == before, "\(what) changed the version")
    }

    @Test(arguments: StoreBackend.all) func everyWorkerTransitionMovesTheVersion(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let outbox = scene.stores.outbox
        let userID = try scene.user("a@example.org")
        let other = try scene.user("b@example.org", token: 2)
        _ = try scene.queuedReport(userID: other)

        // A draft is not listed: opening it and adding photos leave the version alone.
        let (draft, _) = try scene.stores.drafts.openDraft(userID: userID, now: scene.now, freshSince: 0)
        try Self.expectSame(scene, userID, "a draft's photo") {
            _ = try scene.stores.drafts.addPhoto(StoreScene.photo(), to: draft, now: scene.now)
            _ = try scene.stores.drafts.addPhoto(StoreScene.photo(), to: draft, now: scene.now)
        }
        try Self.expectSame(scene, userID, "reads") {
            _ = try scene.stores.reports.page(userID: userID, limit: 50)
            _ = try outbox.listing()
        }
        try Self.expectBump(scene, userID, other: other, "submit") {
            Self.check(
                try scene.stores.drafts.submit(
                    draftLocalID: draft.localID, userID: userID, fields: StoreScene.fields, token: "t1",
                    now: scene.now) == .queued)
        }
        let id = try #require(try outbox.reportID(localID: draft.localID))
        try Self.expectBump(scene, userID, other: other, "beginCreate") { Self.check(try outbox.beginCreate(id)) }
        try Self.expectBump(scene, userID, other: other, "recordRetry") {
            try outbox.recordRetry(id, error: "platform busy", nextAttemptAt: scene.now)
        }
        try Self.expectBump(scene, userID, other: other, "resume") {
            Self.check(try outbox.resume(id, from: [.retryWait]))
        }
        try Self.expectBump(scene, userID, other: other, "beginCreate again") { Self.check(try outbox.beginCreate(id)) }
        try Self.expectBump(scene, userID, other: other, "recordCreated") {
            Self.check(try outbox.recordCreated(id, platformReportID: "P1"))
        }
        let photos = try outbox.photos(reportID: id)
        try Self.expectBump(scene, userID, other: other, "beginPhoto") {
            Self.check(try outbox.beginPhoto(photos[0].id, reportID: id))
        }
        try Self.expectBump(scene, userID, other: other, "recordPhotoStored (1 of 2 sent)") {
            try outbox.recordPhotoStored(photos[0].id, reportID: id, platformPhotoID: "F1")
        }
        try Self.expectBump(scene, userID, other: other, "beginPhoto 2") {
            Self.check(try outbox.beginPhoto(photos[1].id, reportID: id))
        }
        try Self.expectBump(scene, userID, other: other, "resetPhoto") { try outbox.resetPhoto(photos[1].id) }
        try Self.expectBump(scene, userID, other: other, "recordPhotoStored (stored)") {
            try outbox.recordPhotoStored(photos[1].id, reportID: id, platformPhotoID: "F2")
        }
        Self.check(try outbox.report(id: id)?.state == .stored)

        // The worker's other transitions, on a second report.
        let (second, _) = try scene.queuedReport(userID: userID, photos: 1)
        try Self.expectBump(scene, userID, other: other, "hold") { Self.check(try outbox.hold(second)) }
        try Self.expectBump(scene, userID, other: other, "resume from held") {
            Self.check(try outbox.resume(second, from: [.held]))
        }
        try Self.expectBump(scene, userID, other: other, "recordNeedsAttention") {
            try outbox.recordNeedsAttention(second, message: "refused")
        }
        try Self.expectBump(scene, userID, other: other, "resume from attention") {
            Self.check(try outbox.resume(second, from: [.needsAttention]))
        }
        try Self.expectBump(scene, userID, other: other, "recordWaitingForSignIn") {
            try outbox.recordWaitingForSignIn(second)
        }
        try Self.expectBump(scene, userID, other: other, "resumeWaitingForSignIn") {
            Self.check(try outbox.resumeWaitingForSignIn(userID: userID) == 1)
        }
    }

    @Test(arguments: StoreBackend.all) func theListsOwnChangesMoveTheVersion(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let reports = scene.stores.reports
        let userID = try scene.user("a@example.org")
        let other = try scene.user("b@example.org", token: 2)
        let listed = (1...3).map { index in
            var report = PlatformReport(
                reportID: "P\(index)", creationTime: Date(timeIntervalSince1970: scene.now - Double(index) * 60))
            report.name = "Report \(index)"
            return report
        }
        try Self.expectBump(scene, userID, other: other, "merge of new reports") {
            try reports.merge(listed, userID: userID, now: scene.now, listingStartedAt: scene.now)
        }
        try Self.expectSame(scene, userID, "merge of the same listing") {
            try reports.merge(listed, userID: userID, now: scene.now + 1, listingStartedAt: scene.now + 1)
        }
        var renamed = listed
        renamed[0].name = "Renamed on the platform"
        try Self.expectBump(scene, userID, other: other, "merge of a renamed report") {
            try reports.merge(renamed, userID: userID, now: scene.now + 2, listingStartedAt: scene.now + 2)
        }
        let stored = try #require(try reports.page(userID: userID, limit: nil).rows.first)
        // Deleting a stored report asks the platform first: nothing changes here until it answers.
        try Self.expectSame(scene, userID, "planDeletion of a stored report") {
            Self.check(
                try reports.planDeletion(localID: stored.localID, userID: userID, now: scene.now + 3).plan
                    == .deleteOnPlatform(reportID: "P1"))
        }
        try Self.expectBump(scene, userID, other: other, "markDeleted") {
            _ = try reports.markDeleted(localID: stored.localID, userID: userID, now: scene.now + 4)
        }
        let (_, unsent) = try scene.queuedReport(userID: userID, photos: 1)
        try Self.expectBump(scene, userID, other: other, "planDeletion of an unsent report") {
            Self.check(
                try reports.planDeletion(localID: unsent, userID: userID, now: scene.now + 5).plan == .cancelledLocally)
        }
        // Part-way through the transfer: handed to the worker, which finishes the deletion.
        let (sending, sendingLocalID) = try scene.queuedReport(userID: userID, photos: 1)
        Self.check(try scene.stores.outbox.beginCreate(sending))
        try Self.expectBump(scene, userID, other: other, "planDeletion of a report in transfer") {
            Self.check(
                try reports.planDeletion(localID: sendingLocalID, userID: userID, now: scene.now + 6).plan
                    == .handedToWorker)
        }
        try Self.expectBump(scene, userID, other: other, "finishDeletion") {
            try scene.stores.outbox.finishDeletion(sending, wasOnPlatform: false)
        }
    }

    /// The list shows the reviewers' word on the user's reports (`ReviewNotices`: review state, message,
    /// reason): a decision, and the reporter's reply that answers one, move the owner's version, or a 304
    /// (and a kept page) would go on showing the notice as it was.
    @Test(arguments: StoreBackend.all) func reviewDecisionsMoveTheOwnersVersion(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let review = scene.stores.review
        let userID = try scene.user("a@example.org")
        let other = try scene.user("b@example.org", token: 2)
        let (id, localID) = try scene.queuedReport(userID: userID, photos: 1)
        try Self.expectBump(scene, userID, other: other, "needs_info") {
            Self.check(
                try review.decide(
                    ReviewDecision(to: .needsInfo, from: [.received], message: "Which side?", action: "needs_info"),
                    id: id, actor: "coordinator@example.org", now: scene.now) == .done)
        }
        try Self.expectBump(scene, userID, other: other, "the reporter's reply") {
            Self.check(
                try review.reply(localID: localID, userID: userID, fields: nil, note: "North", now: scene.now + 1))
        }
        try Self.expectBump(scene, userID, other: other, "approve") {
            Self.check(
                try review.decide(
                    ReviewDecision(to: .approved, from: [.received, .needsInfo], action: "approve"), id: id,
                    actor: "coordinator@example.org", now: scene.now + 2) == .done)
        }
    }

    /// Drafts are not listed: making, filling, cancelling and sweeping them (the creation page's and the
    /// device's alike) never move the version, whatever the backend's triggers do with their rows.
    @Test(arguments: StoreBackend.all) func draftsNeverMoveTheVersion(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let drafts = scene.stores.drafts
        let userID = try scene.user("a@example.org")
        _ = try scene.queuedReport(userID: userID)
        let deviceID = "00000000-0000-4000-8000-000000000001"
        try Self.expectSame(scene, userID, "drafts made, filled and emptied") {
            let (draft, _) = try drafts.openDraft(userID: userID, now: scene.now, freshSince: 0)
            let photo = StoreScene.photo()
            _ = try drafts.addPhoto(photo, to: draft, now: scene.now)
            Self.check(try drafts.deletePhoto(localID: photo.localID, draft: draft, now: scene.now))
            _ = try drafts.addPhoto(StoreScene.photo(), to: draft, now: scene.now)
            guard
                case .draft(let device) = try drafts.openDeviceDraft(localID: deviceID, userID: userID, now: scene.now)
            else { throw StoreError(.invariant, "no device draft") }
            _ = try drafts.addPhoto(StoreScene.photo(), to: device, now: scene.now)
        }
        try Self.expectSame(scene, userID, "Cancel") { Self.check(try drafts.cancelDrafts(userID: userID).count == 1) }
        try Self.expectSame(scene, userID, "the sweep of abandoned drafts") {
            Self.check(
                try drafts.sweepDrafts(untouchedSince: scene.now + 1, now: scene.now + 2, forgetBefore: 0).count == 1)
        }
        Self.check(try drafts.draft(localID: deviceID, userID: userID) == nil)
    }
}
