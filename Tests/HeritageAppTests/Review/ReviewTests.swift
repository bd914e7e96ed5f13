import Foundation
import PlatformClient
import SQLiteStorage
import Testing

@testable import HeritageApp

/// The coordinators' review on the real server: the application built in-process on a real
/// loopback socket and SQLite file, the embedded or a separate local platform, `har users` as a process.
@Suite(.serialized) struct ReviewTests {
    static let coordinator = "coord.\(UUID().uuidString.prefix(6).lowercased())@example.org"

    /// A server with `coordinator` named by `HAR_COORDINATORS` and the worker off unless asked.
    static func server(
        _ extra: [String: String] = [:], beforeStart: (_ dataDir: String) throws -> Void = { _ in }
    ) throws -> RunningServer {
        var environment = [
            // The domain's case does not count; the local part's does (REV-10, `GrantEmail`).
            "HAR_COORDINATORS": "someone@example.org, \(coordinator.replacing("@example.org", with: "@EXAMPLE.org"))",
            "HAR_PLATFORM_VERIFIED": "someone@example.org, \(coordinator.uppercased())",
        ]
        environment["HAR_WORKER_ENABLED"] = "false"
        environment.merge(extra) { $1 }
        return try RunningServer(environment: environment, beforeStart: beforeStart)
    }

    /// What a browser says of a request made from one of the site's own pages (Fetch Metadata).
    static let sameOrigin = ["-H", "Sec-Fetch-Site: same-origin"]

    /// A POST of form fields with the CSRF token of the page at `tokenFrom`.
    static func post(
        _ client: SignedInClient, _ path: String, _ fields: [(String, String)], tokenFrom: String = "/reports"
    ) async throws -> CurlResponse {
        let token = try SignedInClient.csrf(in: try await client.get(tokenFrom).body)
        var arguments = ["--data-urlencode", "_csrf=\(token)"]
        for (name, value) in fields { arguments += ["--data-urlencode", "\(name)=\(value)"] }
        return try await client.http.curl(path, arguments)
    }

