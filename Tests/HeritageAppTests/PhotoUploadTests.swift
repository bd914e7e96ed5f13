import Foundation
import Imaging
import Storage
import Testing

/// Creation on the server (CRE-05, CRE-09, CRE-11, the file-input fallback): the real `har serve`,
/// signed in through its embedded platform, spoken to with curl.
@Suite(.serialized) struct PhotoUploadTests {
    @Test func jpegPngAndWebpAreAcceptedWithHashThumbnailAndFix() throws {
        let server = try RunningServer()
        let client = try SignedInClient(server)
        let draft = try client.openDraft()
        let fix = [
            "latitude": "51.5", "longitude": "-0.12", "accuracy": "8", "altitude": "30", "fix_time": "1795000000000",
        ]
        for (path, type) in [
            (try TestImages.jpeg(), "image/jpeg"), (try TestImages.png(), "image/png"),
            (try TestImages.webp(), "image/webp"),
        ] {
            let answer = try client.upload(draft, file: path, fields: fix, type: type)
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

    @Test func textOrHtmlRenamedJpegIsRefusedAndLeavesNoFile() throws {
        let server = try RunningServer()
        let client = try SignedInClient(server)
        let draft = try client.openDraft()
        for contents in ["just some text", "<html><script>alert(1)</script></html>", "\u{FF}\u{D8}\u{FF} not really"] {
            let answer = try client.upload(draft, file: try TestImages.file(contents, name: "evil.jpg"))
            #expect(answer.status == 415)
            #expect(answer.body.contains("JPEG, PNG or WebP"))
        }
        let french = try client.upload(draft, file: try TestImages.file("x", name: "a.jpg"), fields: [:])
        #expect(french.status == 415)
        #expect(files(in: server, "photos").isEmpty)
        #expect(files(in: server, "tmp").isEmpty)
        #expect(try scalarValue(server, "SELECT count(*) FROM photos").int == 0)
    }

    @Test func oversizedIsRefusedWith413AndLeavesNoFile() throws {
        let server = try RunningServer(environment: ["HAR_MAX_FILE_BYTES": "20000"])
        let client = try SignedInClient(server)
        let draft = try client.openDraft()
        let big = try TestImages.jpeg(width: 1200, height: 900)
        let size = (try FileManager.default.attributesOfItem(atPath: big)[.size] as? Int) ?? 0
        #expect(size > 20000)
        let answer = try client.upload(draft, file: big)
        #expect(answer.status == 413)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(files(in: server, "photos").isEmpty)
        #expect(files(in: server, "tmp").isEmpty)
    }

    @Test func theTwentyFirstPhotoIsRefused() throws {
        let server = try RunningServer()
        let client = try SignedInClient(server)
        let draft = try client.openDraft()
        let path = try TestImages.jpeg()
        for _ in 0..<20 { #expect(try client.upload(draft, file: path).status == 201) }
        let refused = try client.upload(draft, file: path)
        #expect(refused.status == 409)
        #expect(refused.body.contains("at most 20 photos"))
        #expect(try scalarValue(server, "SELECT count(*) FROM photos").int == 20)
        #expect(files(in: server, "photos").count == 40)
    }

    @Test func exifGpsWinsElseTheFormFixIsUsed() throws {
        let server = try RunningServer()
        let client = try SignedInClient(server)
        let draft = try client.openDraft()
        let fix = ["latitude": "10", "longitude": "20", "accuracy": "5"]
        let withGPS = try client.photoID(
            client.upload(draft, file: try TestImages.jpegWithExif(gps: (48.8584, 2.2945)), fields: fix))
        let without = try client.photoID(client.upload(draft, file: try TestImages.jpeg(), fields: fix))
        let exifRow = try queryRows(server, "SELECT latitude, longitude FROM photos WHERE local_id = '\(withGPS)'")
            .first
        #expect(abs((exifRow?[0].double ?? 0) - 48.8584) < 0.001)
        #expect(abs((exifRow?[1].double ?? 0) - 2.2945) < 0.001)
        let formRow = try queryRows(
            server, "SELECT latitude, longitude, accuracy FROM photos WHERE local_id = '\(without)'"
        ).first
        #expect(formRow?[0].double == 10)
        #expect(formRow?[2].double == 5)
        let bad = try client.upload(draft, file: try TestImages.jpeg(), fields: ["latitude": "91", "longitude": "0"])
        #expect(bad.status == 400)
    }

    @Test func thumbnailHonoursExifOrientation() throws {
        let server = try RunningServer()
        let client = try SignedInClient(server)
        let draft = try client.openDraft()
        // Stored 64 x 48, orientation 6 (rotate 90°): displayed portrait.
        let id = try client.photoID(client.upload(draft, file: try TestImages.jpegWithExif(orientation: 6)))
        let info = try Imaging.inspect(path: server.dataDir + "/photos/" + id + ".thumb.jpg")
        #expect(info.width == 48)
        #expect(info.height == 64)
        #expect(try scalarValue(server, "SELECT width FROM photos").int == 48)
    }

    @Test func xRemovesRowAndFiles() throws {
        let server = try RunningServer()
        let client = try SignedInClient(server)
        let draft = try client.openDraft()
        let id = try client.photoID(client.upload(draft, file: try TestImages.jpeg()))
        let removed = try client.post(
            "/api/drafts/\(draft)/photos/\(id)", ["-X", "DELETE", "-H", "Accept: application/json"])
        #expect(removed.status == 200)
        #expect(try scalarValue(server, "SELECT count(*) FROM photos").int == 0)
        #expect(files(in: server, "photos").isEmpty)
        // The no-JavaScript form does the same and goes back.
        let second = try client.photoID(client.upload(draft, file: try TestImages.jpeg()))
        let form = try client.post(
            "/api/drafts/\(draft)/photos/\(second)/delete",
            ["--data-urlencode", "_csrf=\(client.csrf)", "--data-urlencode", "back=/reports/new/submit"], csrf: false)
        #expect(form.status == 303)
        #expect(form.headers["location"] == "/reports/new/submit")
        #expect(files(in: server, "photos").isEmpty)
    }

    @Test func photosAndDraftsAreTheOwnersOnlyAndServedSafely() throws {
        let server = try RunningServer()
        let owner = try SignedInClient(server)
        let draft = try owner.openDraft()
        let id = try owner.photoID(owner.upload(draft, file: try TestImages.png(), type: "image/png"))
        let photo = try owner.get("/photos/\(id)")
        #expect(photo.status == 200)
        #expect(photo.headers["content-type"] == "image/png")
        #expect(photo.headers["x-content-type-options"] == "nosniff")
        #expect(photo.headers["content-disposition"] == "inline")
        #expect(photo.headers["content-security-policy"]?.hasPrefix("default-src 'none'") == true)
        #expect(try owner.get("/photos/\(id)/thumb").headers["content-type"] == "image/jpeg")

        let other = try SignedInClient(server)
        _ = try other.openDraft()
        #expect(try other.get("/photos/\(id)").status == 404)
        #expect(try other.get("/photos/\(id)/thumb").status == 404)
        #expect(try other.upload(draft, file: try TestImages.jpeg()).status == 404)
        #expect(
            try other.post("/api/drafts/\(draft)/photos/\(id)", ["-X", "DELETE", "-H", "Accept: application/json"])
                .status == 404)
        #expect(try other.get("/api/drafts/\(draft)/suggestions").status == 404)
        #expect(try curl(server.baseURL + "/photos/\(id)").status == 303)  // signed out: to sign-in
        #expect(try owner.get("/photos/../har.sqlite", ["--path-as-is"]).status == 404)
    }

    @Test func uploadWithoutCsrfIsRefused() throws {
        let server = try RunningServer()
        let client = try SignedInClient(server)
        let draft = try client.openDraft()
        let answer = try client.post(
            "/api/drafts/\(draft)/photos", ["-F", "photo=@\(try TestImages.jpeg())", "-H", "Accept: application/json"],
            csrf: false)
        #expect(answer.status == 403)
        #expect(files(in: server, "photos").isEmpty)
        #expect(try client.post("/reports/new/cancel", [], csrf: false).status == 403)
    }

    @Test func cancelDeletesTheDraftAndItsFiles() throws {
        let server = try RunningServer()
        let client = try SignedInClient(server)
        let draft = try client.openDraft()
        _ = try client.upload(draft, file: try TestImages.jpeg())
        _ = try client.upload(draft, file: try TestImages.jpeg())
        #expect(files(in: server, "photos").count == 4)
        let cancel = try client.post("/reports/new/cancel", ["--data-urlencode", "_csrf=\(client.csrf)"], csrf: false)
        #expect(cancel.status == 303)
        #expect(cancel.headers["location"] == "/reports")
        #expect(files(in: server, "photos").isEmpty)
        #expect(try scalarValue(server, "SELECT count(*) FROM reports").int == 0)
        #expect(try client.openDraft() != draft)
    }

    @Test func abandonedDraftsAreSweptAfterRetention() throws {
        let server = try RunningServer(environment: ["HAR_DRAFT_RETENTION_SECONDS": "1"])
        let first = try SignedInClient(server)
        let draft = try first.openDraft()
        _ = try first.upload(draft, file: try TestImages.jpeg())
        Thread.sleep(forTimeInterval: 2.2)
        let second = try SignedInClient(server)
        _ = try second.openDraft()  // a new draft sweeps the abandoned ones
        #expect(try scalarValue(server, "SELECT count(*) FROM reports WHERE local_id = '\(draft)'").int == 0)
        #expect(files(in: server, "photos").isEmpty)
    }

    @Test func mapTileOriginIsAllowedInTheCsp() throws {
        let server = try RunningServer(environment: [
            "HAR_MAP_TILE_URL": "https://{s}.tiles.example.org/{z}/{x}/{y}.png"
        ])
        let client = try SignedInClient(server)
        let page = try client.get("/reports/new")
        #expect(page.headers["content-security-policy"]?.contains("img-src 'self' https://*.tiles.example.org") == true)
        #expect(page.body.contains("https://{s}.tiles.example.org/{z}/{x}/{y}.png"))
    }
}
