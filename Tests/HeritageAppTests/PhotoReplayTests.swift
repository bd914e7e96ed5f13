import Foundation
import Storage
import Testing

/// A photo upload retried after a lost answer is the same photo, never a second one.
@Suite struct PhotoReplayTests {
    @Test func aRetriedUploadWithTheSamePhotoIDKeepsOnePhoto() throws {
        let server = try RunningServer()
        let client = try SignedInClient(server)
        let draft = try client.openDraft()
        let image = try TestImages.jpeg()
        let id = UUID().uuidString.lowercased()
        let first = try client.upload(draft, file: image, fields: ["photo_id": id, "latitude": "51", "longitude": "0"])
        #expect(first.status == 201)
        #expect(try client.photoID(first) == id)
        let again = try client.upload(draft, file: image, fields: ["photo_id": id, "latitude": "51", "longitude": "0"])
        #expect(again.status == 200)
        #expect(again.body.contains(#""replayed":true"#))
        #expect(try scalarValue(server, "SELECT count(*) FROM photos").int == 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: server.dataDir + "/photos")
        #expect(Set(files) == [id, id + ".thumb.jpg"])
    }

    @Test func aPhotoIDIsCheckedAndCannotTakeAnotherUsersPhoto() throws {
        let server = try RunningServer()
        let alice = try SignedInClient(server)
        let aliceDraft = try alice.openDraft()
        let id = UUID().uuidString.lowercased()
        #expect(try alice.upload(aliceDraft, file: try TestImages.jpeg(), fields: ["photo_id": id]).status == 201)
        let bob = try SignedInClient(server)
        let bobDraft = try bob.openDraft()
        let taken = try bob.upload(bobDraft, file: try TestImages.jpeg(), fields: ["photo_id": id])
        #expect(taken.status == 409)
        let bad = try bob.upload(bobDraft, file: try TestImages.jpeg(), fields: ["photo_id": "../../har.sqlite"])
        #expect(bad.status == 400)
        #expect(bad.body.contains("not valid"))
        #expect(try scalarValue(server, "SELECT count(*) FROM photos").int == 1)
    }
}
