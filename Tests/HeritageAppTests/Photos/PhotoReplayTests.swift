import Foundation
import SQLiteStorage
import Testing

/// A photo upload retried after a lost answer is the same photo, never a second one.
@Suite struct PhotoReplayTests {
    @Test func aRetriedUploadWithTheSamePhotoIDKeepsOnePhoto() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        let image = try TestImages.jpeg()
        let id = UUID().uuidString.lowercased()
        let first = try await client.upload(
            draft, file: image, fields: ["photo_id": id, "latitude": "51", "longitude": "0"])
        #expect(first.status == 201)
        #expect(try client.photoID(first) == id)
        let again = try await client.upload(
            draft, file: image, fields: ["photo_id": id, "latitude": "51", "longitude": "0"])
        #expect(again.status == 200)
        #expect(again.body.contains(#""replayed":true"#))
        #expect(try scalarValue(server, "SELECT count(*) FROM photos").int == 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: server.dataDir + "/photos")
        #expect(Set(files) == [id, id + ".thumb.jpg"])
    }

    @Test func aPhotoIDIsCheckedAndCannotTakeAnotherUsersPhoto() async throws {
        let server = try RunningServer()
        let alice = try await SignedInClient(server)
        let aliceDraft = try await alice.openDraft()
        let id = UUID().uuidString.lowercased()
        #expect(try await alice.upload(aliceDraft, file: try TestImages.jpeg(), fields: ["photo_id": id]).status == 201)
        let bob = try await SignedInClient(server)
        let bobDraft = try await bob.openDraft()
        let taken = try await bob.upload(bobDraft, file: try TestImages.jpeg(), fields: ["photo_id": id])
        #expect(taken.status == 409)
        let bad = try await bob.upload(bobDraft, file: try TestImages.jpeg(), fields: ["photo_id": "../../har.sqlite"])
        #expect(bad.status == 400)
        #expect(bad.body.contains("not valid"))
        #expect(try scalarValue(server, "SELECT count(*) FROM photos").int == 1)
    }
}
