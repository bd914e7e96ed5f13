import Foundation
import Testing

@testable import HeritageApp

/// The dashboard's counters (REV-05) under each review policy, once per backend: what each counts, that
/// its filter (`need=`) finds the same reports, and that "waiting for approval" is exactly what the
/// worker leaves alone (docs/REVIEW.md has the table).
@Suite struct ReviewCountsTests {
    struct Scene {
        let scene: StoreScene
        var volunteerQueued: Int64 = 0
        var volunteerStored: Int64 = 0
        var kioskQueued: Int64 = 0
        var replied: Int64 = 0
        var approvedFailed: Int64 = 0
        var approvedHeld: Int64 = 0
    }

    static let approve = ReviewDecision(to: .approved, from: [.received, .needsInfo], action: "approve")

    /// One report of each kind the counters tell apart.
    static func seed(_ backend: StoreBackend) throws -> Scene {
        let scene = try StoreScene(backend)
        let review = scene.stores.review
        var seeded = Scene(scene: scene)
        let coordinator = try scene.user("c@example.org")
        try scene.grantConfirmed("c@example.org")
        let volunteer = try scene.user("v@example.org", token: 2)
        seeded.volunteerQueued = try scene.queuedReport(userID: volunteer, name: "Queued").id
        seeded.volunteerStored = try scene.queuedReport(userID: volunteer, name: "Stored").id
        try ReviewGateStoreTests.reach(.stored, scene, id: seeded.volunteerStored)
        // A kiosk's visit, submitted: origin `kiosk`.
        let kiosk = try scene.stores.kiosks.create(
            NewKiosk(siteName: "Abbey", latitude: 51.5, longitude: -0.1, radiusMetres: 80, userID: coordinator),
            actor: "c@example.org", now: scene.now)
        let visit = try #require(
            try scene.stores.kiosks.startVisit(kioskID: kiosk, localID: UUID().uuidString.lowercased(), now: scene.now)
                .draft)
        _ = try scene.stores.drafts.addPhoto(StoreScene.photo(), to: visit, now: scene.now)
        #expect(
            try scene.stores.drafts.submit(
                draftLocalID: visit.localID, userID: visit.userID, fields: StoreScene.fields,
                token: UUID().uuidString, now: scene.now) == .queued)
        seeded.kioskQueued = try #require(try scene.stores.outbox.reportID(localID: visit.localID))
        // Asked for information, then answered by the reporter: back in `received`, replied.
        let (asked, askedLocalID) = try scene.queuedReport(userID: volunteer, name: "Asked")
        seeded.replied = asked
        let needsInfo = ReviewDecision(to: .needsInfo, from: [.received], message: "Which?", action: "needs_info")
        #expect(try review.decide(needsInfo, id: asked, actor: "c@example.org", now: scene.now) == .done)
        #expect(try review.reply(localID: askedLocalID, userID: volunteer, fields: nil, note: "This", now: scene.now))
        // Approved, then refused by the platform; approved, then held: decided, counted by delivery only.
        seeded.approvedFailed = try scene.queuedReport(userID: volunteer, name: "Failed").id
        seeded.approvedHeld = try scene.queuedReport(userID: volunteer, name: "Held").id
        for id in [seeded.approvedFailed, seeded.approvedHeld] {
            #expect(try review.decide(approve, id: id, actor: "c@example.org", now: scene.now) == .done)
        }
        try ReviewGateStoreTests.reach(.needsAttention, scene, id: seeded.approvedFailed)
        try ReviewGateStoreTests.reach(.held, scene, id: seeded.approvedHeld)
        return seeded
    }

    /// REV-05: under `none` nothing waits (every unreviewed report went out or is on its way); under
    /// `kiosk` a kiosk's report waits and a volunteer's does not; under `all` every queued one waits, and
    /// only one already sent counts as published. A reply, a delivery failure and a held report count
    /// the same under every policy.
    @Test(arguments: StoreBackend.all) func rev05CountersUnderEachPolicy(_ backend: StoreBackend) throws {
        let seeded = try Self.seed(backend)
        let scene = seeded.scene
        let review = scene.stores.review
        let expected: [(ReviewPolicy, waiting: Set<Int64>, published: Set<Int64>)] = [
            (.none, [], [seeded.volunteerQueued, seeded.volunteerStored, seeded.kioskQueued]),
            (.kiosk, [seeded.kioskQueued], [seeded.volunteerQueued, seeded.volunteerStored]),
            (.all, [seeded.volunteerQueued, seeded.kioskQueued], [seeded.volunteerStored]),
        ]
        for (policy, waiting, published) in expected {
            try review.setPolicy(policy)
            let counts = try review.counts(now: scene.now)
            #expect(counts.waitingForApproval == waiting.count, "\(policy)")
            #expect(counts.publishedUnreviewed == published.count, "\(policy)")
            #expect(counts.reporterReplied == 1, "\(policy)")
            #expect(counts.needsAttention == 1 && counts.held == 1, "\(policy)")
            // Each counter is the link to its filter: the same reports.
            func found(_ need: ReviewFilter.Need) throws -> Set<Int64> {
                var filter = ReviewFilter()
                filter.need = need
                return Set(try review.search(filter, after: nil, limit: 100).map(\.id))
            }
            #expect(try found(.waiting) == waiting, "\(policy)")
            #expect(try found(.published) == published, "\(policy)")
            #expect(try found(.replied) == [seeded.replied], "\(policy)")
            // Waiting for approval is what the worker will not send until a decision; the rest it may.
            let due = Set(try scene.stores.outbox.dueReports(now: scene.now + 1, excluding: [], limit: 100))
            #expect(due.isDisjoint(with: waiting), "\(policy): a waiting report is never sent")
            #expect(
                due.isSuperset(of: published.subtracting([seeded.volunteerStored])),
                "\(policy): a published one that is still queued goes out")
        }
    }
}
