import Foundation
import Testing

@testable import HeritageApp

/// Per-user quotas on photos (a day's count, the bytes not yet delivered), refused at
/// once with a message; another user is not affected. Decoding and hashing already run on
/// `BlockingWork`'s two threads of their own (PhotoUploadTests).
@Suite struct PhotoQuotaTests {
    @Test func photosPerDayHaveALimit() async throws {
        let server = try RunningServer(environment: ["HAR_PHOTOS_PER_DAY": "2"])
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        var statuses: [Int] = []
        for _ in 0..<3 { statuses.append(try await client.upload(draft, file: try TestImages.jpeg()).status) }
        #expect(statuses == [201, 201, 429])
        let refused = try await client.upload(draft, file: try TestImages.jpeg())
        #expect(refused.body.contains("You have added the most photos allowed in one day."))
        #expect(try sqlite(server.dataDir, "SELECT COUNT(*) FROM photos") == "2")
        let other = try await SignedInClient(server)
        #expect(try await other.upload(try await other.openDraft(), file: try TestImages.jpeg()).status == 201)
    }

    @Test func undeliveredBytesHaveALimit() async throws {
        let image = try TestImages.jpeg(width: 640, height: 480)
        let size = (try FileManager.default.attributesOfItem(atPath: image)[.size] as? Int) ?? 0
        let server = try RunningServer(environment: ["HAR_PHOTO_BYTES_PER_USER": String(2 * size + 1000)])
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        var statuses: [Int] = []
        for _ in 0..<3 { statuses.append(try await client.upload(draft, file: image).status) }
        #expect(size > 2000 && statuses == [201, 201, 429], "size \(size)")
        #expect(
            try await client.upload(draft, file: image).body.contains(
                "Your photos waiting to be sent take all the room allowed for one person."))
    }
}

@Suite struct PhotoQuotaStoreTests {
    @Test(arguments: StoreBackend.all) func usageCountsTheDayAndTheUndeliveredBytes(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let ann = try scene.user("ann@example.org", token: 1)
        let bob = try scene.user("bob@example.org", token: 2)
        let (draft, _) = try scene.stores.drafts.openDraft(userID: ann, now: scene.now, freshSince: scene.now - 60)
        for _ in 0..<3 { _ = try scene.stores.drafts.addPhoto(StoreScene.photo(), to: draft, now: scene.now) }
        let usage = try scene.stores.photoQuota.photoUsage(userID: ann, since: scene.now - 86_400)
        #expect(usage == PhotoUsage(addedSince: 3, undeliveredBytes: 3 * 1234))
        #expect(try scene.stores.photoQuota.photoUsage(userID: ann, since: scene.now + 1).addedSince == 0)
        #expect(
            try scene.stores.photoQuota.photoUsage(userID: bob, since: 0)
                == PhotoUsage(addedSince: 0, undeliveredBytes: 0))
    }
}
