import Foundation
import Testing

@testable import HeritageApp

/// Coordinators' and administrators' mail (NOT-02) on the real server, its mail worker and a real SMTP
/// server (Tests/mail/smtp_sink.py): each report as it arrives, capped an hour; digests once per period,
/// made by the digest pass run with the test's own clock (no waiting an hour or a day); the
/// administrators' daily note; a kiosk visitor who claimed a receipt; the failed mail page.
@Suite(.serialized) struct CoordinatorMailTests {
    static func mailEnvironment(_ sink: SMTPSink, _ extra: [String: String] = [:]) -> [String: String] {
        [
            "HAR_SMTP_URL": sink.url, "HAR_SMTP_FROM": "har@example.org", "HAR_PUBLIC_URL": "https://har.example.org",
            "HAR_RETRY_BASE_SECONDS": "0.2", "HAR_RETRY_CAP_SECONDS": "1",
        ].merging(extra) { $1 }
    }

    /// The coordinator's choice saved on /review/settings, as the form sends it.
    static func choose(
        _ client: SignedInClient, mode: String, hour: Int = 8, zone: String = "UTC", adminNote: Bool = false
    ) async throws -> CurlResponse {
        var fields = [("mode", mode), ("hour", String(hour)), ("time_zone", zone)]
        if adminNote { fields.append(("admin_note", "1")) }
        return try await ReviewTests.post(client, "/review/settings", fields, tokenFrom: "/review/settings")
    }

