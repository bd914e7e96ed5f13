import Foundation
import Testing

@testable import HeritageApp

/// `KioskStore` through its protocol, once per backend: kiosks, one-time enrolment, the
/// device credential, revocation, a visitor's draft, receipts and their claims, each step audited.
@Suite struct KioskStoreConformanceTests {
    static func hash(_ seed: UInt8) -> [UInt8] { Array(repeating: seed, count: 32) }

    /// KIO-01, KIO-07: an enrolment token works once, within its time, and not after a revoke; the
    /// credential finds the kiosk; the list shows its health; every step is in the audit log.
    @Test(arguments: StoreBackend.all) func kio01EnrolOnceRevokeAudited(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let coordinator = try scene.user("c@example.org")
        // A kiosk takes visits while its account holds a coordinator's role (REV-12).
        try scene.grantConfirmed("c@example.org")
        let kiosks = scene.stores.kiosks
        let id = try kiosks.create(
            NewKiosk(siteName: "Abbey", latitude: 51.5, longitude: -0.1, userID: coordinator), actor: "c@example.org",
            now: scene.now)
        #expect(
            try kiosks.issueEnrolment(
                kioskID: id, tokenHash: Self.hash(7), expiresAt: scene.now + 600, actor: "c@example.org", now: scene.now
            ))
        #expect(
            try kiosks.enrol(tokenHash: Self.hash(7), credentialHash: Self.hash(8), now: scene.now + 601) == nil,
            "expired")
        #expect(
            try kiosks.issueEnrolment(
                kioskID: id, tokenHash: Self.hash(9), expiresAt: scene.now + 600, actor: "c@example.org", now: scene.now
            ))
        #expect(
            try kiosks.enrol(tokenHash: Self.hash(7), credentialHash: Self.hash(8), now: scene.now) == nil,
            "replaced")
        #expect(try kiosks.enrol(tokenHash: Self.hash(9), credentialHash: Self.hash(8), now: scene.now) == id)
        #expect(
            try kiosks.enrol(tokenHash: Self.hash(9), credentialHash: Self.hash(10), now: scene.now) == nil,
            "once")
        let found = try #require(try kiosks.kiosk(credentialHash: Self.hash(8)))
        #expect(found.siteName == "Abbey" && found.userID == coordinator && !found.isRevoked)
        try kiosks.touch(kioskID: id, appVersion: "1.2", now: scene.now + 5)
        let summary = try #require(try kiosks.kiosks(dayStart: scene.now - 10, now: scene.now).first)
        #expect(summary.kiosk.lastSeenAt == scene.now + 5 && summary.kiosk.appVersion == "1.2")
        #expect(summary.accountEmail == "c@example.org" && summary.accountSignedIn)
        #expect(try kiosks.revoke(id: id, actor: "c@example.org", now: scene.now + 6))
        #expect(try !kiosks.revoke(id: id, actor: "c@example.org", now: scene.now + 7))
        #expect(try kiosks.kiosk(credentialHash: Self.hash(8)) == nil, "the credential ends with the revoke")
        #expect(try kiosks.kiosk(id: id)?.isRevoked == true)
        #expect(
            try !kiosks.issueEnrolment(
                kioskID: id, tokenHash: Self.hash(11), expiresAt: scene.now + 600, actor: "c@example.org",
                now: scene.now))
        let audit = try scene.stores.review.audit(AuditFilter(), beforeID: nil, limit: 20).map(\.action).filter {
            $0.hasPrefix("kiosk")
        }
        #expect(
            audit == ["kiosk_revoke", "kiosk_enrol", "kiosk_enrolment_link", "kiosk_enrolment_link", "kiosk_create"])
    }

    /// KIO-04, KIO-05, KIO-06: a visit is a kiosk draft of the kiosk's account; a new visit or its end
    /// discards it with its photos; a submitted visit gets the site's location when it had none, a
    /// receipt, waits for review under the default policy, and is sent anonymous once approved; the
    /// receipt is claimed once, with the right secret, before it expires.
    @Test(arguments: StoreBackend.all) func kio05VisitSubmitReceiptClaim(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let coordinator = try scene.user("c@example.org")
        // A kiosk takes visits while its account holds a coordinator's role (REV-12).
        try scene.grantConfirmed("c@example.org")
        let visitor = try scene.user("v@example.org", token: 2)
        let kiosks = scene.stores.kiosks
        let orphan = try kiosks.create(NewKiosk(siteName: "No account"), actor: "cli:op", now: scene.now)
        #expect(
            try kiosks.startVisit(kioskID: orphan, localID: UUID().uuidString.lowercased(), now: scene.now).draft
                == nil, "no account: no visit")
        let id = try kiosks.create(
            NewKiosk(siteName: "Abbey", latitude: 51.5, longitude: -0.1, radiusMetres: 80, userID: coordinator),
            actor: "c@example.org", now: scene.now)
        // Visitor A adds a photo and walks away; the next visit discards it.
        let first = try #require(
            try kiosks.startVisit(
                kioskID: id, localID: UUID().uuidString.lowercased(),
                now: scene.now
            ).draft)
        let photoA = UUID().uuidString.lowercased()
        _ = try scene.stores.drafts.addPhoto(StoreScene.photo(photoA), to: first, now: scene.now)
        #expect(try kiosks.visit(kioskID: id)?.localID == first.localID)
        let second = try kiosks.startVisit(kioskID: id, localID: UUID().uuidString.lowercased(), now: scene.now)
        #expect(second.discarded == [photoA])
        #expect(try scene.stores.drafts.draft(localID: first.localID, userID: first.userID) == nil)
        #expect(try kiosks.endVisit(kioskID: id, now: scene.now) == [])
        #expect(try kiosks.visit(kioskID: id) == nil)
        // Visitor B submits a report whose photo has no location.
        let visit = try #require(
            try kiosks.startVisit(
                kioskID: id, localID: UUID().uuidString.lowercased(),
                now: scene.now
            ).draft)
        _ = try scene.stores.drafts.addPhoto(StoreScene.photo(), to: visit, now: scene.now)
        #expect(
            try scene.stores.drafts.submit(
                draftLocalID: visit.localID, userID: visit.userID, fields: StoreScene.fields, token: UUID().uuidString,
                now: scene.now) == .queued)
        let reportID = try #require(try scene.stores.outbox.reportID(localID: visit.localID))
        let receipt = NewReceipt(
            code: "K7Q4-M2XD", secretHash: Self.hash(3), expiresAt: scene.now + 100,
            usedSiteLocation: true)
        #expect(try kiosks.recordSubmission(kioskID: id, reportID: reportID, receipt: receipt, now: scene.now))
        #expect(try kiosks.visit(kioskID: id) == nil)
        let status = try #require(try kiosks.receipt(code: "K7Q4-M2XD"))
        #expect(status.siteName == "Abbey" && status.review == "received" && status.latitude == 51.5)
        #expect(
            try scene.stores.outbox.dueReports(now: scene.now + 1, excluding: [], limit: 10).isEmpty,
            "a kiosk report waits for review")
        let approve = ReviewDecision(to: .approved, from: [.received], action: "approve")
        #expect(try scene.stores.review.decide(approve, id: reportID, actor: "c@example.org", now: scene.now) == .done)
        #expect(try scene.stores.outbox.dueReports(now: scene.now + 1, excluding: [], limit: 10) == [reportID])
        #expect(try scene.stores.outbox.report(id: reportID)?.isAnonymous == true)
        let summary = try #require(
            try kiosks.kiosks(dayStart: scene.now - 1, now: scene.now).first { $0.kiosk.id == id })
        #expect(summary.reportsToday == 1 && summary.waitingForReview == 0)
        // Claims.
        #expect(
            try kiosks.claim(code: "K7Q4-M2XD", secretHash: Self.hash(4), userID: visitor, now: scene.now)
                == .wrongSecret)
        #expect(
            try kiosks.claim(code: "NOPE-NOPE", secretHash: Self.hash(3), userID: visitor, now: scene.now)
                == .unknown)
        #expect(
            try kiosks.claim(code: "K7Q4-M2XD", secretHash: Self.hash(3), userID: visitor, now: scene.now + 100)
                == .expired)
        #expect(
            try kiosks.claim(code: "K7Q4-M2XD", secretHash: Self.hash(3), userID: visitor, now: scene.now)
                == .claimed)
        #expect(
            try kiosks.claim(code: "K7Q4-M2XD", secretHash: Self.hash(3), userID: coordinator, now: scene.now)
                == .alreadyClaimed(mine: false), "single use")
        #expect(try kiosks.claimed(userID: visitor).map(\.code) == ["K7Q4-M2XD"])
        let actions = try scene.stores.review.audit(AuditFilter(), beforeID: nil, limit: 20).map(\.action)
        #expect(actions.contains("kiosk_submit") && actions.contains("receipt_claim"))
    }

    /// KIO-06: a claimed report's later changes (a review decision, the upload's steps, its removal) move
    /// the claimant's list version, the list's ETag, in the same transaction: a 304 never hides them.
    @Test(arguments: StoreBackend.all) func kio06ClaimedReportChangesMoveTheClaimantsListVersion(
        _ backend: StoreBackend
    ) throws {
        let scene = try StoreScene(backend)
        let coordinator = try scene.user("c@example.org")
        // A kiosk takes visits while its account holds a coordinator's role (REV-12).
        try scene.grantConfirmed("c@example.org")
        let visitor = try scene.user("v@example.org", token: 2)
        let kiosks = scene.stores.kiosks
        let id = try kiosks.create(
            NewKiosk(siteName: "Abbey", latitude: 51.5, longitude: -0.1, userID: coordinator), actor: "c@example.org",
            now: scene.now)
        let visit = try #require(
            try kiosks.startVisit(kioskID: id, localID: UUID().uuidString.lowercased(), now: scene.now).draft)
        _ = try scene.stores.drafts.addPhoto(StoreScene.photo(), to: visit, now: scene.now)
        #expect(
            try scene.stores.drafts.submit(
                draftLocalID: visit.localID, userID: visit.userID, fields: StoreScene.fields, token: UUID().uuidString,
                now: scene.now) == .queued)
        let reportID = try #require(try scene.stores.outbox.reportID(localID: visit.localID))
        let receipt = NewReceipt(
            code: "K7Q4-M2XD", secretHash: Self.hash(3), expiresAt: scene.now + 100, usedSiteLocation: false)
        #expect(try kiosks.recordSubmission(kioskID: id, reportID: reportID, receipt: receipt, now: scene.now))
        func expectMoves(_ what: String, _ change: () throws -> Void) throws {
            let before = try scene.stores.reports.listVersion(userID: visitor)
            try change()
            #expect(try scene.stores.reports.listVersion(userID: visitor) != before, "\(what) hid from the claimant")
        }
        try expectMoves("the claim") {
            let outcome = try kiosks.claim(code: "K7Q4-M2XD", secretHash: Self.hash(3), userID: visitor, now: scene.now)
            #expect(outcome == .claimed)
        }
        let approve = ReviewDecision(to: .approved, from: [.received], action: "approve")
        try expectMoves("the approval") {
            let outcome = try scene.stores.review.decide(approve, id: reportID, actor: "c@example.org", now: scene.now)
            #expect(outcome == .done)
        }
        try expectMoves("the upload's start") {
            let began = try scene.stores.outbox.beginCreate(reportID)
            #expect(began)
        }
        try expectMoves("the report stored") {
            let recorded = try scene.stores.outbox.recordCreated(reportID, platformReportID: "P1")
            #expect(recorded)
        }
    }

    /// KIO-05, off the network: a report the tablet held is made once by its id as a kiosk draft of the
    /// kiosk's account, beside (never instead of) the current visit; the same id again finds it, then
    /// "submitted"; another kiosk's id is elsewhere; a revoked kiosk takes none.
    @Test(arguments: StoreBackend.all) func kio05DeviceReportMadeOnceBesideTheVisit(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let coordinator = try scene.user("c@example.org")
        // A kiosk takes visits while its account holds a coordinator's role (REV-12).
        try scene.grantConfirmed("c@example.org")
        let kiosks = scene.stores.kiosks
        let id = try kiosks.create(
            NewKiosk(siteName: "Abbey", latitude: 51.5, longitude: -0.1, userID: coordinator), actor: "c@example.org",
            now: scene.now)
        let other = try kiosks.create(NewKiosk(siteName: "Mill", userID: coordinator), actor: "c", now: scene.now)
        let visit = try #require(
            try kiosks.startVisit(kioskID: id, localID: UUID().uuidString.lowercased(), now: scene.now).draft)
        let held = UUID().uuidString.lowercased()
        guard case .draft(let draft) = try kiosks.openDeviceReport(kioskID: id, localID: held, now: scene.now) else {
            Issue.record("no draft for the held report")
            return
        }
        #expect(draft.userID != coordinator && draft.localID == held)
        guard case .draft(let again) = try kiosks.openDeviceReport(kioskID: id, localID: held, now: scene.now + 1)
        else {
            Issue.record("the same id did not find the same draft")
            return
        }
        #expect(again.id == draft.id)
        #expect(try kiosks.visit(kioskID: id)?.localID == visit.localID, "the visitor's draft stays")
        if case .elsewhere = try kiosks.openDeviceReport(kioskID: other, localID: held, now: scene.now) {
        } else {
            Issue.record("another kiosk reached the held report")
        }
        _ = try scene.stores.drafts.addPhoto(StoreScene.photo(), to: draft, now: scene.now)
        #expect(
            try scene.stores.drafts.submit(
                draftLocalID: held, userID: draft.userID, fields: StoreScene.fields, token: UUID().uuidString,
                now: scene.now) == .queued)
        if case .submitted = try kiosks.openDeviceReport(kioskID: id, localID: held, now: scene.now) {
        } else {
            Issue.record("a submitted report opened again")
        }
        let reportID = try #require(try scene.stores.outbox.reportID(localID: held))
        let receipt = NewReceipt(
            code: "H3LD-0FF1", secretHash: Self.hash(5), expiresAt: scene.now + 100, usedSiteLocation: true)
        #expect(try kiosks.recordSubmission(kioskID: id, reportID: reportID, receipt: receipt, now: scene.now))
        #expect(try kiosks.receipt(code: "H3LD-0FF1")?.review == "received")
        #expect(
            try scene.stores.outbox.dueReports(now: scene.now + 1, excluding: [], limit: 10).isEmpty,
            "it waits for review")
        #expect(try kiosks.revoke(id: id, actor: "c", now: scene.now))
        #expect(
            try kiosks.openDeviceReport(kioskID: id, localID: UUID().uuidString.lowercased(), now: scene.now) == nil)
    }

    /// Off the network, the server's own screens: a visit begun on the server that Submit could
    /// not finish is held on the tablet under the visit's own id, with the form's token. Sent later by the
    /// device routes it finds the visit's draft (and the photos the server has) while the visit lives, is
    /// made again (photos from the tablet) once the visit was discarded, and is "submitted" when the form's
    /// POST did reach the server: one report each time.
    @Test(arguments: StoreBackend.all) func kio05HeldVisitSentUnderTheVisitsOwnID(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let coordinator = try scene.user("c@example.org")
        // A kiosk takes visits while its account holds a coordinator's role (REV-12).
        try scene.grantConfirmed("c@example.org")
        let kiosks = scene.stores.kiosks
        let drafts = scene.stores.drafts
        let id = try kiosks.create(NewKiosk(siteName: "Abbey", userID: coordinator), actor: "c", now: scene.now)
        // The visit lives: its own draft, with the photo taken on the server's screen.
        let alive = try #require(
            try kiosks.startVisit(kioskID: id, localID: UUID().uuidString.lowercased(), now: scene.now).draft)
        let onServer = UUID().uuidString.lowercased()
        _ = try drafts.addPhoto(StoreScene.photo(onServer), to: alive, now: scene.now)
        guard case .draft(let found) = try kiosks.openDeviceReport(kioskID: id, localID: alive.localID, now: scene.now)
        else {
            Issue.record("the living visit was not found by its id")
            return
        }
        let photoIDs = try drafts.photos(reportID: found.id).map(\.localID)
        #expect(found.id == alive.id && photoIDs == [onServer])
        #expect(
            try drafts.submit(
                draftLocalID: alive.localID, userID: alive.userID, fields: StoreScene.fields, token: "t1",
                now: scene.now
            )
                == .queued)
        #expect(try kiosks.visit(kioskID: id) == nil, "submitted: no visit left")
        // The form's POST had reached the server: the held copy is told "submitted".
        if case .submitted = try kiosks.openDeviceReport(kioskID: id, localID: alive.localID, now: scene.now) {
        } else {
            Issue.record("a visit submitted by the form opened again")
        }
        // The visit discarded (the attract screen came first): made again under its id, photos from the tablet.
        let gone = try #require(
            try kiosks.startVisit(kioskID: id, localID: UUID().uuidString.lowercased(), now: scene.now).draft)
        let heldPhoto = UUID().uuidString.lowercased()
        _ = try drafts.addPhoto(StoreScene.photo(heldPhoto), to: gone, now: scene.now)
        #expect(try kiosks.endVisit(kioskID: id, now: scene.now) == [heldPhoto])
        guard case .draft(let again) = try kiosks.openDeviceReport(kioskID: id, localID: gone.localID, now: scene.now)
        else {
            Issue.record("the discarded visit was not made again")
            return
        }
        #expect(try drafts.photos(reportID: again.id).isEmpty, "the tablet sends its photos again")
        _ = try drafts.addPhoto(StoreScene.photo(heldPhoto), to: again, now: scene.now)
        #expect(
            try drafts.submit(
                draftLocalID: gone.localID, userID: gone.userID, fields: StoreScene.fields, token: "t2", now: scene.now)
                == .queued)
        #expect(try scene.stores.outbox.reportID(localID: gone.localID) != nil)
    }
}
