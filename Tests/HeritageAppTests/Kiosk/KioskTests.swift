import Foundation
import PlatformClient
import Testing

@testable import HeritageApp

/// Kiosks on the real server: the application built in-process on a real loopback socket and
/// SQLite file, the embedded local platform, `har kiosk` as a process.
@Suite(.serialized) struct KioskTests {
    static let coordinator = "kiosk.coord.\(UUID().uuidString.prefix(6).lowercased())@example.org"

    static func server(_ extra: [String: String] = [:]) throws -> RunningServer {
        var environment = [
            "HAR_COORDINATORS": coordinator, "HAR_PLATFORM_VERIFIED": coordinator, "HAR_WORKER_ENABLED": "false",
        ]
        environment.merge(extra) { $1 }
        return try RunningServer(environment: environment)
    }

    /// A POST of form fields with the CSRF token of the page at `tokenFrom`.
    static func post(_ client: HTTPClient, _ path: String, _ fields: [(String, String)], tokenFrom: String) async throws
        -> CurlResponse
    {
        let token = try SignedInClient.csrf(in: try await client.curl(tokenFrom, []).body)
        var arguments = ["--data-urlencode", "_csrf=\(token)"]
        for (name, value) in fields { arguments += ["--data-urlencode", "\(name)=\(value)"] }
        return try await client.curl(path, arguments)
    }

    /// A visitor's report on an enrolled tablet's pages: start, one photo, the form, submit; the
    /// receipt's answer. `start` carries the start form's fields (the page sends its app version).
    static func fileVisit(_ tablet: HTTPClient, name: String, start fields: [(String, String)] = []) async throws
        -> CurlResponse
    {
        let start = try await post(tablet, "/kiosk/start", fields, tokenFrom: "/kiosk")
        #expect(start.status == 303, "\(start.status) \(start.body.prefix(200))")
        let token = try SignedInClient.csrf(in: try await tablet.curl("/kiosk/photos", []).body)
        let upload = try await tablet.curl(
            "/kiosk/photos",
            [
                "-X", "POST", "-H", "X-CSRF-Token: \(token)", "-H", "Accept: application/json", "-F",
                "photo=@\(try TestImages.jpeg());type=image/jpeg",
            ])
        #expect(upload.status == 201, "\(upload.body)")
        let form = try await tablet.curl("/kiosk/form", [])
        let submitToken = try #require(first(#"name="submit_token" value="[0-9a-f]{64}""#, in: form.body))
            .dropFirst(#"name="submit_token" value=""#.count).dropLast()
        let answers: [(String, String)] = [
            ("submit_token", String(submitToken)), ("name", name), ("designation", "LB"), ("condition", "poor"),
            ("occupancy", "vacant"), ("priority_category", "A"), ("owner_type", "private"), ("grade", "II"),
        ]
        return try await post(tablet, "/kiosk/submit", answers, tokenFrom: "/kiosk/form")
    }

    /// The first match of `pattern` in `text`.
    static func first(_ pattern: String, in text: String) -> String? {
        text.range(of: pattern, options: .regularExpression).map { String(text[$0]) }
    }

    /// A coordinator creates a kiosk on /review/kiosks; a tablet opens the enrolment link. The tablet's
    /// client and the enrolment token.
    static func enrolledTablet(
        _ server: RunningServer, _ coordinator: SignedInClient, site: String = "St Anne's Abbey",
        location: (String, String) = ("51.5", "-0.12")
    ) async throws -> (tablet: HTTPClient, token: String) {
        let created = try await post(
            coordinator.http, "/review/kiosks",
            [
                ("site", site), ("lat", location.0), ("lon", location.1), ("radius", "80"), ("languages", "en"),
                ("languages", "fr"),
            ], tokenFrom: "/review/kiosks")
        #expect(created.status == 200, "\(created.body.prefix(400))")
        #expect(created.body.contains("<svg") && created.body.contains("qr-code"), "the QR code as SVG")
        let link = try #require(first(#"/kiosk/enrol#[0-9a-f]{64}"#, in: created.body))
        let token = String(link.split(separator: "#")[1])
        let tablet = try HTTPClient(baseURL: server.baseURL)
        let enrol = try await post(tablet, "/kiosk/enrol", [("token", token)], tokenFrom: "/kiosk/enrol")
        #expect(
            enrol.status == 303 && enrol.headers["location"] == "/kiosk", "\(enrol.status) \(enrol.body.prefix(300))")
        return (tablet, token)
    }

