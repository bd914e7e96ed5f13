import Foundation
import PlatformClient
import Testing

@testable import HeritageApp

/// Bug 3: a photo whose upload got no answer is settled against the platform's listing by SHA-256
/// when the listing gives it (our local platform does), and by the number of photos otherwise (all
/// the contract promises): one more listed than stored here means it landed, as many means it did not.
@Suite struct PhotoSettlementTests {
    /// A report of 4 photos: the first two stored (platform ids A, B), the third in doubt.
    func photos() throws -> (folder: String, stored: [OutboxPhoto], inDoubt: OutboxPhoto, later: OutboxPhoto) {
        let folder = try TestPaths.temporaryDirectory()
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(email: "photos@example.org", session: PlatformSession(sessionID: "s", expirationTime: nil))
        try fixture.queueReports(1, photos: 4)
        let all = try fixture.stores.outbox.photos(reportID: fixture.captured[0].id)
        var first = all[0]
        var second = all[1]
        var third = all[2]
        first.state = .stored
        first.platformPhotoID = "A"
        second.state = .stored
        second.platformPhotoID = "B"
        third.state = .uploading
        return (folder, [first, second], third, all[3])
    }

    func listed(_ ids: [String?], sha: [String?]? = nil) -> [PlatformPhoto] {
        ids.enumerated().map { index, id in
            PlatformPhoto(
                photoID: id, creationTime: Date(timeIntervalSince1970: 1_000 + Double(index)),
                sha256: sha?[index])
        }
    }

    @Test func bySHA256WhenTheListingHasIt() throws {
        let (folder, stored, inDoubt, _) = try photos()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let shas = stored.map(\.sha256)
        // Landed: found by its hash (listed in any order, and whatever the count says).
        let landed = Reconciliation.settlePhotos(
            uploading: [inDoubt], listed: listed(["C", "A", "B"], sha: [inDoubt.sha256.uppercased()] + shas),
            claimed: ["A", "B"], storedCount: 2)
        #expect(landed == .settled([inDoubt.id: .landed(platformPhotoID: "C")]))
        // Not landed: the count is one more (someone else's photo), but no photo has its hash.
        let other = Reconciliation.settlePhotos(
            uploading: [inDoubt], listed: listed(["A", "B", "X"], sha: shas + [String(repeating: "0", count: 64)]),
            claimed: ["A", "B"], storedCount: 2)
        #expect(other == .settled([inDoubt.id: .notLanded]))
    }

    @Test func byCountWithTheContractAlone() throws {
        let (folder, _, inDoubt, _) = try photos()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // One more than stored here: it landed, and is the newest listed photo.
        #expect(
            Reconciliation.settlePhotos(
                uploading: [inDoubt], listed: listed(["A", "B", "C"]), claimed: ["A", "B"], storedCount: 2)
                == .settled([inDoubt.id: .landed(platformPhotoID: "C")]))
        // The same when the listing's ids are not ours to compare (newest by creation time).
        var shuffled = listed(["Z1", "Z2", "Z3"])
        shuffled.swapAt(0, 2)
        #expect(
            Reconciliation.settlePhotos(uploading: [inDoubt], listed: shuffled, claimed: ["A", "B"], storedCount: 2)
                == .settled([inDoubt.id: .landed(platformPhotoID: "Z3")]))
        // No photo ids at all: landed, with no id to record.
        #expect(
            Reconciliation.settlePhotos(
                uploading: [inDoubt], listed: [PlatformPhoto(), PlatformPhoto(), PlatformPhoto()], claimed: ["A", "B"],
                storedCount: 2)
                == .settled([inDoubt.id: .landed(platformPhotoID: nil)]))
        // As many as stored here: it did not land, send it again.
        #expect(
            Reconciliation.settlePhotos(
                uploading: [inDoubt], listed: listed(["A", "B"]), claimed: ["A", "B"], storedCount: 2)
                == .settled([inDoubt.id: .notLanded]))
        // Neither: no guess (nothing sent, nothing adopted).
        for count in [1, 4] {
            let answer = Reconciliation.settlePhotos(
                uploading: [inDoubt], listed: listed((0..<count).map { "P\($0)" }), claimed: ["A", "B"],
                storedCount: 2)
            guard case .undecidable = answer else {
                Issue.record("\(count) listed: \(answer)")
                continue
            }
        }
    }

    /// A listing that does not give the report's photos (missing, null, not a list) or gives entries
    /// that are not photos says nothing about the photo in doubt: counted as none, a photo that landed
    /// would be sent again. Nothing is guessed, whatever is stored here.
    @Test func aListingWithoutReadablePhotosSettlesNothing() throws {
        let (folder, _, inDoubt, _) = try photos()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let decoder = JSONDecoder()
        for photos in [
            "", #","photos":null"#, #","photos":3"#, #","photos":["F1","F2"]"#, #","photos":[{"photo_id":"A"},"B"]"#,
        ] {
            let json = #"{"report_id":"R1","creation_time":"2026-12-01T10:00:00Z"\#(photos)}"#
            let report = try decoder.decode(PlatformReport.self, from: Data(json.utf8))
            for storedCount in [0, 1, 2] {
                let answer = Reconciliation.settlePhotos(
                    uploading: [inDoubt], listed: report.photos, unreadable: report.unreadablePhotoCount,
                    claimed: [], storedCount: storedCount)
                guard case .undecidable(let why) = answer else {
                    Issue.record("photos \(photos), \(storedCount) stored: \(answer)")
                    continue
                }
                #expect(why.hasPrefix("cannot tell whether a photo reached the platform"))
            }
        }
        // Entries that are objects, however sparse, are photos: counted as before.
        let sparse = try decoder.decode(
            PlatformReport.self,
            from: Data(#"{"report_id":"R1","creation_time":"2026-12-01T10:00:00Z","photos":[{},{"x":1}]}"#.utf8))
        #expect(sparse.photos?.count == 2 && sparse.unreadablePhotoCount == 0)
        #expect(
            Reconciliation.settlePhotos(
                uploading: [inDoubt], listed: sparse.photos, unreadable: 0, claimed: [], storedCount: 2)
                == .settled([inDoubt.id: .notLanded]))
    }

    /// The store records a photo found by count without a platform id, and the report is stored
    /// when it was the last one.
    @Test func aPhotoLandedWithoutAnIDIsRecordedStored() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = try OutboxFixture(dataDir: folder + "/app")
        try fixture.addUser(email: "noid@example.org", session: PlatformSession(sessionID: "s", expirationTime: nil))
        try fixture.queueReports(1, photos: 1)
        let store = fixture.stores.outbox
        let reportID = fixture.captured[0].id
        #expect(try store.beginCreate(reportID))
        #expect(try store.recordCreated(reportID, platformReportID: "R"))
        let photo = try #require(try store.photos(reportID: reportID).first)
        #expect(try store.beginPhoto(photo.id, reportID: reportID))
        try store.recordPhotoStored(photo.id, reportID: reportID, platformPhotoID: nil)
        #expect(try store.photos(reportID: reportID).first?.state == .stored)
        #expect(try store.report(id: reportID)?.state == .stored)
    }
}