    /// A report a kiosk's visitor submits, through the stores the kiosk's routes use (the visit, a photo,
    /// the submission, the receipt); returns the report's id.
    @discardableResult
    static func kioskReport(
        _ server: RunningServer, kioskID: Int64, name: String, receipt: (code: String, secret: String)? = nil
    ) throws -> Int64 {
        let stores = server.application.stores
        let now = Date().timeIntervalSince1970
        let visit = try #require(
            try stores.kiosks.startVisit(kioskID: kioskID, localID: UUID().uuidString.lowercased(), now: now).draft)
        try submit(visit, userID: visit.userID, name: name, stores: stores, now: now)
        let reportID = try #require(try stores.outbox.reportID(localID: visit.localID))
        let secret = receipt?.secret ?? WebSessions.newToken()
        let code = receipt?.code ?? String(UUID().uuidString.prefix(8))
        #expect(
            try stores.kiosks.recordSubmission(
                kioskID: kioskID, reportID: reportID,
                receipt: NewReceipt(
                    code: code, secretHash: try #require(WebSessions.hash(token: secret)), expiresAt: now + 3600,
                    usedSiteLocation: false), now: now))
        return reportID
    }

    /// A draft given one photo and the form's answers, then submitted through the drafts' store.
    static func submit(_ draft: Draft, userID: Int64, name: String, stores: Stores, now: Double) throws {
        _ = try stores.drafts.addPhoto(
            NewPhoto(
                localID: UUID().uuidString.lowercased(), contentType: "image/jpeg", size: 1, sha256: "ab", width: 1,
                height: 1, fix: PhotoFix(latitude: 51.6, longitude: -0.2, accuracy: 5),
                capturedAt: "2026-05-01T10:00:00Z"),
            to: draft, now: now)
        let fields = ReportFields(
            name: name, designation: "LB", condition: "poor", occupancy: "vacant", priorityCategory: "A",
            ownerType: "private", grade: "II")
        #expect(
            try stores.drafts.submit(
                draftLocalID: draft.localID, userID: userID, fields: fields, token: UUID().uuidString, now: now)
                == .queued)
    }

    /// A volunteer's report submitted through the drafts' store, as the submit page does.
    static func volunteerReport(_ server: RunningServer, email: String, name: String) throws {
        let stores = server.application.stores
        let now = Date().timeIntervalSince1970
        let userID = try #require(Int64(try sqlite(server.dataDir, "SELECT id FROM users WHERE email = '\(email)'")))
        let (draft, _) = try stores.drafts.openDraft(userID: userID, now: now, freshSince: now - 10)
        try submit(draft, userID: userID, name: name, stores: stores, now: now)
    }

    /// A visitor's report on the kiosk's pages (KioskTests' flow).
    static func submitOnTablet(_ tablet: HTTPClient, name: String) async throws {
        let receipt = try await KioskTests.fileVisit(tablet, name: name, start: [("app_version", "0.1.0")])
        #expect(receipt.status == 200, "\(receipt.status) \(receipt.body.prefix(300))")
    }

    /// The start of the next UTC hour `hour` o'clock after `now`.
    static func nextUTC(hour: Int, after now: Double) -> Double {
        let today = (now / 86_400).rounded(.down) * 86_400 + Double(hour * 3600)
        return today > now ? today : today + 86_400
    }

    @Test(
        "NOT-02, NOT-05: a coordinator who chose each kiosk report gets one mail per kiosk report, a hostile title injecting nothing; past the hourly cap the rest are folded into the next hour's digest"
    )
    func eachKioskReportThenTheCapFoldsIntoTheDigest() async throws {
        let sink = try await SMTPSink()
        let server = try ReviewTests.server(Self.mailEnvironment(sink, ["HAR_MAIL_IMMEDIATE_PER_HOUR": "2"]))
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let page = try await coordinator.get("/review/settings")
        #expect(page.status == 200 && page.body.contains(#"value="none" checked"#), "nothing until chosen")
        #expect(page.body.contains("At most 2 e-mails an hour"))
        #expect(try await Self.choose(coordinator, mode: "each_kiosk").status == 303)
        #expect(try await coordinator.get("/review/settings").body.contains(#"value="each_kiosk" checked"#))
        let (tablet, _) = try await KioskTests.enrolledTablet(server, coordinator)
        let kioskID = try #require(Int64(try sqlite(server.dataDir, "SELECT id FROM kiosks")))
        // A volunteer's report is not a kiosk's: no mail for it.
        let volunteer = try await SignedInClient(server)
        try Self.volunteerReport(server, email: volunteer.email, name: "Volunteer 1")
        // The first through the tablet's own pages, as a visitor submits; the others as its outbox does.
        try await Self.submitOnTablet(tablet, name: "Kiosk 1")
        // NOT-05: a visitor's hostile title is one line of the subject and escaped text in the HTML.
        let hostile = "Kiosk 2\r\nBcc: evil@example.org <b>x</b>"
        for name in [hostile, "Kiosk 3"] { try Self.kioskReport(server, kioskID: kioskID, name: name) }

        let mails = try await sink.waitForMessages(2)
        #expect(
            Set(mails.map { $0["subject"] ?? "" }) == [
                "A report to review: “Kiosk 1”", "A report to review: “Kiosk 2 Bcc: evil@example.org <b>x</b>”",
            ])
        #expect(mails.allSatisfy { !$0.headerNames.contains { $0.lowercased() == "bcc" } })
        #expect(mails.contains { $0.html.contains("Kiosk 2 Bcc: evil@example.org &lt;b&gt;x&lt;/b&gt;") })
        #expect(mails.allSatisfy { !$0.html.contains("<b>x") })
        #expect(try sink.envelope(2)["to"] as? [String] == [ReviewTests.coordinator])
        #expect(mails.allSatisfy { $0.text.contains("https://har.example.org/review?review=received") })
        #expect(try sink.envelope(1)["to"] as? [String] == [ReviewTests.coordinator])
        #expect(
            try sqlite(
                server.dataDir,
                "SELECT group_concat(state || ':' || coalesce(detail, ''), ',') FROM (SELECT state, detail FROM mail_outbox WHERE kind = 'report_arrived' ORDER BY id)"
            ).replacing("sending", with: "sent").replacing("queued", with: "sent") == "sent:,sent:,skipped:folded")

        // The next hour: one digest, with the folded report; a second pass in that hour makes none.
        let nextHour = ((Date().timeIntervalSince1970 / 3600).rounded(.down) + 1) * 3600
        #expect(server.application.mailDigests.run(now: nextHour + 5) == 1)
        #expect(server.application.mailDigests.run(now: nextHour + 600) == 0)
        let digest = try #require(try await sink.waitForMessages(3).last)
        #expect(digest["subject"] == "Review digest: 4 reports waiting")
        #expect(digest.text.contains("Reports past the hourly limit of e-mails: 1"))
        #expect(digest.text.contains("https://har.example.org/review?delivery=needs_attention"))
        try await Task.sleep(for: .seconds(2))
        #expect(sink.messageFiles().count == 3, "one mail each, nothing twice")
        await server.stop()
    }

    @Test(
        "NOT-02: a coordinator who chose the daily digest gets one mail a day, in their language, with the counts and the oldest report's age; the bell shows the same"
    )
    func theDailyDigestOnceADayWithTheCounts() async throws {
        let sink = try await SMTPSink()
        let server = try ReviewTests.server(Self.mailEnvironment(sink))
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        #expect(try await ReviewTests.post(coordinator, "/lang", [("lang", "fr"), ("back", "/review")]).status == 303)
        // Bad input: a time zone that is none, in the page's language.
        let refused = try await Self.choose(coordinator, mode: "daily", zone: "Mars/Olympus")
        #expect(refused.status == 422 && refused.body.contains("Fuseau horaire inconnu"))
        // Tokyo has no summer time: its hour H is always UTC H-9. The digest's hour is twelve hours
        // away, so the server's own pass (on the real clock) has no period due during the test.
        let now = Date().timeIntervalSince1970
        let utcHour = (Int(now / 3600) % 24 + 12) % 24
        #expect(
            try await Self.choose(coordinator, mode: "daily", hour: (utcHour + 9) % 24, zone: "Asia/Tokyo").status
                == 303)
        let volunteer = try await SignedInClient(server)
        let ids = try ReviewTests.insertReports(server, email: volunteer.email, count: 3, prefix: "Waiting")
        let first = Self.nextUTC(hour: utcHour, after: now) + 60
        try sqlite(server.dataDir, "UPDATE reports SET submitted_at = \(first - 30 * 3600 - 120) WHERE id = \(ids[0])")
        try sqlite(server.dataDir, "UPDATE reports SET state = 'needs_attention' WHERE id = \(ids[1])")

        #expect(server.application.mailDigests.run(now: first) == 1)
        #expect(server.application.mailDigests.run(now: first + 3 * 3600) == 0, "once a day")
        let mail = try #require(try await sink.waitForMessages(1).first)
        #expect(mail["subject"] == "Résumé de la revue : 3 signalements en attente")
        #expect(mail["content_language"] == "fr")
        #expect(mail.text.contains("Signalements en attente de revue : 3"))
        #expect(mail.text.contains("Le plus ancien attend depuis 30 h"))
        #expect(mail.text.contains("Échecs d’envoi en attente : 1"))
        #expect(mail.text.contains("https://har.example.org/review?review=received&sort=oldest"))
        let html = mail.html.replacing("&#61;", with: "=").replacing("&amp;", with: "&")
        #expect(html.contains(#"href="https://har.example.org/review?review=received&sort=oldest""#))
        #expect(mail["list_unsubscribe_post"] == "List-Unsubscribe=One-Click")

        // The bell: the digest's counts on the coordinator's notifications page.
        let notices = try await coordinator.get("/notifications")
        #expect(
            notices.body.contains(
                "Résumé de la revue : 3 en attente (le plus ancien depuis 30 h), 0 réponses, 1 échecs d’envoi"))

        #expect(server.application.mailDigests.run(now: first + 86_400) == 1, "the next day")
        let next = try await sink.waitForMessages(2)
        #expect(next.last?.text.contains("Le plus ancien attend depuis 2 jours") == true)
        try await Task.sleep(for: .seconds(2))
        #expect(sink.messageFiles().count == 2)
        await server.stop()
    }

    @Test("NOT-02: an administrator gets a daily note when a delivery failure is older than a day")
    func administratorsDailyNote() async throws {
        let sink = try await SMTPSink()
        let server = try ReviewTests.server(Self.mailEnvironment(sink))
        let email = "admin.\(UUID().uuidString.prefix(6).lowercased())@example.org"
        let admin = try await SignedInClient(server, email: email)
        try await ReviewTests.grantConfirmed(server.dataDir, email, .admin)
        let now = Date().timeIntervalSince1970
        let utcHour = (Int(now / 3600) % 24 + 12) % 24
        #expect(try await Self.choose(admin, mode: "none", hour: utcHour, adminNote: true).status == 303)
        let first = Self.nextUTC(hour: utcHour, after: now) + 60
        let volunteer = try await SignedInClient(server)
        let ids = try ReviewTests.insertReports(server, email: volunteer.email, count: 2, prefix: "Stuck")
        // One failure for two days, one for an hour: only the first is old enough to tell.
        try sqlite(
            server.dataDir,
            "UPDATE reports SET state = 'needs_attention', updated_at = \(first - 2 * 86_400) WHERE id = \(ids[0])")
        try sqlite(
            server.dataDir,
            "UPDATE reports SET state = 'needs_attention', updated_at = \(first - 3600) WHERE id = \(ids[1])")

        #expect(server.application.mailDigests.run(now: first) == 1)
        #expect(server.application.mailDigests.run(now: first + 600) == 0)
        let mail = try #require(try await sink.waitForMessages(1).first)
        #expect(mail["subject"] == "Heritage at Risk: problems older than a day")
        #expect(mail.text.contains("Reports whose delivery failed: 1"))
        #expect(mail.text.contains("Kiosks not heard from: 0"))
        #expect(try sink.envelope(1)["to"] as? [String] == [email])
        await server.stop()
    }

    @Test("NOT-03: a kiosk visitor who claimed the receipt gets the reporter's notice, linked to the receipt's page")
    func aReceiptClaimerGetsTheReportersNotice() async throws {
        let sink = try await SMTPSink()
        let server = try ReviewTests.server(Self.mailEnvironment(sink))
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        _ = try await KioskTests.enrolledTablet(server, coordinator)
        let kioskID = try #require(Int64(try sqlite(server.dataDir, "SELECT id FROM kiosks")))
        let secret = WebSessions.newToken()
        let id = try Self.kioskReport(server, kioskID: kioskID, name: "Claimed arch", receipt: ("M7Q4-K2XD", secret))
        let visitor = try await SignedInClient(server)
        let claimed = try await KioskTests.post(
            visitor.http, "/r/M7Q4-K2XD/claim", [("secret", secret)], tokenFrom: "/reports")
        #expect(claimed.status == 303)
        let asked = try await ReviewTests.post(
            coordinator, "/review/reports/\(id)/action", [("action", "needs_info"), ("message", "Which arch?")],
            tokenFrom: "/review")
        #expect(asked.status == 303)
        let mail = try #require(try await sink.waitForMessages(1).first)
        #expect(try sink.envelope(1)["to"] as? [String] == [visitor.email])
        #expect(mail["subject"] == "Your report “Claimed arch” needs more information")
        #expect(mail.text.contains("Which arch?") && mail.text.contains("https://har.example.org/r/M7Q4-K2XD"))
        // In the app too; opening it goes to the receipt's page.
        let notice = try sqlite(server.dataDir, "SELECT id FROM mail_outbox WHERE kind = 'needs_info'")
        let opened = try await visitor.get("/notifications/\(notice)")
        #expect(opened.status == 303 && opened.headers["location"] == "/r/M7Q4-K2XD")
        await server.stop()
    }

    @Test(
        "NOT-04: the failed mail page shows who, what, when and the server's answer, never the password; retry queues it again"
    )
    func theFailedMailPageAndItsRetry() async throws {
        let password = "pw-\(UUID().uuidString)"
        let sink = try await SMTPSink(["--reject", "--auth", "alice:" + password])
        let server = try ReviewTests.server(
            Self.mailEnvironment(sink, ["HAR_SMTP_USER": "alice", "HAR_SMTP_PASSWORD": password]))
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let volunteer = try await SignedInClient(server)
        let id = try #require(
            try ReviewTests.insertReports(server, email: volunteer.email, count: 1, prefix: "Refused").first)
        let asked = try await ReviewTests.post(
            coordinator, "/review/reports/\(id)/action", [("action", "needs_info"), ("message", "Where?")],
            tokenFrom: "/review")
        #expect(asked.status == 303)
        try await waitUntil("the refusal is recorded", timeout: 30) {
            try sqlite(server.dataDir, "SELECT state FROM mail_outbox") == "failed"
        }
        #expect(try await coordinator.get("/review/mail").status == 403, "administrators only")
        let email = "admin.\(UUID().uuidString.prefix(6).lowercased())@example.org"
        let admin = try await SignedInClient(server, email: email)
        try await ReviewTests.grantConfirmed(server.dataDir, email, .admin)
        let page = try await admin.get("/review/mail")
        #expect(page.status == 200, "\(page.body.prefix(2000))")
        #expect(page.body.contains("<td>\(volunteer.email)</td><td>Question to a reporter</td>"))
        #expect(page.body.contains("<code>550 "), "the server's answer")
        #expect(!page.body.contains(password))
        #expect(try await admin.get("/review").body.contains(#"<a href="/review/mail">Failed mail</a>"#))
        #expect(try await ReviewTests.post(admin, "/lang", [("lang", "fr"), ("back", "/review")]).status == 303)
        #expect(try await admin.get("/review/mail").body.contains("Question à un auteur"))

        // Retry, with the worker stopped so that the row is seen back in the queue before it is tried.
        server.application.mailWorker?.stop()
        let notice = try sqlite(server.dataDir, "SELECT id FROM mail_outbox")
        let retried = try await ReviewTests.post(admin, "/review/mail/\(notice)/retry", [], tokenFrom: "/review/mail")
        #expect(retried.status == 303 && retried.headers["location"] == "/review/mail?retried=1")
        #expect(try sqlite(server.dataDir, "SELECT state || '|' || attempts FROM mail_outbox") == "queued|0")
        #expect(try await admin.get("/review/mail").body.contains("Aucun courriel en échec."))
        let again = try await ReviewTests.post(
            admin, "/review/mail/\(notice)/retry", [], tokenFrom: "/review/settings")
        #expect(again.status == 409, "only a failed message")
        await server.stop()
    }
}

