import Foundation
import PlatformClient
import SQLiteStorage
import Testing

@testable import HeritageApp

extension ReviewTests {
    /// REV-09: the exports of the current filter, parsed back: CSV (BOM, header, RFC 4180 quoting,
    /// formula cells neutralised) and GeoJSON (a FeatureCollection of [longitude, latitude] points).
    @Test func rev09ExportsParsedBack() async throws {
        let server = try Self.server()
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        try Self.insertReports(server, email: coordinator.email, count: 3, prefix: "Bridge")
        try Self.insertReports(server, email: coordinator.email, count: 1, prefix: "=HYPERLINK(\"x\",\"y\")")
        let csv = try await coordinator.http.send(
            "GET", "/review/export.csv?q=bridge", headers: [("Sec-Fetch-Site", "same-origin")], body: [])
        #expect(csv.headers["content-type"] == "text/csv; charset=utf-8")
        #expect(Array(csv.bytes.prefix(3)) == [0xEF, 0xBB, 0xBF])
        let lines = csv.body.split(separator: "\r\n", omittingEmptySubsequences: true)
        #expect(lines.count == 4, "header and three rows")
        #expect(
            lines.first?.hasSuffix(
                "id,local_id,name,reporter,origin,submitted_at,review_state,review_reason,"
                    + "delivery_state,latitude,longitude,accuracy_m,designation,condition,occupancy,priority_category,"
                    + "owner_type,grade,photo_count,platform_report_id,"
                    + "submitted_at_utc,origin_label,review_state_label,review_reason_label,delivery_state_label,"
                    + "designation_label,condition_label,occupancy_label,priority_category_label,owner_type_label,"
                    + "grade_label") == true)
        #expect(lines.dropFirst().allSatisfy { $0.contains(",Bridge ") && $0.contains(",received,,queued,") })
        // The human columns after the machine ones: the same values by their labels (REV-05).
        #expect(
            lines.dropFirst().allSatisfy {
                $0.contains(" UTC,Volunteer,Received,,Waiting,") && $0.hasSuffix(",Listed building,Poor,,,,Grade II")
            })
        let formula = try await coordinator.get("/review/export.csv?q=hyperlink", Self.sameOrigin)
        #expect(formula.body.contains(",\"'=HYPERLINK(\"\"x\"\",\"\"y\"\") 1\","))
        let geojson = try await coordinator.get("/review/export.geojson?q=bridge&sort=oldest", Self.sameOrigin)
        #expect(geojson.headers["content-type"] == "application/geo+json")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(geojson.body.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "FeatureCollection")
        let features = try #require(object["features"] as? [[String: Any]])
        #expect(features.count == 3)
        let geometry = try #require(features.first?["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Point")
        let coordinates = try #require(geometry["coordinates"] as? [Double])
        #expect(abs(coordinates[0] - 2.35) < 1e-9 && abs(coordinates[1] - 48.86) < 1e-9, "[longitude, latitude]")
        let properties = try #require(features.first?["properties"] as? [String: Any])
        #expect(properties["name"] as? String == "Bridge 1" && properties["review_state"] as? String == "received")
        // Beside the codes, their labels for people (REV-05).
        let labels = try #require(properties["labels"] as? [String: String])
        #expect(labels["review_state"] == "Received" && labels["delivery_state"] == "Waiting")
        #expect(labels["designation"] == "Listed building" && labels["grade"] == "Grade II")
        #expect(labels["submitted_at_utc"]?.hasSuffix(" UTC") == true && labels["review_reason"] == nil)
        #expect(
            try sqlite(server.dataDir, "SELECT group_concat(action) FROM review_audit WHERE action LIKE 'export%'")
                == "export_csv,export_csv,export_geojson")

        // The photos archive: the originals kept (two of three here), a thumbnail for one whose original
        // is gone, a manifest; read back by Python's zipfile, which checks each CRC-32.
        let photos = try sqlite(
            server.dataDir,
            "SELECT p.local_id FROM photos p JOIN reports r ON r.id = p.report_id WHERE r.name LIKE 'Bridge %' ORDER BY r.id"
        ).split(separator: "\n").map(String.init)
        try FileManager.default.createDirectory(atPath: server.dataDir + "/photos", withIntermediateDirectories: true)
        var written: [String: [UInt8]] = [:]
        for (index, photo) in photos.enumerated() {
            let bytes: [UInt8] =
                [0xFF, 0xD8, 0xFF, 0xE0] + (0..<(5000 * (index + 1))).map { UInt8(($0 * 7 + index) % 251) }
            let path = server.dataDir + "/photos/" + photo + (index == 2 ? ".thumb.jpg" : "")
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            written[photo] = bytes
        }
        let zip = try await coordinator.get("/review/export.zip?q=bridge", Self.sameOrigin)
        #expect(zip.status == 200 && zip.headers["content-type"] == "application/zip")
        let zipPath = server.dataDir + "/../photos-\(UUID().uuidString).zip"
        #expect(FileManager.default.createFile(atPath: zipPath, contents: Data(zip.bytes)))
        defer { try? FileManager.default.removeItem(atPath: zipPath) }
        let check = try await runProgram(
            "/usr/bin/python3",
            [
                "-c",
                """
                import hashlib, sys, zipfile
                z = zipfile.ZipFile(sys.argv[1])
                assert z.testzip() is None
                for n in sorted(z.namelist()):
                    print(n, hashlib.sha256(z.read(n)).hexdigest() if n != 'manifest.csv' else z.read(n).decode('utf-8-sig').count('\\n'))
                """, zipPath,
            ])
        #expect(check.status == 0, "\(check.stderr)")
        let listed = check.stdout.split(separator: "\n").map(String.init)
        #expect(listed.count == 4 && listed.first == "manifest.csv 4", "three photos and a manifest of 3 rows")
        for (photo, bytes) in written {
            #expect(listed.contains { $0.contains(photo) && $0.hasSuffix(SHA256Stream.hash(bytes)) }, "\(photo)")
        }
        await server.stop()
    }

    /// REV-09's files: an export lives as long as its answer, in a folder of its own (never the uploads'
    /// folder, whose files count against the uploads' cap), and one a coordinator's browser is sent to
    /// by another site is not made.
    @Test func rev09ExportsLeaveNoFileAndAreNotMadeForAnotherSite() async throws {
        let server = try Self.server(["HAR_UPLOAD_TEMP_MAX_BYTES": "200000"])
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        try Self.insertReports(server, email: coordinator.email, count: 3, prefix: "Weir")
        let files = { (folder: String) in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] }
        let exports = server.dataDir + "/exports"
        #expect(FileManager.default.fileExists(atPath: exports))
        for path in ["/review/export.csv?q=weir", "/review/export.geojson?q=weir", "/review/export.zip?q=weir"] {
            let answer = try await coordinator.get(path, Self.sameOrigin)
            #expect(answer.status == 200 && answer.bytes.count > 100, "\(path): \(answer.status)")
            #expect(files(exports).isEmpty, "\(path) left \(files(exports))")
            #expect(files(server.dataDir + "/tmp").isEmpty, "\(path) left \(files(server.dataDir + "/tmp"))")
        }
        // Uploads still fit under their cap after the exports.
        let draft = try await coordinator.openDraft()
        #expect(try await coordinator.upload(draft, file: try TestImages.jpeg()).status == 201)

        let audited = try sqlite(server.dataDir, "SELECT COUNT(*) FROM review_audit")
        for path in ["/review/export.csv", "/review/export.geojson", "/review/export.zip", "/review/audit.csv"] {
            let refused = try await coordinator.get(path, ["-H", "Sec-Fetch-Site: cross-site"])
            #expect(refused.status == 403, "\(path): \(refused.status)")
            #expect(refused.body.contains("asked for by another site"), "\(path)")
        }
        #expect(try sqlite(server.dataDir, "SELECT COUNT(*) FROM review_audit") == audited, "nothing audited")
        #expect(files(exports).isEmpty)
        for site in ["same-origin", "none"] {
            let made = try await coordinator.get("/review/export.csv", ["-H", "Sec-Fetch-Site: \(site)"])
            #expect(made.status == 200, "\(site): \(made.status)")
        }
        await server.stop()
    }

    /// REV-07: ticked reports are bounded as "all matching" is (`bulkLimit`): a form naming more is
    /// refused with a message, and nothing is done.
    @Test func rev07TooManyTickedReportsAreRefused() async throws {
        let server = try Self.server()
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        let ids = try Self.insertReports(server, email: coordinator.email, count: 2, prefix: "Mill")
        let token = try SignedInClient.csrf(in: try await coordinator.get("/review").body)
        let many = (0...ReviewDashboard.bulkLimit).map { "ids=\(ids[$0 % 2])" }.joined(separator: "&")
        for path in ["/review/bulk", "/review/bulk/undo"] {
            let body = try TestPaths.temporaryFile(
                contents: "_csrf=\(token)&action=approve&confirm=2&" + many, name: "bulk")
            let answer = try await coordinator.http.curl(path, ["--data-binary", "@" + body])
            #expect(answer.status == 413, "\(path): \(answer.status)")
            #expect(answer.body.contains("Too many reports were ticked at once"), "\(path)")
        }
        #expect(try sqlite(server.dataDir, "SELECT group_concat(review_state) FROM reports") == "received,received")
        await server.stop()
    }
}
