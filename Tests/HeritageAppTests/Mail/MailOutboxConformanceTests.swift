import Foundation
import Testing

@testable import HeritageApp

/// `MailOutboxStore` through its protocol, once per backend (SQLite and PostgreSQL): a decision queues
/// the reporter's mail in its transaction, in their last language; leases keep a row to one node at a time.
@Suite struct MailOutboxConformanceTests {
    private func askAbout(_ scene: StoreScene, userID: Int64, question: String) throws -> Int64 {
        let report = scene.stores.review
        let (id, _) = try scene.queuedReport(userID: userID, photos: 1)
        let decision = try #require(ReviewAction.needsInfo.decision(reason: nil, message: question))
        #expect(try report.decide(decision, id: id, actor: "c@example.org", now: scene.now) == .done)
        return id
    }

    @Test(
        "NOT-03, NOT-04: a question is queued once, in the reporter’s language; a lease keeps it to one node",
        arguments: StoreBackend.all)
    func aQuestionIsQueuedOnceAndLeasedToOneNode(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let mail = scene.stores.mail
        let reporter = try scene.user("reporter@example.org")
        try mail.recordLanguage(userID: reporter, language: "fr")
        _ = try askAbout(scene, userID: reporter, question: "Quelle façade ?")
        #expect(try mail.countsByState() == ["queued": 1])

        let now = scene.now
        let jobs = try mail.claimDue(owner: "a", now: now, leaseUntil: now + 60, limit: 10) { "u1" }
        let job = try #require(jobs.first)
        #expect(jobs.count == 1)
        #expect(job.kind == "needs_info" && job.language == "fr" && job.detail == "Quelle façade ?")
        #expect(job.email == "reporter@example.org" && job.unsubscribeToken == "u1" && job.attempts == 1)
        #expect(try mail.claimDue(owner: "b", now: now + 1, leaseUntil: now + 61, limit: 10) { "u2" }.isEmpty)
        #expect(try !mail.finish(id: job.id, owner: "b", result: .sent(reply: "250"), now: now + 1))
        #expect(try mail.finish(id: job.id, owner: "a", result: .retry(at: now + 10, reply: "451"), now: now + 2))
        #expect(try mail.claimDue(owner: "b", now: now + 5, leaseUntil: now + 65, limit: 10) { "u3" }.isEmpty)

        // A lapsed lease (node a died mid-send) is taken over; a's late answer no longer counts.
        let again = try mail.claimDue(owner: "a", now: now + 11, leaseUntil: now + 12, limit: 10) { "u4" }
        #expect(again.map(\.attempts) == [2])
        #expect(again.first?.token == job.token, "the same Message-ID on every attempt")
        #expect(again.first?.unsubscribeToken == "u1", "the message's unsubscribe secret is made once")
        let taken = try mail.claimDue(owner: "b", now: now + 13, leaseUntil: now + 70, limit: 10) { "u5" }
        #expect(taken.map(\.attempts) == [3])
        #expect(try !mail.finish(id: job.id, owner: "a", result: .sent(reply: "250"), now: now + 14))
        #expect(try mail.finish(id: job.id, owner: "b", result: .sent(reply: "250 ok"), now: now + 14))
        #expect(try mail.countsByState() == ["sent": 1])
        #expect(try mail.releaseLeft(owner: "b") == 0)

        // NOT-04: the link turns off what its message was about, once, audited; nothing else.
        try mail.saveMailChoices(MailChoices(needsInfo: true, decisions: true), userID: reporter)
        #expect(try mail.unsubscribe(token: "u1", now: now) == .questions)
        #expect(try mail.unsubscribe(token: "u1", now: now) == nil, "a secret works once")
        #expect(try mail.unsubscribe(token: "nobody", now: now) == nil)
        #expect(try mail.mailChoices(userID: reporter) == MailChoices(needsInfo: false, decisions: true))
        let audit = try scene.stores.review.audit(AuditFilter(), beforeID: nil, limit: 5)
        #expect(audit.first?.action == "mail_unsubscribe" && audit.first?.subject == "reporter@example.org")
        _ = try askAbout(scene, userID: reporter, question: "Et le porche ?")
        #expect(try mail.countsByState() == ["sent": 1, "skipped": 1], "unsubscribed: shown in the app, not mailed")
    }