/// The digest's periods (NOT-02) on known dates: a daily digest at 8 in Paris follows summer time.
@Suite struct DigestScheduleTests {
    @Test("NOT-02: a daily digest at 08:00 Europe/Paris is at 06:00 UTC in July and 07:00 UTC in January")
    func dailyPeriodsFollowTheTimeZone() throws {
        let paris = try #require(ZoneOffsets(name: "Europe/Paris"))
        // 2026-07-01T06:30:00Z and 2026-01-15T06:30:00Z.
        let july = DigestSchedule.current(daily: true, hour: 8, zone: paris, now: 1_782_887_400)
        #expect(july.start == 1_782_885_600)
        let january = DigestSchedule.current(daily: true, hour: 8, zone: paris, now: 1_768_458_600)
        #expect(january.start == 1_768_374_000, "before 08:00 in Paris: the day before's digest")
        #expect(DigestSchedule.current(daily: true, hour: 8, zone: paris, now: 1_768_460_400).start == 1_768_460_400)
        #expect(ZoneOffsets(name: "../etc/passwd") == nil && ZoneOffsets(name: "Mars/Olympus") == nil)
        let hourly = DigestSchedule.current(daily: false, hour: 0, zone: paris, now: 1_768_458_600)
        #expect(hourly.start == 1_768_456_800 && hourly.key == "hourly:1768456800")
    }
}
