import Foundation
import Testing

@testable import HeritageApp

/// The worker's delivery attempts (REV-06: a report's history on the coordinator's page),
/// once per backend: each transition that records a platform call's outcome appends an attempt in its
/// own transaction, at the step the report was at; a fenced-out node writes none; 50 kept per report.
@Suite struct DeliveryAttemptsConformanceTests {
    static func seen(_ attempts: [DeliveryAttempt]) -> [String] {
        attempts.map { "\($0.step) \($0.outcome.rawValue) \($0.httpStatus.map(String.init) ?? "-")" }
    }

    /// REV-06: create retried then done, photo 1 stored, photo 2 refused; newest first, with statuses.
    @Test(arguments: StoreBackend.all) func rev06AttemptsFollowTheTransitions(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let (outbox, review) = (scene.stores.outbox, scene.stores.review)
        let user = try scene.user("v@example.org")
        let (id, _) = try scene.queuedReport(userID: user, photos: 2)
        #expect(try review.deliveryAttempts(reportID: id, limit: 50).isEmpty)
        #expect(try outbox.beginCreate(id))
        try outbox.recordRetry(
            id, error: "retry later (HTTP 503 ServiceUnavailable)", nextAttemptAt: 0, status: 503, lease: nil)
        #expect(try outbox.beginCreate(id))
        #expect(try outbox.recordCreated(id, platformReportID: "P1"))
        let photos = try outbox.photos(reportID: id)
        #expect(try outbox.beginPhoto(photos[0].id, reportID: id))
        try outbox.recordPhotoStored(photos[0].id, reportID: id, platformPhotoID: "F1")
        try outbox.recordPhotoStored(photos[0].id, reportID: id, platformPhotoID: "F1")  // already stored: no attempt
        #expect(try outbox.beginPhoto(photos[1].id, reportID: id))
        try outbox.recordNeedsAttention(id, message: "payload too large: over 10 MB", status: 413, lease: nil)
        let attempts = try review.deliveryAttempts(reportID: id, limit: 50)
        #expect(Self.seen(attempts) == ["photo 2 failed 413", "photo 1 ok -", "create ok -", "create retry 503"])
        #expect(attempts.first?.error == "payload too large: over 10 MB")
        #expect(attempts.last?.error == "retry later (HTTP 503 ServiceUnavailable)")
        #expect(attempts.allSatisfy { $0.at >= scene.now })
        #expect(try review.deliveryAttempts(reportID: id, limit: 2).count == 2)
        // A session known expired, without a call, is no attempt; a refused call is one.
        let (other, _) = try scene.queuedReport(userID: user, photos: 1)
        try outbox.recordWaitingForSignIn(other)
        #expect(try review.deliveryAttempts(reportID: other, limit: 50).isEmpty)
        _ = try outbox.resume(other, from: [.waitingSignIn])
        try outbox.recordWaitingForSignIn(other, refusedCall: true, lease: nil)
        #expect(Self.seen(try review.deliveryAttempts(reportID: other, limit: 50)) == ["create failed 401"])
    }

    /// REV-06: a node whose lease was taken over writes no attempt; the holder's are written.
    @Test(arguments: StoreBackend.all) func rev06FencedOutNodeWritesNoAttempt(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let (outbox, leases, review) = (scene.stores.outbox, scene.stores.leases, scene.stores.review)
        let user = try scene.user("a@example.org")
        let (id, _) = try scene.queuedReport(userID: user)
        let first = try #require(try leases.claim(node: "a", now: scene.now, duration: 60, limit: 4).first)
        #expect(try outbox.beginCreate(id, lease: first))
        let second = try #require(try leases.claim(node: "b", now: scene.now + 61, duration: 60, limit: 4).first)
        #expect(throws: LeaseLost.self) {
            try outbox.recordRetry(id, error: "x", nextAttemptAt: 0, status: 503, lease: first)
        }
        #expect(throws: LeaseLost.self) { try outbox.recordNeedsAttention(id, message: "x", status: 400, lease: first) }
        #expect(throws: LeaseLost.self) { try outbox.recordCreated(id, platformReportID: "P1", lease: first) }
        #expect(try review.deliveryAttempts(reportID: id, limit: 50).isEmpty, "a wrote nothing")
        #expect(try outbox.recordCreated(id, platformReportID: "P1", lease: second))
        #expect(Self.seen(try review.deliveryAttempts(reportID: id, limit: 50)) == ["create ok -"])
    }

    /// REV-06: the last 50 attempts of a report are kept, the oldest dropped.
    @Test(arguments: StoreBackend.all) func rev06AttemptsAreBounded(_ backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let (outbox, review) = (scene.stores.outbox, scene.stores.review)
        let user = try scene.user("v@example.org")
        let (id, _) = try scene.queuedReport(userID: user)
        for n in 0..<60 {
            _ = try outbox.beginCreate(id)
            try outbox.recordRetry(id, error: "e\(n)", nextAttemptAt: 0, status: nil, lease: nil)
        }
        let kept = try review.deliveryAttempts(reportID: id, limit: 100)
        #expect(kept.count == 50)
        #expect(kept.first?.error == "e59" && kept.last?.error == "e10")
    }
}