    /// KIO-01: the enrolment link works once; the tablet then shows the site's attract screen; the audit
    /// log has each step; `har kiosk create` prints a working link on its last line.
    @Test func kio01EnrolOnceWithLinkAndQRCode() async throws {
        let server = try Self.server()
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        let (tablet, token) = try await Self.enrolledTablet(server, coordinator)
        let attract = try await tablet.curl("/kiosk", [])
        #expect(
            attract.status == 200 && attract.body.contains("St Anne&#39;s Abbey") || attract.body.contains("St Anne"))
        #expect(attract.body.contains("Report damage you see here"))
        #expect(attract.headers["cache-control"] == "no-store")
        let other = try HTTPClient(baseURL: server.baseURL)
        let again = try await Self.post(other, "/kiosk/enrol", [("token", token)], tokenFrom: "/kiosk/enrol")
        #expect(again.status == 400 && again.body.contains("used already or has expired"), "once")
        let audit = try sqlite(server.dataDir, "SELECT action FROM review_audit WHERE action LIKE 'kiosk%' ORDER BY id")
        #expect(audit == "kiosk_create\nkiosk_enrolment_link\nkiosk_enrol")

        let environment = ["HAR_DATA_DIR": server.dataDir, "PATH": "/usr/bin:/bin", "USER": "operator"]
        let created = try await runProgram(
            TestPaths.harExecutable,
            [
                "kiosk", "create", "--site", "Old Mill", "--lat", "52", "--lon", "1", "--account", Self.coordinator,
                "--base-url", server.baseURL,
            ],
            environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        let last = try #require(created.stdout.split(separator: "\n").last.map(String.init))
        #expect(last.hasPrefix(server.baseURL + "/kiosk/enrol#"))
        let cliTablet = try HTTPClient(baseURL: server.baseURL)
        let enrolled = try await Self.post(
            cliTablet, "/kiosk/enrol", [("token", String(last.split(separator: "#")[1]))], tokenFrom: "/kiosk/enrol")
        #expect(enrolled.status == 303)
        #expect(try await cliTablet.curl("/kiosk", []).body.contains("Old Mill"))
        let list = try await runProgram(TestPaths.harExecutable, ["kiosk", "list"], environment: environment)
        #expect(list.stdout.contains("Old Mill\tenrolled") && list.stdout.contains("St Anne's Abbey\tenrolled"))
        await server.stop()
    }

