import Foundation
import Testing

@testable import HeritageApp

/// The mail outbox on the real server: a coordinator's decision queues the reporter's mail in its own
/// transaction, the mail worker hands it to a real SMTP server (Tests/mail/smtp_sink.py) under a lease,
/// once, through 4xx answers, 5xx refusals and a `kill -9`.
@Suite(.serialized) struct MailOutboxTests {
    private static func mailEnvironment(_ sink: SMTPSink, _ extra: [String: String] = [:]) -> [String: String] {
        [
            "HAR_SMTP_URL": sink.url, "HAR_SMTP_FROM": "har@example.org", "HAR_PUBLIC_URL": "https://har.example.org",
            "HAR_RETRY_BASE_SECONDS": "0.2", "HAR_RETRY_CAP_SECONDS": "1",
        ].merging(extra) { $1 }
    }

    /// A volunteer's report asked about by the coordinator; returns the report's local id.
    private static func askAbout(
        _ server: RunningServer, _ volunteer: SignedInClient, question: String, prefix: String
    ) async throws -> String {
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let id = try #require(
            try ReviewTests.insertReports(server, email: volunteer.email, count: 1, prefix: prefix).first)
        let asked = try await ReviewTests.post(
            coordinator, "/review/reports/\(id)/action", [("action", "needs_info"), ("message", question)],
            tokenFrom: "/review")
        #expect(asked.status == 303)
        return try sqlite(server.dataDir, "SELECT local_id FROM reports WHERE id = \(id)")
    }

    @Test("NOT-03, NOT-04: a question reaches the reporter once, in the French they last used; one click unsubscribes")
    func aQuestionReachesTheReporterOnceInTheirLanguage() async throws {
        let sink = try await SMTPSink()
        let server = try ReviewTests.server(Self.mailEnvironment(sink))
        let volunteer = try await SignedInClient(server)
        #expect(try await ReviewTests.post(volunteer, "/lang", [("lang", "fr"), ("back", "/reports")]).status == 303)
        let localID = try await Self.askAbout(server, volunteer, question: "Quelle chapelle ?", prefix: "Chapelle")

        let mail = try #require(try await sink.waitForMessages(1).first)
        #expect(mail["subject"] == "Votre signalement « Chapelle 1 » a besoin de précisions")
        #expect(mail["content_language"] == "fr")
        #expect(mail.text.contains("Quelle chapelle ?"))
        #expect(mail.text.contains("https://har.example.org/reports/\(localID)/reply"))
        #expect(mail["auto_submitted"] == "auto-generated")
        #expect(mail["list_unsubscribe_post"] == "List-Unsubscribe=One-Click")
        let unsubscribe = try #require(mail["list_unsubscribe"])
        #expect(unsubscribe.hasPrefix("<https://har.example.org/mail/unsubscribe/"))
        #expect(try sink.envelope(1)["to"] as? [String] == [volunteer.email])

        // Once: the worker keeps polling, nothing more arrives; the row is sent, after one attempt.
        try await Task.sleep(for: .seconds(2))
        #expect(sink.messageFiles().count == 1)
        #expect(try sqlite(server.dataDir, "SELECT state || '|' || attempts FROM mail_outbox") == "sent|1")
        let metrics = try await curl(server.baseURL + "/metrics")
        #expect(metrics.body.contains(#"har_mail_messages{state="sent"} 1"#))
        #expect(metrics.body.contains(#"har_mail_messages{state="queued"} 0"#))

        // RFC 8058: the mail client POSTs, with no cookie and no CSRF token.
        let path = String(unsubscribe.dropFirst("<https://har.example.org".count).dropLast())
        let anonymous = try HTTPClient(baseURL: server.baseURL)
        let shown = try await anonymous.get(path)
        #expect(
            shown.status == 200 && shown.body.contains(#"<form method="post""#),
            "\(path) \(shown.status) \(shown.body.prefix(300))")
        #expect(
            try sqlite(server.dataDir, "SELECT mail_needs_info FROM users WHERE email = '\(volunteer.email)'") == "1")
        // What the person also chose: decisions' mail, a coordinator's review mail, the note.
        try sqlite(
            server.dataDir,
            "UPDATE users SET mail_decisions = 1, coordinator_mail = 'daily' WHERE email = '\(volunteer.email)'")
        let done = try await anonymous.post(path, form: [("List-Unsubscribe", "One-Click")])
        #expect(done.status == 200 && done.body.contains("no more e-mail when a coordinator asks"))
        // NOT-04: only what the message was about is off; the secret is spent; the change is audited.
        let choices = "SELECT mail_needs_info || mail_decisions || coordinator_mail || mail_admin_note FROM users"
        #expect(try sqlite(server.dataDir, choices + " WHERE email = '\(volunteer.email)'") == "01daily1")
        #expect(try await anonymous.post(path, form: [("List-Unsubscribe", "One-Click")]).status == 404, "once")
        #expect(
            try sqlite(
                server.dataDir,
                "SELECT actor || '|' || subject || '|' || detail FROM review_audit WHERE action = 'mail_unsubscribe'")
                == "unsubscribe link|\(volunteer.email)|questions")
        // Another token: the last character changed (to "1" where it was "0", so never the same token).
        let forged = String(path.dropLast()) + (path.hasSuffix("0") ? "1" : "0")
        #expect(try await anonymous.post(forged, form: []).status == 404)

        // Unsubscribed: the next question queues nothing.
        _ = try await Self.askAbout(server, volunteer, question: "Et le porche ?", prefix: "Porche")
        #expect(try sqlite(server.dataDir, "SELECT group_concat(state) FROM mail_outbox ORDER BY id") == "sent,skipped")
        await server.stop()
    }

    @Test("NOT-04: a 451 is retried with backoff and the message arrives once")
    func aDeferralIsRetriedAndTheMessageArrivesOnce() async throws {
        let sink = try await SMTPSink(["--defer", "2"])
        let server = try ReviewTests.server(Self.mailEnvironment(sink))
        let volunteer = try await SignedInClient(server)
        _ = try await Self.askAbout(server, volunteer, question: "Which side?", prefix: "Deferred")
        let mail = try #require(try await sink.waitForMessages(1).first)
        #expect(mail["subject"] == "Your report “Deferred 1” needs more information")
        try await Task.sleep(for: .seconds(2))
        #expect(sink.messageFiles().count == 1)
        #expect(try sqlite(server.dataDir, "SELECT state || '|' || attempts FROM mail_outbox") == "sent|3")
        await server.stop()
    }

    @Test("NOT-04: a 550 is recorded as failed and never retried")
    func aPermanentRefusalIsFailedAndNeverRetried() async throws {
        let sink = try await SMTPSink(["--reject"])
        let server = try ReviewTests.server(Self.mailEnvironment(sink))
        let volunteer = try await SignedInClient(server)
        _ = try await Self.askAbout(server, volunteer, question: "Which side?", prefix: "Refused")
        try await waitUntil("the refusal is recorded", timeout: 30) {
            try sqlite(server.dataDir, "SELECT state FROM mail_outbox") == "failed"
        }
        try await Task.sleep(for: .seconds(2))
        let row = try sqlite(server.dataDir, "SELECT attempts || '|' || last_reply FROM mail_outbox")
        #expect(row.hasPrefix("1|550 "), "\(row)")
        let metrics = try await curl(server.baseURL + "/metrics")
        #expect(metrics.body.contains(#"har_mail_messages{state="failed"} 1"#))
        await server.stop()
    }

    @Test(
        "NOT-03: approvals and rejections go only to who asked for them in their settings, with the public reason, never the note"
    )
    func decisionsGoOnlyToWhoAskedForThem() async throws {
        let sink = try await SMTPSink()
        let server = try ReviewTests.server(Self.mailEnvironment(sink))
        let volunteer = try await SignedInClient(server)
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let ids = try ReviewTests.insertReports(server, email: volunteer.email, count: 2, prefix: "Decided")
        let first = try await ReviewTests.post(
            coordinator, "/review/reports/\(ids[0])/action", [("action", "approve")], tokenFrom: "/review")
        #expect(first.status == 303)
        #expect(try sqlite(server.dataDir, "SELECT state FROM mail_outbox") == "skipped")
        // The settings page, without JavaScript: questions on by default, decisions off; the volunteer turns
        // decisions on (and questions off).
        let settings = try await volunteer.get("/settings")
        #expect(settings.body.contains(#"name="needs_info" value="1" checked"#))
        #expect(settings.body.contains(#"name="decisions" value="1">"#))
        let saved = try await ReviewTests.post(
            volunteer, "/settings/mail", [("decisions", "1")], tokenFrom: "/settings")
        #expect(saved.status == 303)
        #expect(
            try sqlite(
                server.dataDir, "SELECT mail_needs_info || mail_decisions FROM users WHERE email = '\(volunteer.email)'"
            )
                == "01")
        let second = try await ReviewTests.post(
            coordinator, "/review/reports/\(ids[1])/action",
            [("action", "reject"), ("reason", "not_heritage"), ("message", "internal: looks like a garage")],
            tokenFrom: "/review")
        #expect(second.status == 303)
        let mail = try #require(try await sink.waitForMessages(1).first)
        #expect(mail["subject"] == "Your report “Decided 2” was not kept")
        #expect(mail.text.contains("Reason: Not heritage."))
        #expect(!mail.text.contains("garage") && !mail.html.contains("garage"))
        await server.stop()
    }
}