    @Test("NOT-04: what a former run left mid-send goes back to the queue", arguments: StoreBackend.all)
    func aFormerRunsRowsGoBackToTheQueue(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let mail = scene.stores.mail
        let reporter = try scene.user("reporter@example.org")
        _ = try askAbout(scene, userID: reporter, question: "Which side?")
        let now = scene.now
        #expect(try mail.claimDue(owner: "node-1", now: now, leaseUntil: now + 600, limit: 10) { "t" }.count == 1)
        #expect(try mail.releaseLeft(owner: "node-1") == 1)
        let again = try mail.claimDue(owner: "node-1", now: now + 1, leaseUntil: now + 600, limit: 10) { "t2" }
        #expect(again.first?.language == "en" && again.first?.attempts == 2)
    }
}

/// `CoordinatorMailStore` through its protocol, once per backend: a report's arrival queues the mail of
/// the coordinators who chose each report, in the submission's transaction; a digest is made once per
/// (recipient, period); failed mail is listed and queued again.
@Suite struct CoordinatorMailConformanceTests {
    @Test(
        "NOT-02, NOT-04: arrivals queue each-report mail, a period's digest is made once, failed mail is retried",
        arguments: StoreBackend.all)
    func arrivalsDigestsAndFailedMail(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let store = scene.stores.coordinatorMail
        let now = scene.now
        let coordinator = try scene.user("coord@example.org")
        let kioskOnly = try scene.user("kiosk.coord@example.org", token: 2)
        for email in ["coord@example.org", "kiosk.coord@example.org"] {
            try scene.grantConfirmed(email)
        }
        try store.saveCoordinatorChoice(
            CoordinatorChoice(mode: .eachAll, digestHour: 7, timeZone: "Europe/Paris"), userID: coordinator, now: now)
        try store.saveCoordinatorChoice(CoordinatorChoice(mode: .eachKiosk), userID: kioskOnly, now: now)
        #expect(
            try store.coordinatorChoice(userID: coordinator)
                == CoordinatorChoice(mode: .eachAll, digestHour: 7, timeZone: "Europe/Paris"))
        #expect(Set(try store.digestRecipients().map(\.userID)) == [coordinator, kioskOnly])

        let volunteer = try scene.user("volunteer@example.org", token: 3)
        for number in 1...3 { _ = try scene.queuedReport(userID: volunteer, photos: 1, name: "Arrived \(number)") }
        let jobs = try scene.stores.mail.claimDue(owner: "a", now: now, leaseUntil: now + 60, limit: 10) { "u" }
        #expect(jobs.map(\.kind) == ["report_arrived", "report_arrived", "report_arrived"])
        #expect(Set(jobs.map(\.email)) == ["coord@example.org"], "a volunteer's report is no kiosk's")
        #expect(Set(jobs.map(\.token)).count == 3)

        try store.saveCoordinatorChoice(CoordinatorChoice(mode: .daily), userID: coordinator, now: now)
        #expect(
            try store.queueDigest(userID: coordinator, key: "digest:daily:1", foldedBefore: nil, now: now, token: "d1"))
        #expect(
            try !store.queueDigest(
                userID: coordinator, key: "digest:daily:1", foldedBefore: nil, now: now, token: "d2"),
            "once per period")
        #expect(
            try !store.queueDigest(userID: kioskOnly, key: "digest:hourly:1", foldedBefore: now, now: now, token: "d3"),
            "nothing folded: no digest for a coordinator of each report")
        #expect(
            try !store.queueAdminNote(userID: coordinator, key: "admin_note:1", olderThan: 86_400, now: now, token: "n")
        )
        let digest = try #require(try scene.stores.notifications.notifications(userID: coordinator, limit: 1).first)
        #expect(digest.kind == "digest" && DigestCounts(detail: digest.detail ?? "").waiting == 3)

        #expect(try scene.stores.mail.finish(id: jobs[0].id, owner: "a", result: .failed(reply: "550 no"), now: now))
        let failed = try store.failedMail(limit: 10)
        #expect(failed.map(\.id) == [jobs[0].id] && failed.first?.lastReply == "550 no")
        #expect(try store.retryFailed(id: jobs[0].id, now: now + 1))
        #expect(try !store.retryFailed(id: jobs[0].id, now: now + 2))
        #expect(try store.failedMail(limit: 10).isEmpty)
    }
}