    /// KIO-02: with a kiosk's credential (and even a volunteer's session cookie beside it), every route of
    /// the application but the kiosk's own, the static files, health and metrics is refused; signing in
    /// says to use a personal device.
    @Test func kio02KioskCredentialReachesNothingElse() async throws {
        let server = try Self.server()
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        let volunteer = try await SignedInClient(server)
        try ReviewTests.insertReports(server, email: volunteer.email, count: 1, prefix: "Private chapel")
        let (tablet, _) = try await Self.enrolledTablet(server, coordinator)
        // The tablet also carries the volunteer's session: still nothing but the kiosk.
        let session = try #require(volunteer.http.cookie("har_session"))
        tablet.setCookie("har_session", session)
        let open = ["/static", "/healthz", "/metrics", "/sw.js", "/kiosk", "/bench"]
        var swept = 0
        for route in server.application.routeTable where !open.contains(where: { route.pattern.hasPrefix($0) }) {
            let path = route.pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                segment.hasPrefix(":") ? "00000000-0000-0000-0000-000000000001" : segment.hasPrefix("*") ? "x" : segment
            }.joined(separator: "/")
            let answer = try await tablet.curl(
                path.isEmpty ? "/" : path,
                route.method == "GET" ? [] : ["-X", route.method, "-H", "X-CSRF-Token: 00", "--data", "a=b"])
            #expect(answer.status == 403, "kiosk \(route.method) \(route.pattern): \(answer.status)")
            #expect(!answer.body.contains("Private chapel"))
            swept += 1
        }
        #expect(swept > 40, "every route: \(swept)")
        let signIn = try await tablet.curl("/signin", [])
        #expect(signIn.status == 403 && signIn.body.contains("please use a personal device"))
        // The volunteer's own browser is not affected.
        #expect(try await volunteer.get("/reports").status == 200)
        await server.stop()
    }

    /// KIO-03, KIO-05: the visitor's flow on the server: start, a photo without a location, the form with
    /// the site's name, submit; the receipt with its code and QR; the report is the kiosk's, waits for
    /// review, has the site's location and says so; the kiosk list shows it; a lapsed platform session
    /// shows on the kiosks' page; the report goes up anonymous.
    @Test func kio03VisitorFlowAndKio05WaitsForReview() async throws {
        let server = try Self.server()
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        let (tablet, _) = try await Self.enrolledTablet(server, coordinator)
        let start = try await Self.post(tablet, "/kiosk/start", [("app_version", "0.1.0")], tokenFrom: "/kiosk")
        #expect(start.status == 303 && start.headers["location"] == "/kiosk/photos")
        let photos = try await tablet.curl("/kiosk/photos", [])
        #expect(photos.status == 200 && photos.headers["cache-control"] == "no-store")
        let token = try SignedInClient.csrf(in: photos.body)
        let jpeg = try TestImages.jpeg()
        let upload = try await tablet.curl(
            "/kiosk/photos",
            [
                "-X", "POST", "-H", "X-CSRF-Token: \(token)", "-H", "Accept: application/json", "-F",
                "photo=@\(jpeg);type=image/jpeg",
            ])
        #expect(upload.status == 201, "\(upload.body)")
        let form = try await tablet.curl("/kiosk/form", [])
        #expect(form.body.contains(#"value="St Anne&#39;s Abbey""#) || form.body.contains(#"value="St Anne's Abbey""#))
        let submitToken = try #require(Self.first(#"name="submit_token" value="[0-9a-f]{64}""#, in: form.body))
            .dropFirst(#"name="submit_token" value=""#.count).dropLast()
        let fields: [(String, String)] = [
            ("submit_token", String(submitToken)), ("name", "Cracked lintel"), ("designation", "LB"),
            ("condition", "poor"), ("occupancy", "vacant"), ("priority_category", "A"), ("owner_type", "private"),
            ("grade", "II"),
        ]
        let receipt = try await Self.post(tablet, "/kiosk/submit", fields, tokenFrom: "/kiosk/form")
        // The form page of a visit that has ended sends the tablet back; the token came from the live form.
        #expect(receipt.status == 200, "\(receipt.status) \(receipt.body.prefix(300))")
        let code = try #require(Self.first(#"[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}"#, in: receipt.body))
        #expect(receipt.body.contains("<svg") && receipt.headers["cache-control"] == "no-store")
        let row = try sqlite(
            server.dataDir,
            "SELECT origin, kiosk_id IS NOT NULL, review_state, state, latitude, longitude FROM reports WHERE name = 'Cracked lintel'"
        )
        #expect(row == "kiosk|1|received|queued|51.5|-0.12", "the site's location, waiting for review")
        let detail = try sqlite(server.dataDir, "SELECT detail FROM review_audit WHERE action = 'kiosk_submit'")
        #expect(detail.contains("the site's"))
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM kiosk_receipts WHERE code = '\(code)'") == "1")
        // Nothing the visitor left: the visit is over.
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM reports WHERE state = 'draft'") == "0")
        let admin = try await coordinator.get("/review/kiosks")
        #expect(admin.body.contains("<td>1</td><td>1</td><td>0.1.0</td>"), "today, waiting, version")
        try sqlite(
            server.dataDir, "UPDATE users SET platform_session_expires_at = 1 WHERE email = '\(Self.coordinator)'")
        #expect(try await coordinator.get("/review/kiosks").body.contains("signed out, reports wait"))
        // Sent as anonymous.
        let id = try #require(Int64(try sqlite(server.dataDir, "SELECT id FROM reports WHERE name = 'Cracked lintel'")))
        let report = try #require(try server.application.stores.outbox.report(id: id))
        #expect(report.isAnonymous && (try? report.newReport().get())?.isAnonymous == true)
        await server.stop()
    }

    /// KIO-07: revoking a kiosk sends its tablet to the not-enrolled page at its next request.
    /// KIO-03 bad input: a photo over the size limit is refused on both of the kiosk's upload routes (the
    /// visitor's screen and the device's outbox) with a 413, and the visit goes on: the next photo is kept.
    @Test func kio03OversizedPhotoRefusedOnBothUploadRoutesAndTheVisitGoesOn() async throws {
        let server = try Self.server(["HAR_MAX_FILE_BYTES": "20000"])
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        let (tablet, _) = try await Self.enrolledTablet(server, coordinator)
        let big = try TestImages.jpeg(width: 1200, height: 900)
        let small = try TestImages.jpeg()
        let size = { (path: String) in (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        #expect(size(big) > 20000 && size(small) < 20000)
        _ = try await Self.post(tablet, "/kiosk/start", [("app_version", "0.1.0")], tokenFrom: "/kiosk")
        let token = try SignedInClient.csrf(in: try await tablet.curl("/kiosk/photos", []).body)
        let screen = ["-X", "POST", "-H", "X-CSRF-Token: \(token)", "-H", "Accept: application/json"]
        let refused = try await tablet.curl("/kiosk/photos", screen + ["-F", "photo=@\(big);type=image/jpeg"])
        #expect(
            refused.status == 413 && refused.body.lowercased().contains("too large"),
            "\(refused.status) \(refused.body.prefix(200))")
        let kept = try await tablet.curl("/kiosk/photos", screen + ["-F", "photo=@\(small);type=image/jpeg"])
        #expect(kept.status == 201 && kept.body.contains("\"count\":1"), "\(kept.status) \(kept.body.prefix(200))")

        let session = try await tablet.curl("/kiosk/device/session", ["-H", "Accept: application/json"])
        let csrf = try #require(Self.first(#"[0-9a-f]{64}"#, in: session.body))
        let headers = ["-H", "X-CSRF-Token: \(csrf)", "-H", "Accept: application/json"]
        let id = UUID().uuidString.lowercased()
        #expect(try await tablet.curl("/kiosk/device/reports/\(id)", headers + ["-X", "POST"]).status == 200)
        let photos = "/kiosk/device/reports/\(id)/photos"
        let tooBig = try await tablet.curl(
            photos,
            headers + ["-F", "photo=@\(big);type=image/jpeg", "-F", "photo_id=\(UUID().uuidString.lowercased())"])
        #expect(
            tooBig.status == 413 && tooBig.body.lowercased().contains("too large"),
            "\(tooBig.status) \(tooBig.body.prefix(200))")
        let fits = try await tablet.curl(
            photos,
            headers + ["-F", "photo=@\(small);type=image/jpeg", "-F", "photo_id=\(UUID().uuidString.lowercased())"])
        #expect([200, 201].contains(fits.status), "\(fits.status) \(fits.body.prefix(200))")
    }

    /// A kiosk's photos go through the checks every photo upload passes on its head: no room on the
    /// disk (507), the quota of the account its reports are filed under (429); on both upload routes,
    /// before a byte of the photo is kept, and nothing is left in the uploads' folder.
    @Test func kio03KioskUploadsHaveTheRoomAndQuotaChecksOfEveryUpload() async throws {
        let small = try TestImages.jpeg()
        for (environment, status, words) in [
            (["HAR_UPLOAD_MIN_FREE_BYTES": String(1 << 50)], 507, "no room for photos"),
            (["HAR_PHOTOS_PER_DAY": "1"], 429, "in one day"),
        ] {
            let server = try Self.server(environment)
            let coordinator = try await SignedInClient(server, email: Self.coordinator)
            let (tablet, _) = try await Self.enrolledTablet(server, coordinator)
            _ = try await Self.post(tablet, "/kiosk/start", [("app_version", "0.1.0")], tokenFrom: "/kiosk")
            let token = try SignedInClient.csrf(in: try await tablet.curl("/kiosk/photos", []).body)
            let screen = ["-X", "POST", "-H", "X-CSRF-Token: \(token)", "-H", "Accept: application/json"]
            let first = try await tablet.curl("/kiosk/photos", screen + ["-F", "photo=@\(small);type=image/jpeg"])
            #expect(first.status == (status == 429 ? 201 : status), "\(first.status) \(first.body.prefix(200))")
            let second = try await tablet.curl("/kiosk/photos", screen + ["-F", "photo=@\(small);type=image/jpeg"])
            #expect(
                second.status == status && second.body.contains(words), "\(second.status) \(second.body.prefix(200))")

            let session = try await tablet.curl("/kiosk/device/session", ["-H", "Accept: application/json"])
            let csrf = try #require(Self.first(#"[0-9a-f]{64}"#, in: session.body))
            let headers = ["-H", "X-CSRF-Token: \(csrf)", "-H", "Accept: application/json"]
            let id = UUID().uuidString.lowercased()
            #expect(try await tablet.curl("/kiosk/device/reports/\(id)", headers + ["-X", "POST"]).status == 200)
            let device = try await tablet.curl(
                "/kiosk/device/reports/\(id)/photos",
                headers + ["-F", "photo=@\(small);type=image/jpeg", "-F", "photo_id=\(UUID().uuidString.lowercased())"])
            #expect(
                device.status == status && device.body.contains(words), "\(device.status) \(device.body.prefix(200))")
            let kept = status == 429 ? "1" : "0"
            #expect(try sqlite(server.dataDir, "SELECT COUNT(*) FROM photos") == kept)
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: server.dataDir + "/tmp")) ?? []).isEmpty)
            await server.stop()
        }
    }

    @Test func kio07RevokeAtOnce() async throws {
        let server = try Self.server()
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        let (tablet, _) = try await Self.enrolledTablet(server, coordinator)
        #expect(try await tablet.curl("/kiosk", []).status == 200)
        let kioskCookie = tablet.cookie("har_kiosk")
        let id = try sqlite(server.dataDir, "SELECT id FROM kiosks")
        let revoked = try await Self.post(
            coordinator.http, "/review/kiosks/\(id)/revoke", [], tokenFrom: "/review/kiosks")
        #expect(revoked.status == 303)
        let next = try await tablet.curl("/kiosk", [])
        #expect(next.status == 403 && next.body.contains("This tablet is not enrolled"))
        #expect(next.headers["x-har-kiosk"] == "not-enrolled", "the kiosk's service worker removes itself")
        // Elsewhere a dead credential refuses nothing: it is cleared and the browser is any browser.
        let signIn = try await tablet.curl("/signin", [])
        #expect(signIn.status == 200 && !signIn.body.contains("This tablet is not enrolled"))
        #expect(tablet.cookie("har_kiosk") == nil)
        tablet.setCookie("har_kiosk", try #require(kioskCookie))
        let photo = try TestImages.jpeg()
        let upload = try await tablet.curl("/kiosk/photos", ["-X", "POST", "-F", "photo=@\(photo);type=image/jpeg"])
        #expect(upload.status == 403, "refused on its head")
        #expect(try await coordinator.get("/review/kiosks").body.contains("Revoked"))
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM review_audit WHERE action = 'kiosk_revoke'") == "1")
        await server.stop()
    }

    /// KIO-02, KIO-05, off the network: the tablet's held report sent by the kiosk's device routes, each
    /// step twice (answers lost on the way back): one report, its photo once, the kiosk's, waiting for
    /// review; the same routes refuse a browser without the kiosk's credential.
    @Test func kio05HeldReportSentOnceByTheKioskDeviceRoutes() async throws {
        let server = try Self.server()
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        let (tablet, _) = try await Self.enrolledTablet(server, coordinator)
        let session = try await tablet.curl("/kiosk/device/session", ["-H", "Accept: application/json"])
        #expect(session.status == 200)
        let csrf = try #require(Self.first(#"[0-9a-f]{64}"#, in: session.body))
        let headers = ["-H", "X-CSRF-Token: \(csrf)", "-H", "Accept: application/json"]
        let id = UUID().uuidString.lowercased()
        for _ in 0..<2 {
            let opened = try await tablet.curl("/kiosk/device/reports/\(id)", headers + ["-X", "POST"])
            #expect(opened.status == 200 && opened.body.contains("\"state\":\"draft\""), "\(opened.body)")
        }
        let photo = UUID().uuidString.lowercased()
        let image = try TestImages.jpeg()
        for _ in 0..<2 {
            let uploaded = try await tablet.curl(
                "/kiosk/device/reports/\(id)/photos",
                headers + ["-F", "photo=@\(image);type=image/jpeg", "-F", "photo_id=\(photo)"])
            #expect([200, 201].contains(uploaded.status), "\(uploaded.status) \(uploaded.body.prefix(200))")
        }
        let fields = [
            "name=Held+report", "designation=LB", "condition=poor", "occupancy=vacant", "priority_category=A",
            "owner_type=private", "grade=II", "submit_token=\(String(repeating: "ab", count: 32))",
        ].joined(separator: "&")
        for _ in 0..<2 {
            let submitted = try await tablet.curl(
                "/kiosk/device/reports/\(id)/submit", headers + ["--data", fields])
            #expect(submitted.status == 200 && submitted.body.contains("submitted"), "\(submitted.body.prefix(300))")
        }
        let reopened = try await tablet.curl("/kiosk/device/reports/\(id)", headers + ["-X", "POST"])
        #expect(reopened.body.contains("\"state\":\"submitted\""))
        #expect(
            try sqlite(
                server.dataDir,
                "SELECT origin || ',' || review_state || ',' || state || ',' || (kiosk_id IS NOT NULL) FROM reports "
                    + "WHERE local_id = '\(id)'") == "kiosk,received,queued,1")
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM photos WHERE local_id = '\(photo)'") == "1")
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM kiosk_receipts") == "1")
        // Without the kiosk's credential (a volunteer's browser): refused.
        let volunteer = try await SignedInClient(server)
        let refused = try await volunteer.http.curl(
            "/kiosk/device/reports/\(UUID().uuidString.lowercased())", ["-X", "POST", "-H", "Accept: application/json"])
        #expect(refused.status == 403)
        await server.stop()
    }
}