    /// `count` submitted, queued reports of the user with that e-mail, written straight into the
    /// server's database (one photo row each), named `prefix N`; returns their ids in order.
    @discardableResult
    static func insertReports(_ server: RunningServer, email: String, count: Int, prefix: String) throws -> [Int64] {
        let now = Date().timeIntervalSince1970
        try sqlite(
            server.dataDir,
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO reports (user_id, local_id, state, name, designation, condition, grade, latitude, longitude,
                accuracy, creation_time, submitted_at, submit_token, updated_at)
            SELECT (SELECT id FROM users WHERE email = '\(email)'), lower(hex(randomblob(16))), 'queued',
                '\(prefix) ' || i, 'LB', 'poor', 'II', 48.85 + i * 0.01, 2.35, 8, \(now), \(now) + i,
                lower(hex(randomblob(16))), \(now) FROM n
            """)
        let ids = try sqlite(
            server.dataDir, "SELECT id FROM reports WHERE name LIKE '\(prefix) %' ORDER BY submitted_at"
        ).split(separator: "\n").compactMap { Int64($0) }
        try sqlite(
            server.dataDir,
            """
            INSERT INTO photos (report_id, local_id, position, content_type, size, sha256, latitude, longitude,
                accuracy, captured_at, created_at)
            SELECT id, lower(hex(randomblob(16))), 0, 'image/jpeg', 10, 'x', latitude, longitude, 8,
                '2026-05-01T10:00:00Z', \(now) FROM reports WHERE name LIKE '\(prefix) %'
            """)
        return ids
    }

    /// REV-01: every review route, as anonymous (to sign-in), as a volunteer (403 in their language,
    /// no data), as a coordinator (answered; the admins' routes 403), as an admin (answered).
    @Test func rev01EveryReviewRouteChecksTheRole() async throws {
        let server = try Self.server()
        let volunteer = try await SignedInClient(server)
        try Self.insertReports(server, email: volunteer.email, count: 1, prefix: "Secret chapel")
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        let anonymous = try HTTPClient(baseURL: server.baseURL)
        for route in ReviewRoutes.routes {
            let answer = try await anonymous.curl(route.path, ["-X", route.method])
            #expect(answer.status == 303, "anonymous \(route.method) \(route.path)")
            #expect(answer.headers["location"]?.hasPrefix("/signin") == true)

            let refused =
                route.method == "GET"
                ? try await volunteer.get(route.path)
                : try await Self.post(volunteer, route.path, [("action", "approve")])
            #expect(refused.status == 403, "volunteer \(route.method) \(route.path)")
            #expect(refused.body.contains("This page is for coordinators"))
            #expect(!refused.body.contains("Secret chapel"))

            let answered =
                route.method == "GET"
                ? try await coordinator.get(route.path, Self.sameOrigin)
                : try await Self.post(coordinator, route.path, [("action", "approve")], tokenFrom: "/review")
            if route.role == .admin {
                #expect(answered.status == 403, "coordinator \(route.method) \(route.path)")
            } else {
                #expect(answered.status != 403, "coordinator \(route.method) \(route.path)")
                #expect(answered.headers["location"]?.hasPrefix("/signin") != true)
            }
        }
        // In the volunteer's language.
        volunteer.http.setCookie("har_lang", "fr")
        let french = try await volunteer.get("/review")
        #expect(french.status == 403 && french.body.contains("Cette page est réservée aux coordinateurs"))
        // The dashboard shows the coordinator the report.
        #expect(try await coordinator.get("/review").body.contains("Secret chapel 1"))
        // An admin (granted in the store) reaches the roles page and grants from it.
        try server.application.stores.review.grant(
            email: Self.coordinator, role: .admin, actor: "test", now: Date().timeIntervalSince1970)
        #expect(try await coordinator.get("/review/users").status == 200)
        let granted = try await Self.post(
            coordinator, "/review/users", [("email", volunteer.email), ("role", "coordinator"), ("op", "grant")],
            tokenFrom: "/review/users")
        #expect(granted.status == 303)
        #expect(try await volunteer.get("/review").status == 403, "pending: the account is not verified")
        let account = try sqlite(server.dataDir, "SELECT account_id FROM users WHERE email = '\(volunteer.email)'")
        let confirmed = try await Self.post(
            coordinator, "/review/users", [("email", volunteer.email), ("op", "confirm"), ("account", account)],
            tokenFrom: "/review/users")
        #expect(confirmed.status == 303)
        #expect(try await volunteer.get("/review").status == 200, "a coordinator from their next request")
        await server.stop()
    }

    /// REV-01, REV-08: `har users` on the data folder while the server runs; each change audited.
    @Test func rev01UsersCommandWhileServing() async throws {
        let server = try Self.server()
        let volunteer = try await SignedInClient(server)
        #expect(try await volunteer.get("/review").status == 403)
        let environment = [
            "HAR_DATA_DIR": server.dataDir, "PATH": "/usr/bin:/bin", "USER": "operator",
            "HAR_COORDINATORS": Self.coordinator, "HAR_PLATFORM_VERIFIED": Self.coordinator,
        ]
        func har(_ arguments: [String]) async throws -> ProgramResult {
            try await runProgram(TestPaths.harExecutable, ["users"] + arguments, environment: environment)
        }
        let grant = try await har(["grant", volunteer.email, "coordinator"])
        #expect(grant.status == 0, "\(grant.stderr)")
        let account = try sqlite(server.dataDir, "SELECT account_id FROM users WHERE email = '\(volunteer.email)'")
        #expect(try await har(["confirm", volunteer.email, "--account", account]).status == 0)
        #expect(try await volunteer.get("/review").status == 200)
        let list = try await har(["list"])
        #expect(list.stdout.contains("\(volunteer.email)\tcoordinator (confirmed by cli:operator "), "\(list.stdout)")
        #expect(
            list.stdout.contains("\(Self.coordinator)\tcoordinator (pending: no sign-in yet)\tgranted by configuration")
        )
        #expect(try await har(["grant", volunteer.email, "volunteer"]).status == 64)
        #expect(try await har(["revoke", volunteer.email]).status == 0)
        #expect(try await volunteer.get("/review").status == 403)
        let audit = try sqlite(
            server.dataDir,
            "SELECT actor || ' ' || action || ' ' || subject FROM review_audit WHERE actor != 'configuration'")
        #expect(
            audit
                == "cli:operator role_grant \(volunteer.email)\ncli:operator role_confirm \(volunteer.email)\n"
                + "cli:operator role_revoke \(volunteer.email)")
        await server.stop()
    }

    /// REV-08: no statement changes or removes an audit row: the database refuses it.
    @Test func rev08AuditLogRefusesChanges() async throws {
        let server = try Self.server()
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        let id = try #require(try Self.insertReports(server, email: coordinator.email, count: 1, prefix: "Mill").first)
        #expect(
            try await Self.post(
                coordinator, "/review/reports/\(id)/action", [("action", "approve")], tokenFrom: "/review"
            )
            .status == 303)
        #expect(throws: (any Error).self) { try sqlite(server.dataDir, "UPDATE review_audit SET actor = 'x'") }
        #expect(throws: (any Error).self) { try sqlite(server.dataDir, "DELETE FROM review_audit") }
        let page = try await coordinator.get("/review/audit?action=approve")
        #expect(page.body.contains(Self.coordinator) && page.body.contains("#\(id)"))
        let csv = try await coordinator.get("/review/audit.csv?action=approve", Self.sameOrigin)
        #expect(csv.body.contains("approve") && csv.headers["content-type"]?.hasPrefix("text/csv") == true)
        await server.stop()
    }

    /// REV-07: two coordinators decide the same report at once: exactly one wins, each other answer says
    /// who did what; the audit log has one decision.
    @Test func rev07ConcurrentDecisionsOneWins() async throws {
        let server = try Self.server([
            "HAR_COORDINATORS": "one@example.org,two@example.org",
            "HAR_PLATFORM_VERIFIED": "one@example.org,two@example.org",
        ])
        let one = try await SignedInClient(server, email: "one@example.org")
        let two = try await SignedInClient(server, email: "two@example.org")
        let id = try #require(try Self.insertReports(server, email: one.email, count: 1, prefix: "Tower").first)
        let tokens = [
            try SignedInClient.csrf(in: try await one.get("/review").body),
            try SignedInClient.csrf(in: try await two.get("/review").body),
        ]
        let baseURL = server.baseURL
        let cookies = [one.http.cookie("har_session") ?? "", two.http.cookie("har_session") ?? ""]
        let answers = try await withThrowingTaskGroup(of: CurlResponse.self) { group in
            for attempt in 0..<8 {
                group.addTask {
                    let client = try HTTPClient(baseURL: baseURL)
                    client.setCookie("har_session", cookies[attempt % 2])
                    let action = attempt % 2 == 0 ? ["action=approve"] : ["action=reject", "reason=test"]
                    var arguments = ["--data-urlencode", "_csrf=\(tokens[attempt % 2])"]
                    for field in action { arguments += ["--data-urlencode", field] }
                    return try await client.curl("/review/reports/\(id)/action", arguments)
                }
            }
            var all: [CurlResponse] = []
            for try await answer in group { all.append(answer) }
            return all
        }
        #expect(answers.filter { $0.status == 303 }.count == 1, "one wins")
        #expect(answers.filter { $0.status == 409 }.count == 7)
        let decided = try sqlite(
            server.dataDir, "SELECT reviewed_by || ' ' || review_state FROM reports WHERE id = \(id)")
        for loser in answers where loser.status == 409 {
            #expect(loser.body.contains("Already done by \(decided.split(separator: " ")[0])"))
        }
        let decisions = try sqlite(
            server.dataDir,
            "SELECT count(*) FROM review_audit WHERE report_id = \(id) AND action IN ('approve', 'reject')")
        #expect(decisions == "1")
        await server.stop()
    }

    /// REV-07: bulk over all matching the filter: confirmed with the exact count, answered per report;
    /// the same again skips each one, saying it was already done.
    @Test func rev07BulkConfirmedWithCountAndPerReportResults() async throws {
        let server = try Self.server()
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        try Self.insertReports(server, email: coordinator.email, count: 60, prefix: "Barn")
        try Self.insertReports(server, email: coordinator.email, count: 5, prefix: "Mill")
        let dashboard = try await coordinator.get("/review?q=barn")
        #expect(dashboard.body.contains("60 reports match"))
        #expect(dashboard.body.contains("rel=\"next\""), "keyset paging: 50 on the first page")
        let asked = [("q", "barn"), ("action", "approve"), ("scope", "all")]
        let question = try await Self.post(coordinator, "/review/bulk", asked, tokenFrom: "/review")
        #expect(question.status == 200 && question.body.contains("Approve: 60 reports. Confirm?"))
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM reports WHERE review_state = 'approved'") == "0")
        // The question carries the ids it counted; the confirmation acts on those (REV-07).
        let snapshot = try #require(KioskTests.first(#"name="snapshot" value="[0-9,-]+""#, in: question.body))
            .dropFirst(#"name="snapshot" value=""#.count).dropLast()
        let fields = asked + [("snapshot", String(snapshot))]
        let wrongCount = try await Self.post(
            coordinator, "/review/bulk", fields + [("confirm", "59")], tokenFrom: "/review")
        #expect(wrongCount.body.contains("Confirm?"), "a count that no longer matches asks again")
        let done = try await Self.post(coordinator, "/review/bulk", fields + [("confirm", "60")], tokenFrom: "/review")
        #expect(done.body.contains("Approve: 60 done, 0 skipped."))
        #expect(done.body.components(separatedBy: "class=\"bulk-done\"").count == 61)
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM reports WHERE review_state = 'approved'") == "60")
        // Undo, within its 10 seconds: another coordinator cannot take back this one's decisions; the
        // coordinator can, once.
        #expect(done.body.contains("id=\"undo-form\""))
        let doneIDs = try sqlite(server.dataDir, "SELECT id FROM reports WHERE name LIKE 'Barn %' LIMIT 3")
            .split(separator: "\n").map { ("ids", String($0)) }
        let other = try await SignedInClient(server, email: "someone@example.org")
        let refused = try await Self.post(
            other, "/review/bulk/undo", [("action", "approve")] + doneIDs, tokenFrom: "/review")
        #expect(refused.body.contains("Undo: 0 done, 3 skipped.") && refused.body.contains("Too late to undo"))
        let undone = try await Self.post(
            coordinator, "/review/bulk/undo", [("action", "approve")] + doneIDs, tokenFrom: "/review")
        #expect(undone.body.contains("Undo: 3 done, 0 skipped."))
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM reports WHERE review_state = 'approved'") == "57")
        let twice = try await Self.post(
            coordinator, "/review/bulk/undo", [("action", "approve")] + doneIDs, tokenFrom: "/review")
        #expect(twice.body.contains("Undo: 0 done, 3 skipped."))
        let again = try await Self.post(coordinator, "/review/bulk", fields + [("confirm", "60")], tokenFrom: "/review")
        // The three undone are received again and approved now; the rest were approved already.
        #expect(again.body.contains("Approve: 3 done, 57 skipped."))
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM reports WHERE review_state = 'approved'") == "60")
        #expect(again.body.contains("Already done by \(Self.coordinator)"))
        // Discard and restore, from the bulk form too: out of the view, into the trash, and back.
        let barn = try #require(
            try sqlite(server.dataDir, "SELECT id FROM reports WHERE name = 'Barn 1'").split(separator: "\n").first)
        let discard = [("action", "discard"), ("scope", "selected"), ("ids", String(barn)), ("confirm", "1")]
        #expect(try await Self.post(coordinator, "/review/bulk", discard, tokenFrom: "/review").body.contains("1 done"))
        #expect(try await coordinator.get("/review?q=barn").body.contains("59 reports match"))
        #expect(try await coordinator.get("/review?q=barn&trash=1").body.contains("1 reports match"))
        let restore = try await Self.post(
            coordinator, "/review/reports/\(barn)/action", [("action", "restore")], tokenFrom: "/review")
        #expect(restore.status == 303)
        #expect(try await coordinator.get("/review?q=barn").body.contains("60 reports match"))
        // Ticked rows.
        let mills = try sqlite(server.dataDir, "SELECT id FROM reports WHERE name LIKE 'Mill %'").split(separator: "\n")
        let ticked =
            [("action", "reject"), ("reason", "test"), ("scope", "selected")]
            + mills.prefix(2).map {
                ("ids", String($0))
            }
        let confirm = try await Self.post(coordinator, "/review/bulk", ticked, tokenFrom: "/review")
        #expect(confirm.body.contains("Reject: 2 reports. Confirm?"))
        _ = try await Self.post(coordinator, "/review/bulk", ticked + [("confirm", "2")], tokenFrom: "/review")
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM reports WHERE review_state = 'rejected'") == "2")
        await server.stop()
    }

    /// REV-04, REV-02: needs info round trip; the reporter reads the message in their list, corrects the
    /// name and sends it back; the dashboard counts the reply; the history shows each step.
    @Test func rev04NeedsInfoRoundTrip() async throws {
        let server = try Self.server()
        let volunteer = try await SignedInClient(server)
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        let id = try #require(try Self.insertReports(server, email: volunteer.email, count: 1, prefix: "Chapl").first)
        let localID = try sqlite(server.dataDir, "SELECT local_id FROM reports WHERE id = \(id)")
        let asked = try await Self.post(
            coordinator, "/review/reports/\(id)/action",
            [("action", "needs_info"), ("message", "Which chapel is it?")], tokenFrom: "/review")
        #expect(asked.status == 303)
        let list = try await volunteer.get("/reports")
        #expect(list.body.contains("A coordinator needs more information") && list.body.contains("Which chapel is it?"))
        #expect(list.body.contains("/reports/\(localID)/reply"))
        let form = try await volunteer.get("/reports/\(localID)/reply")
        #expect(form.status == 200 && form.body.contains("Which chapel is it?"))
        let sent = try await Self.post(
            volunteer, "/reports/\(localID)/reply", [("name", "Chapel of St Anne"), ("note", "The one by the river")])
        #expect(sent.status == 303)
        #expect(
            try sqlite(server.dataDir, "SELECT review_state || '|' || name FROM reports WHERE id = \(id)")
                == "received|Chapel of St Anne")
        #expect(try await volunteer.get("/reports/\(localID)/reply").status == 404)
        let dashboard = try await coordinator.get("/review")
        #expect(dashboard.body.contains("Reporter replied <strong>1</strong>"))
        let page = try await coordinator.get("/review/reports/\(id)")
        #expect(page.body.contains("The one by the river") && page.body.contains("Ask for information"))
        await server.stop()
    }

    /// REV-04: the answer's form corrects the fields (checked as the submission form checks them) and
    /// adds photos through the upload's checks: signed in and the CSRF header before the body, one
    /// decodable image, the 20 photos' limit, only the reporter's own report while it waits for their
    /// answer. The coordinator's page shows the photo added; the audit log names it; the map of the
    /// photos (REV-06) has the located one.
    @Test func rev04ReplyCorrectsFieldsAndAddsPhotosWithTheUploadChecks() async throws {
        let server = try Self.server(["HAR_REVIEW_POLICY": "all"])
        let volunteer = try await SignedInClient(server)
        let stranger = try await SignedInClient(server)
        let coordinator = try await SignedInClient(server, email: Self.coordinator)
        let id = try #require(try Self.insertReports(server, email: volunteer.email, count: 1, prefix: "Barn").first)
        let localID = try sqlite(server.dataDir, "SELECT local_id FROM reports WHERE id = \(id)")
        let photosPath = "/api/reports/\(localID)/reply/photos"
        let jpeg = try TestImages.jpeg()
        func upload(_ client: SignedInClient, file: String = jpeg, token: String?) async throws -> CurlResponse {
            try await client.http.curl(
                photosPath,
                ["-X", "POST", "-H", "Accept: application/json", "-F", "photo=@\(file);type=image/jpeg"]
                    + (token.map { ["-H", "X-CSRF-Token: \($0)"] } ?? []))
        }
        let strangerToken = try SignedInClient.csrf(in: try await stranger.get("/reports").body)
        #expect(try await upload(volunteer, token: nil).status == 403, "no CSRF header: refused before the body")
        #expect(try await upload(volunteer, token: strangerToken).status == 403, "another session's token")
        let early = try SignedInClient.csrf(in: try await volunteer.get("/reports").body)
        #expect(try await upload(volunteer, token: early).status == 409, "not asked anything: nothing to add to")

        _ = try await Self.post(
            coordinator, "/review/reports/\(id)/action", [("action", "needs_info"), ("message", "A closer photo?")],
            tokenFrom: "/review")
        let form = try await volunteer.get("/reports/\(localID)/reply")
        #expect(form.status == 200 && form.body.contains("A closer photo?") && form.body.contains("id=\"reply-file\""))
        #expect(form.body.contains("id=\"field-condition\"") && form.body.contains("Adding photos needs JavaScript"))
        let token = try SignedInClient.csrf(in: form.body)
        #expect(try await upload(stranger, token: strangerToken).status == 409, "not the stranger's report")
        let anonymous = try HTTPClient(baseURL: server.baseURL)
        #expect(try await anonymous.curl(photosPath, ["-X", "POST", "-F", "photo=@\(jpeg)"]).status == 401)
        let text = try await upload(volunteer, file: try TestImages.file("not a photo", name: "x.jpg"), token: token)
        #expect(text.status == 415 && text.body.contains("JPEG, PNG or WebP"))
        let added = try await upload(volunteer, token: token)
        #expect(added.status == 201, "\(added.body)")
        let photoID = try volunteer.photoID(added)
        #expect(FileManager.default.fileExists(atPath: server.dataDir + "/photos/" + photoID + ".thumb.jpg"))
        #expect(try sqlite(server.dataDir, "SELECT state FROM photos WHERE local_id = '\(photoID)'") == "pending")
        for _ in 0..<18 { #expect(try await upload(volunteer, token: token).status == 201) }
        let full = try await upload(volunteer, token: token)
        #expect(full.status == 409 && full.body.contains("at most 20 photos"))
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM photos WHERE report_id = \(id)") == "20")

        // The fields: a crafted code is refused in the reporter's words; a good correction is kept.
        let bad = try await Self.post(
            volunteer, "/reports/\(localID)/reply", [("name", "Tithe barn"), ("condition", "splendid")],
            tokenFrom: "/reports/\(localID)/reply")
        #expect(bad.status == 422 && bad.body.contains("aria-invalid=\"true\""))
        let sent = try await Self.post(
            volunteer, "/reports/\(localID)/reply",
            [("name", "Tithe barn"), ("condition", "fair"), ("note", "Closer photos added")],
            tokenFrom: "/reports/\(localID)/reply")
        #expect(sent.status == 303)
        #expect(
            try sqlite(
                server.dataDir, "SELECT review_state || '|' || name || '|' || condition FROM reports WHERE id = \(id)")
                == "received|Tithe barn|fair")
        #expect(try await upload(volunteer, token: token).status == 409, "answered: no more photos")
        let page = try await coordinator.get("/review/reports/\(id)")
        #expect(page.body.contains("/review/photos/\(photoID)"))
        // REV-06: the map of the photos gets the located one (the added photo has no position).
        #expect(page.body.contains("id=\"photo-map\"") && page.body.contains("data-points=\"[[48.86,2.35,8.0,1]]\""))
        #expect(page.body.contains("Reporter added a photo") && page.body.contains("condition: poor → fair"))
        await server.stop()
    }
}
