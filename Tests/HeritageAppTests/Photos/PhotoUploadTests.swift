import Foundation
import Imaging
import SQLiteStorage
import Testing

/// Creation on the server (CRE-05, CRE-09, CRE-11, the file-input fallback): the real `har serve`,
/// signed in through its embedded platform, spoken to with curl.
@Suite(.serialized) struct PhotoUploadTests {
    @Test func jpegPngAndWebpAreAcceptedWithHashThumbnailAndFix() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        let fix = [
            "latitude": "51.5", "longitude": "-0.12", "accuracy": "8", "altitude": "30", "fix_time": "1795000000000",
        ]
        for (path, type) in [
            (try TestImages.jpeg(), "image/jpeg"), (try TestImages.png(), "image/png"),
            (try TestImages.webp(), "image/webp"),
        ] {
            let answer = try await client.upload(draft, file: path, fields: fix, type: type)
            #expect(answer.status == 201, "\(type): \(answer.body)")
            let id = try client.photoID(answer)
            #expect(FileManager.default.fileExists(atPath: server.dataDir + "/photos/" + id))
            #expect(FileManager.default.fileExists(atPath: server.dataDir + "/photos/" + id + ".thumb.jpg"))
            let row = try queryRows(
                server,
                "SELECT content_type, sha256, latitude, longitude, accuracy, altitude, captured_at, width FROM photos WHERE local_id = '\(id)'"
            ).first
            #expect(row?[0].string == type)
            #expect(row?[1].string?.count == 64)
            #expect(row?[2].double == 51.5)
            #expect(row?[3].double == -0.12)
            #expect(row?[4].double == 8)
            #expect(row?[5].double == 30)
            #expect(row?[6].string?.hasPrefix("2026-") == true)
            #expect(row?[7].int == 64)
        }
        #expect(
            try scalarValue(
                server, "SELECT group_concat(position) FROM (SELECT position FROM photos ORDER BY position)"
            ).string == "0,1,2")
    }

    @Test func textOrHtmlRenamedJpegIsRefusedAndLeavesNoFile() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        for contents in ["just some text", "<html><script>alert(1)</script></html>", "\u{FF}\u{D8}\u{FF} not really"] {
            let answer = try await client.upload(draft, file: try TestImages.file(contents, name: "evil.jpg"))
            #expect(answer.status == 415)
            #expect(answer.body.contains("JPEG, PNG or WebP"))
        }
        let french = try await client.upload(draft, file: try TestImages.file("x", name: "a.jpg"), fields: [:])
        #expect(french.status == 415)
        try await waitUntilEmpty(server, "photos", "tmp")
        #expect(try scalarValue(server, "SELECT count(*) FROM photos").int == 0)
    }

    /// A phone-sized photo is checked in the decode that makes its thumbnail (at 1/8: every block's
    /// entropy-coded data still read): whole, it is kept at its full size with a 320-pixel thumbnail;
    /// damaged in its scan, or only where libvips reports the damage when its loader closes, it is
    /// refused with 415, leaves no file, and the log says why in libjpeg's words.
    @Test func aPhoneSizedJpegIsKeptWholeAndRefusedDamaged() async throws {
        let server = try await ServeProcess()
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        let whole = try TestImages.jpeg(width: 5200, height: 3900)
        let kept = try await client.upload(draft, file: whole)
        #expect(kept.status == 201, "\(kept.body)")
        let id = try client.photoID(kept)
        let row = try queryRows(server, "SELECT width, height FROM photos WHERE local_id = '\(id)'").first
        #expect(row?[0].int == 5200 && row?[1].int == 3900)
        #expect(
            try Imaging.inspect(path: server.dataDir + "/photos/\(id).thumb.jpg")
                == ImageInfo(format: .jpeg, width: 320, height: 240, orientation: 1))

        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: whole)))
        for index in [bytes.count / 3, bytes.count / 2, bytes.count * 2 / 3] { bytes[index] = 0xFF }
        let damaged = try TestPaths.temporaryDirectory() + "/damaged.jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        #expect(throws: ImageError.self) { try Imaging.inspect(path: damaged) }  // a full decode refuses it too
        let refused = try await client.upload(draft, file: damaged)
        #expect(refused.status == 415, "\(refused.body)")
        try await waitUntilEmpty(server, "tmp")
        #expect(files(in: server, "photos") == [id, id + ".thumb.jpg"].sorted())
        #expect(try scalarValue(server, "SELECT count(*) FROM photos").int == 1)

        // Damage that libvips alone lets through (its thumbnail, unwatched, is made), found by trying.
        let source = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try TestImages.jpeg(width: 2600, height: 1300))))
        let folder = try TestPaths.temporaryDirectory()
        var late: String?
        for index in stride(from: 1_000, to: source.count - 2, by: 97) where late == nil {
            var changed = source
            changed[index] = 0xFF
            let path = folder + "/late-\(index).jpg"
            try Data(changed).write(to: URL(fileURLWithPath: path))
            let unwatched = (try? Imaging.makeThumbnail(from: path, to: folder + "/thumb.jpg")) != nil
            let watched = (try? Imaging.inspect(path: path, thumbnailTo: folder + "/kept.jpg")) != nil
            if unwatched && !watched { late = path }
        }
        let lateRefused = try await client.upload(draft, file: try #require(late))
        #expect(lateRefused.status == 415, "\(lateRefused.body)")
        try await waitUntilEmpty(server, "tmp")
        #expect(files(in: server, "photos") == [id, id + ".thumb.jpg"].sorted())
        // The operator reads why, in libjpeg's words, for both (the server decodes one photo here, so
        // no other decode takes libvips's shared error text first).
        let log = await server.stop().stderr
        let reasons = log.components(
            separatedBy: "photo refused: the image cannot be decoded: VipsJpeg: Corrupt JPEG data")
        #expect(reasons.count - 1 == 2, "\(log)")
    }

    @Test func oversizedIsRefusedWith413AndLeavesNoFile() async throws {
        let server = try RunningServer(environment: ["HAR_MAX_FILE_BYTES": "20000"])
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        let big = try TestImages.jpeg(width: 1200, height: 900)
        let size = (try FileManager.default.attributesOfItem(atPath: big)[.size] as? Int) ?? 0
        #expect(size > 20000)
        let answer = try await client.upload(draft, file: big)
        #expect(answer.status == 413)
        try await waitUntilEmpty(server, "photos", "tmp")
    }

    @Test func theTwentyFirstPhotoIsRefused() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        let path = try TestImages.jpeg()
        for _ in 0..<20 { #expect(try await client.upload(draft, file: path).status == 201) }
        let refused = try await client.upload(draft, file: path)
        #expect(refused.status == 409)
        #expect(refused.body.contains("at most 20 photos"))
        #expect(try scalarValue(server, "SELECT count(*) FROM photos").int == 20)
        #expect(files(in: server, "photos").count == 40)
    }

    /// OFF-02: one named photo sent three times at once (retries after a lost answer) into the draft's
    /// last free place. The later copies are answered as replays, not refused as "full", and the kept
    /// photo's files stay. Before, a copy refused late removed them ([201, 409, 409], files gone). On one
    /// node the copies wait for each other (`PhotoFiles.keeping`); a copy refused late is answered as the
    /// kept one's replay (another node's copy): each alone passes this test, checked by turning the
    /// other off.
    @Test func copiesOfANamedPhotoSentAtOnceLeaveTheKeptPhotosFiles() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        let small = try TestImages.jpeg()
        for _ in 0..<19 { #expect(try await client.upload(draft, file: small).status == 201) }
        // Large enough that the copies are still being decoded when the others arrive.
        let big = try TestImages.jpeg(width: 4000, height: 3000)
        let photo = UUID().uuidString.lowercased()
        let csrf = client.csrf
        let answers = try await withThrowingTaskGroup(of: CurlResponse.self) { group in
            for twin in try DeviceReportTests.twins(of: client, 3) {
                group.addTask {
                    try await twin.curl(
                        "/api/drafts/\(draft)/photos",
                        [
                            "-X", "POST", "-H", "X-CSRF-Token: \(csrf)", "-H", "Accept: application/json", "-F",
                            "photo=@\(big);type=image/jpeg", "-F", "photo_id=\(photo)",
                        ])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.map(\.status).sorted() == [200, 200, 201], "\(answers.map(\.status)) \(answers.map(\.body))")
        #expect(try answers.allSatisfy { try client.photoID($0) == photo })
        #expect(try scalarValue(server, "SELECT count(*) FROM photos").int == 20)
        let kept = files(in: server, "photos")
        #expect(kept.contains(photo) && kept.contains(photo + ".thumb.jpg"), "\(kept)")
        #expect(kept.count == 40)
        #expect(try Imaging.inspect(path: server.dataDir + "/photos/" + photo).width == 4000)
    }

    @Test func exifGpsWinsElseTheFormFixIsUsed() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        let fix = ["latitude": "10", "longitude": "20", "accuracy": "5"]
        let withGPS = try await client.photoID(
            client.upload(draft, file: try TestImages.jpegWithExif(gps: (48.8584, 2.2945)), fields: fix))
        let without = try await client.photoID(client.upload(draft, file: try TestImages.jpeg(), fields: fix))
        let exifRow = try queryRows(server, "SELECT latitude, longitude FROM photos WHERE local_id = '\(withGPS)'")
            .first
        #expect(abs((exifRow?[0].double ?? 0) - 48.8584) < 0.001)
        #expect(abs((exifRow?[1].double ?? 0) - 2.2945) < 0.001)
        let formRow = try queryRows(
            server, "SELECT latitude, longitude, accuracy FROM photos WHERE local_id = '\(without)'"
        ).first
        #expect(formRow?[0].double == 10)
        #expect(formRow?[2].double == 5)
        let bad = try await client.upload(
            draft, file: try TestImages.jpeg(), fields: ["latitude": "91", "longitude": "0"])
        #expect(bad.status == 400)
    }

    @Test func thumbnailHonoursExifOrientation() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        // Stored 64 x 48, orientation 6 (rotate 90°): displayed portrait.
        let id = try await client.photoID(client.upload(draft, file: try TestImages.jpegWithExif(orientation: 6)))
        let info = try Imaging.inspect(path: server.dataDir + "/photos/" + id + ".thumb.jpg")
        #expect(info.width == 48)
        #expect(info.height == 64)
        #expect(try scalarValue(server, "SELECT width FROM photos").int == 48)
    }

    @Test func xRemovesRowAndFiles() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        let id = try await client.photoID(client.upload(draft, file: try TestImages.jpeg()))
        let removed = try await client.post(
            "/api/drafts/\(draft)/photos/\(id)", ["-X", "DELETE", "-H", "Accept: application/json"])
        #expect(removed.status == 200)
        #expect(try scalarValue(server, "SELECT count(*) FROM photos").int == 0)
        #expect(files(in: server, "photos").isEmpty)
        // The no-JavaScript form does the same and goes back.
        let second = try await client.photoID(client.upload(draft, file: try TestImages.jpeg()))
        let form = try await client.post(
            "/api/drafts/\(draft)/photos/\(second)/delete",
            ["--data-urlencode", "_csrf=\(client.csrf)", "--data-urlencode", "back=/reports/new/submit"], csrf: false)
        #expect(form.status == 303)
        #expect(form.headers["location"] == "/reports/new/submit")
        #expect(files(in: server, "photos").isEmpty)
    }

    @Test func photosAndDraftsAreTheOwnersOnlyAndServedSafely() async throws {
        let server = try RunningServer()
        let owner = try await SignedInClient(server)
        let draft = try await owner.openDraft()
        let id = try await owner.photoID(owner.upload(draft, file: try TestImages.png(), type: "image/png"))
        let photo = try await owner.get("/photos/\(id)")
        #expect(photo.status == 200)
        #expect(photo.headers["content-type"] == "image/png")
        #expect(photo.headers["x-content-type-options"] == "nosniff")
        #expect(photo.headers["content-disposition"] == "inline")
        #expect(photo.headers["content-security-policy"]?.hasPrefix("default-src 'none'") == true)
        #expect(try await owner.get("/photos/\(id)/thumb").headers["content-type"] == "image/jpeg")

        let other = try await SignedInClient(server)
        _ = try await other.openDraft()
        #expect(try await other.get("/photos/\(id)").status == 404)
        #expect(try await other.get("/photos/\(id)/thumb").status == 404)
        #expect(try await other.upload(draft, file: try TestImages.jpeg()).status == 404)
        #expect(
            try await other.post(
                "/api/drafts/\(draft)/photos/\(id)", ["-X", "DELETE", "-H", "Accept: application/json"]
            )
            .status == 404)
        #expect(try await other.get("/api/drafts/\(draft)/suggestions").status == 404)
        #expect(try await curl(server.baseURL + "/photos/\(id)").status == 303)  // signed out: to sign-in
        #expect(try await owner.get("/photos/../har.sqlite", ["--path-as-is"]).status == 404)
    }

    @Test func uploadWithoutCsrfIsRefused() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        let answer = try await client.post(
            "/api/drafts/\(draft)/photos", ["-F", "photo=@\(try TestImages.jpeg())", "-H", "Accept: application/json"],
            csrf: false)
        #expect(answer.status == 403)
        #expect(files(in: server, "photos").isEmpty)
        #expect(try await client.post("/reports/new/cancel", [], csrf: false).status == 403)
    }

    @Test func cancelDeletesTheDraftAndItsFiles() async throws {
        let server = try RunningServer()
        let client = try await SignedInClient(server)
        let draft = try await client.openDraft()
        _ = try await client.upload(draft, file: try TestImages.jpeg())
        _ = try await client.upload(draft, file: try TestImages.jpeg())
        #expect(files(in: server, "photos").count == 4)
        let cancel = try await client.post(
            "/reports/new/cancel", ["--data-urlencode", "_csrf=\(client.csrf)"], csrf: false)
        #expect(cancel.status == 303)
        #expect(cancel.headers["location"] == "/reports")
        #expect(files(in: server, "photos").isEmpty)
        #expect(try scalarValue(server, "SELECT count(*) FROM reports").int == 0)
        #expect(try await client.openDraft() != draft)
    }

    @Test func abandonedDraftsAreSweptAfterRetention() async throws {
        let server = try RunningServer(environment: ["HAR_DRAFT_RETENTION_SECONDS": "1"])
        let first = try await SignedInClient(server)
        let draft = try await first.openDraft()
        _ = try await first.upload(draft, file: try TestImages.jpeg())
        // Once the retention has passed, a new draft sweeps the abandoned ones (polled, not slept for).
        try await waitUntil("the abandoned draft is swept", timeout: 15, interval: 0.25) {
            _ = try await SignedInClient(server).openDraft()
            return try scalarValue(server, "SELECT count(*) FROM reports WHERE local_id = '\(draft)'").int == 0
        }
        #expect(files(in: server, "photos").isEmpty)
    }

    @Test func mapTileOriginIsAllowedInTheCsp() async throws {
        let server = try RunningServer(environment: [
            "HAR_MAP_TILE_URL": "https://{s}.tiles.example.org/{z}/{x}/{y}.png"
        ])
        let client = try await SignedInClient(server)
        let page = try await client.get("/reports/new")
        #expect(page.headers["content-security-policy"]?.contains("img-src 'self' https://*.tiles.example.org") == true)
        #expect(page.body.contains("https://{s}.tiles.example.org/{z}/{x}/{y}.png"))
    }
}