/// `kill -9` of `har serve` while the SMTP server holds its message before answering: the restarted
/// server sends it again. SMTP cannot tell whether the first copy was taken, so this is the at-least-once
/// window docs/NOTIFICATIONS.md describes: every copy carries the same Message-ID, the row ends `sent`.
@Suite struct MailCrashTests {
    @Test("NOT-04: kill -9 mid-send: the message goes again after the restart, with the same Message-ID")
    func aKilledServerSendsTheMessageAgainWithTheSameMessageID() async throws {
        let sink = try await SMTPSink(["--delay", "3"])
        let environment = [
            "HAR_SMTP_URL": sink.url, "HAR_SMTP_FROM": "har@example.org", "HAR_WORKER_ENABLED": "false",
            "HAR_COORDINATORS": ReviewTests.coordinator, "HAR_PLATFORM_VERIFIED": ReviewTests.coordinator,
        ]
        let first = try await ServeProcess(environment: environment)
        let volunteer = try await SignedInClient(first)
        let coordinator = try await SignedInClient(first, email: ReviewTests.coordinator)
        try sqlite(
            first.dataDir,
            """
            INSERT INTO reports (user_id, local_id, state, name, designation, condition, grade, latitude, longitude,
                accuracy, creation_time, submitted_at, submit_token, updated_at)
            SELECT id, 'crash1', 'queued', 'Crash 1', 'LB', 'poor', 'II', 48.8, 2.3, 8, 1, 1, 'tok', 1
            FROM users WHERE email = '\(volunteer.email)'
            """)
        let id = try sqlite(first.dataDir, "SELECT id FROM reports WHERE local_id = 'crash1'")
        let asked = try await ReviewTests.post(
            coordinator, "/review/reports/\(id)/action", [("action", "needs_info"), ("message", "Which one?")],
            tokenFrom: "/review")
        #expect(asked.status == 303)
        try await waitUntil("the sink holds the whole message, unanswered", timeout: 60) {
            FileManager.default.fileExists(atPath: sink.folder + "/1.arrived")
        }
        await first.harProcess.killHard()
        #expect(try sqlite(first.dataDir, "SELECT state FROM mail_outbox") == "sending")

        let second = try await ServeProcess(environment: environment, dataDir: first.dataDir)
        let copies = try await sink.waitForMessages(2, timeout: 60)
        #expect(Set(copies.map { $0["message_id"] ?? "" }).count == 1)
        try await waitUntil("the row is sent", timeout: 30) {
            try sqlite(first.dataDir, "SELECT state || '|' || attempts FROM mail_outbox") == "sent|2"
        }
        try await Task.sleep(for: .seconds(1))
        #expect(sink.messageFiles().count == 2)
        _ = await second.stop()
        withExtendedLifetime(first) {}
    }
}

