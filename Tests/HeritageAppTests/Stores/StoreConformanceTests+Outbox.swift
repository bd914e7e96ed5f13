import Foundation
import PlatformClient
import TestSupport
import Testing

@testable import HeritageApp

extension StoreConformanceTests {
    // MARK: Reports and their outbox

    @Test(arguments: StoreBackend.all) func theWorkerTakesAReportToStored(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let outbox = scene.stores.outbox
        let userID = try scene.user("a@example.org")
        let (id, localID) = try scene.queuedReport(userID: userID)
        #expect(try outbox.dueReports(now: scene.now, excluding: [], limit: 4) == [id])
        #expect(try outbox.dueReports(now: scene.now, excluding: [id], limit: 4).isEmpty)
        #expect(try outbox.session(userID: userID)?.sessionID == "platform-session")

        #expect(try outbox.beginCreate(id))
        #expect(try outbox.report(id: id)?.state == .creating)
        #expect(try outbox.report(id: id)?.createAttemptedAt != nil)
        #expect(try outbox.recordCreated(id, platformReportID: "P1"))
        #expect(try outbox.report(id: id)?.state == .created)
        #expect(try outbox.claimedReportIDs(among: ["P1", "P2"], userID: userID + 1) == ["P1"])

        let photos = try outbox.photos(reportID: id)
        #expect(photos.count == 2 && photos.allSatisfy { $0.state == .pending })
        #expect(try outbox.beginPhoto(photos[0].id, reportID: id))
        #expect(try outbox.report(id: id)?.state == .uploading)
        #expect(try outbox.photos(reportID: id)[0].state == .uploading)
        try outbox.resetPhoto(photos[0].id)
        #expect(try outbox.photos(reportID: id)[0].state == .pending)
        try outbox.recordPhotoStored(photos[0].id, reportID: id, platformPhotoID: "F1")
        #expect(try outbox.report(id: id)?.state == .uploading, "one photo to go")
        #expect(try scene.stores.reports.page(userID: userID, limit: nil).rows.first?.photosStored == 1)
        try outbox.recordPhotoStored(photos[1].id, reportID: id, platformPhotoID: nil)
        #expect(try outbox.report(id: id)?.state == .stored)
        #expect(try outbox.claimedPhotoIDs(reportID: id) == ["F1"])
        #expect(try outbox.countsByState()["stored"] == 1)
        #expect(
            try outbox.listing() == [
                OutboxListing(
                    localID: localID, state: "stored", attempts: 0, photosStored: 2, photoCount: 2,
                    platformReportID: "P1",
                    lastError: nil)
            ])
        #expect(try outbox.dueReports(now: scene.now, excluding: [], limit: 4).isEmpty)
    }

    @Test(arguments: StoreBackend.all) func failuresWaitAndResume(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let outbox = scene.stores.outbox
        let userID = try scene.user("a@example.org")
        let (id, localID) = try scene.queuedReport(userID: userID)

        try outbox.recordRetry(id, error: "HTTP 503", nextAttemptAt: scene.now + 60)
        #expect(try outbox.report(id: id)?.state == .retryWait)
        #expect(try outbox.report(id: id)?.attempts == 1)
        #expect(try outbox.nextDueTime() == scene.now + 60)
        #expect(try outbox.dueReports(now: scene.now, excluding: [], limit: 4).isEmpty)
        #expect(try outbox.dueReports(now: scene.now + 60, excluding: [], limit: 4) == [id])

        try outbox.recordNeedsAttention(id, message: "latitude out of range")
        #expect(try outbox.report(id: id)?.lastError == "latitude out of range")
        #expect(try outbox.reportIDs(in: .needsAttention) == [id])
        #expect(try outbox.reportID(localID: localID) == id)
        #expect(try outbox.reportID(localID: "no-such-report") == nil)
        #expect(try outbox.resume(id, from: [.needsAttention]))
        #expect(try outbox.report(id: id)?.state == .queued)
        #expect(try !outbox.resume(id, from: [.needsAttention]), "not in that state any more")

        #expect(try outbox.hold(id))
        #expect(try outbox.report(id: id)?.state == .held)
        #expect(try !outbox.hold(id))
        #expect(try outbox.dueReports(now: scene.now + 1000, excluding: [], limit: 4).isEmpty)
        #expect(try outbox.resume(id, from: [.held]))

        try outbox.recordWaitingForSignIn(id)
        #expect(try outbox.report(id: id)?.state == .waitingSignIn)
        let waiting = try outbox.usersWaitingForSignIn(now: scene.now)
        #expect(waiting.map(\.userID) == [userID])
        #expect(waiting.first?.session?.sessionID == "platform-session")
        let later = try outbox.usersWaitingForSignIn(now: scene.now + 7200)
        #expect(later.count == 1 && later.first?.session == nil, "expired")
        #expect(try outbox.resumeWaitingForSignIn(userID: userID) == 1)
        #expect(try outbox.report(id: id)?.state == .queued)
        #expect(try outbox.report(id: id)?.lastError == nil)
    }

    @Test(arguments: StoreBackend.all) func theListPagesTheUsersReportsNewestFirst(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let reports = scene.stores.reports
        let userID = try scene.user("a@example.org")
        let other = try scene.user("b@example.org", token: 2)
        // Made through the list's refresh, with their own creation times.
        let listed = (1...5).map { index in
            var report = PlatformReport(
                reportID: "P\(index)", creationTime: Date(timeIntervalSince1970: scene.now - Double(index) * 60))
            report.name = "Report \(index)"
            report.location = Location(latitude: 51.5, longitude: -0.12)
            return report
        }
        try reports.merge(listed, userID: userID, now: scene.now, listingStartedAt: scene.now)
        _ = try scene.stores.drafts.openDraft(userID: userID, now: scene.now, freshSince: 0)
        _ = try scene.queuedReport(userID: other)

        let page = try reports.page(userID: userID, limit: 2)
        #expect(page.total == 5, "drafts and other users' reports are not listed")
        #expect(page.rows.map(\.platformReportID) == ["P1", "P2"])
        #expect(page.rows.allSatisfy { $0.state == .stored })
        #expect(try reports.page(userID: userID, limit: nil).rows.count == 5)
        #expect(try reports.page(userID: userID, limit: 50) == reports.page(userID: userID, limit: nil))

        // Listed again without P5, by a listing sent after its row was last changed: deleted elsewhere.
        try reports.merge(Array(listed.prefix(4)), userID: userID, now: scene.now + 10, listingStartedAt: scene.now + 5)
        #expect(try reports.page(userID: userID, limit: nil).rows.map(\.platformReportID) == ["P1", "P2", "P3", "P4"])
        // And back when listed again.
        try reports.merge(listed, userID: userID, now: scene.now + 20, listingStartedAt: scene.now + 15)
        #expect(try reports.page(userID: userID, limit: nil).total == 5)
    }

    /// A deletion the platform refused for good needs attention; put back to work (`har outbox retry`,
    /// a coordinator's retry) it is deleted, never uploaded: its user asked for it to go.
    @Test(arguments: StoreBackend.all) func aRefusedDeletionResumesAsADeletion(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let reports = scene.stores.reports
        let outbox = scene.stores.outbox
        let userID = try scene.user("a@example.org")
        for created in [false, true] {
            let sending = try scene.queuedReport(userID: userID, photos: 1)
            #expect(try outbox.beginCreate(sending.id))
            if created { #expect(try outbox.recordCreated(sending.id, platformReportID: "P\(sending.id)")) }
            #expect(
                try reports.planDeletion(localID: sending.localID, userID: userID, now: scene.now).plan
                    == .handedToWorker)
            try outbox.recordNeedsAttention(sending.id, message: "InvalidSignatureException", status: 401, lease: nil)
            #expect(try outbox.report(id: sending.id)?.state == .needsAttention)
            #expect(try outbox.resume(sending.id, from: [.needsAttention]))
            #expect(try outbox.report(id: sending.id)?.state == .deleting, "created: \(created)")
            #expect(try outbox.dueReports(now: scene.now, excluding: [], limit: 8).contains(sending.id))
        }
        // A report refused while uploading still resumes as an upload.
        let refused = try scene.queuedReport(userID: userID)
        #expect(try outbox.beginCreate(refused.id))
        try outbox.recordNeedsAttention(refused.id, message: "latitude out of range", status: 400, lease: nil)
        #expect(try outbox.resume(refused.id, from: [.needsAttention]))
        #expect(try outbox.report(id: refused.id)?.state == .queued)
    }

    @Test(arguments: StoreBackend.all) func deletingFollowsHowFarTheReportGot(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let reports = scene.stores.reports
        let outbox = scene.stores.outbox
        let userID = try scene.user("a@example.org")

        // Never sent: cancelled here at once, its photos' files to go.
        let unsent = try scene.queuedReport(userID: userID)
        let unsentPhotos = try outbox.photos(reportID: unsent.id).map(\.localID)
        let cancelled = try reports.planDeletion(localID: unsent.localID, userID: userID, now: scene.now)
        #expect(cancelled.plan == .cancelledLocally)
        #expect(Set(cancelled.photos) == Set(unsentPhotos))
        #expect(try outbox.report(id: unsent.id)?.state == .cancelled)
        #expect(try reports.planDeletion(localID: unsent.localID, userID: userID, now: scene.now).plan == .notFound)

        // Part-way: handed to the worker, which finishes it.
        let sending = try scene.queuedReport(userID: userID)
        #expect(try outbox.beginCreate(sending.id))
        #expect(
            try reports.planDeletion(localID: sending.localID, userID: userID, now: scene.now).plan == .handedToWorker)
        #expect(try outbox.report(id: sending.id)?.state == .deleting)
        #expect(try !outbox.beginCreate(sending.id), "the worker's next step sees the deletion")
        try outbox.finishDeletion(sending.id, wasOnPlatform: false)
        #expect(try outbox.report(id: sending.id)?.state == .cancelled)

        // Stored: the platform first, then deleted here.
        let stored = try scene.queuedReport(userID: userID, photos: 1)
        let storedPhoto = try #require(try outbox.photos(reportID: stored.id).first)
        #expect(try outbox.beginCreate(stored.id))
        #expect(try outbox.recordCreated(stored.id, platformReportID: "P9"))
        #expect(try outbox.beginPhoto(storedPhoto.id, reportID: stored.id))
        try outbox.recordPhotoStored(storedPhoto.id, reportID: stored.id, platformPhotoID: "F9")
        #expect(try outbox.report(id: stored.id)?.state == .stored)
        #expect(
            try reports.planDeletion(localID: stored.localID, userID: userID + 1, now: scene.now).plan == .notFound,
            "another user's")
        #expect(
            try reports.planDeletion(localID: stored.localID, userID: userID, now: scene.now).plan
                == .deleteOnPlatform(reportID: "P9"))
        #expect(try outbox.report(id: stored.id)?.state == .stored, "nothing changes before the platform's answer")
        _ = try reports.markDeleted(localID: stored.localID, userID: userID, now: scene.now + 1)
        #expect(try outbox.report(id: stored.id)?.state == .deleted)
        #expect(try reports.page(userID: userID, limit: nil).rows.isEmpty)

        // Photo files of ended reports may go once their report changed within the window.
        let removable = try outbox.removablePhotos(stored: 0...0, ended: (scene.now - 1)...(scene.now + 3600))
        let sendingPhotos = try outbox.photos(reportID: sending.id).map(\.localID)
        #expect(Set(removable) == Set(unsentPhotos + sendingPhotos + [storedPhoto.localID]))
        #expect(try outbox.removablePhotos(stored: 0...(scene.now + 3600), ended: 0...0) == [storedPhoto.localID])
    }

    /// OFF-02/04: a device's report id makes one draft however often it is sent; the creation page
    /// never takes it up and Cancel there leaves it; another user's id is refused.
    @Test("OFF-04: a device report is opened once and kept apart", arguments: StoreBackend.all)
    func aDeviceReportIsOpenedOnceAndKeptApart(backend: StoreBackend)
        throws
    {
        let scene = try StoreScene(backend)
        let drafts = scene.stores.drafts
        let userID = try scene.user("a@example.org")
        let otherID = try scene.user("b@example.org", token: 2)
        let id = UUID().uuidString.lowercased()
        guard case .draft(let first) = try drafts.openDeviceDraft(localID: id, userID: userID, now: scene.now) else {
            Issue.record("not opened as a draft")
            return
        }
        guard case .draft(let again) = try drafts.openDeviceDraft(localID: id, userID: userID, now: scene.now + 1)
        else {
            Issue.record("not the same draft")
            return
        }
        #expect(first.id == again.id && again.localID == id)
        guard case .elsewhere = try drafts.openDeviceDraft(localID: id, userID: otherID, now: scene.now) else {
            Issue.record("another user's id was taken")
            return
        }
        let (pageDraft, isNew) = try drafts.openDraft(userID: userID, now: scene.now, freshSince: 0)
        #expect(isNew && pageDraft.localID != id, "the creation page makes its own draft")
        #expect(try drafts.cancelDrafts(userID: userID).isEmpty)
        #expect(try drafts.draft(localID: id, userID: userID) != nil, "Cancel on the page leaves the device's")
        #expect(try drafts.isSubmitted(localID: id, userID: userID) == false)
        _ = try drafts.addPhoto(StoreScene.photo(), to: first, now: scene.now)
        #expect(
            try drafts.submit(draftLocalID: id, userID: userID, fields: StoreScene.fields, token: "d1", now: scene.now)
                == .queued)
        #expect(try drafts.isSubmitted(localID: id, userID: userID))
        #expect(try drafts.isSubmitted(localID: id, userID: otherID) == false)
        guard case .submitted = try drafts.openDeviceDraft(localID: id, userID: userID, now: scene.now) else {
            Issue.record("a submitted report was opened again")
            return
        }
    }
}