/// NOT-06: the same events in the app, with no mail server configured: a bell with the unread count on
/// every signed-in screen, the notifications page, and reading one goes to what it is about.
@Suite struct NotificationsPageTests {
    @Test("NOT-06: with mail off, a question shows on the bell and the notifications page; opening it reads it")
    func aQuestionShowsInTheAppWithMailOff() async throws {
        let server = try ReviewTests.server()
        let volunteer = try await SignedInClient(server)
        #expect(try await volunteer.get("/reports").body.contains(#"aria-label="Notifications: 0 unread""#))
        let coordinator = try await SignedInClient(server, email: ReviewTests.coordinator)
        let id = try #require(
            try ReviewTests.insertReports(server, email: volunteer.email, count: 1, prefix: "Bell").first)
        let question = "Which <b>door</b>?"
        let asked = try await ReviewTests.post(
            coordinator, "/review/reports/\(id)/action", [("action", "needs_info"), ("message", question)],
            tokenFrom: "/review")
        #expect(asked.status == 303)
        let localID = try sqlite(server.dataDir, "SELECT local_id FROM reports WHERE id = \(id)")
        #expect(try sqlite(server.dataDir, "SELECT state FROM mail_outbox") == "queued", "kept for when mail is on")

        for path in ["/reports", "/settings", "/notifications"] {
            let page = try await volunteer.get(path)
            #expect(page.body.contains(#"aria-label="Notifications: 1 unread""#), "\(path)")
            #expect(page.body.contains(#"<span class="bell-count" aria-hidden="true">1</span>"#), "\(path)")
        }
        let page = try await volunteer.get("/notifications")
        #expect(page.body.contains("A coordinator asks for more information about “Bell 1”"))
        #expect(page.body.contains("Which &lt;b&gt;door&lt;/b&gt;?"))
        #expect(page.body.contains(#"<strong class="notification-new">New</strong>"#))
        let notice = try sqlite(server.dataDir, "SELECT id FROM mail_outbox")
        let opened = try await volunteer.get("/notifications/\(notice)")
        #expect(opened.status == 303 && opened.headers["location"] == "/reports/\(localID)/reply")
        #expect(try await volunteer.get("/reports").body.contains(#"aria-label="Notifications: 0 unread""#))
        #expect(!(try await volunteer.get("/notifications").body.contains("notification-new")))
        // Someone else's notice is not theirs to open.
        let other = try await SignedInClient(server)
        #expect(try await other.get("/notifications/\(notice)").status == 404)
        await server.stop()
    }
}
