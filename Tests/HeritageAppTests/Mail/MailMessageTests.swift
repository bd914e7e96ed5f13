import Foundation
import Mustache
import Testing

@testable import HeritageApp

/// The MIME builder and the sender's answers, with what a hostile reporter could write and what a
/// failing SMTP server could do.
@Suite struct MailMessageTests {
    private let from = MailAddress("har@example.org")
    private let reporter = MailAddress("reporter@example.net")

    private func composer() throws -> MailComposer {
        let templates = TestPaths.packageRoot + "/Templates"
        return MailComposer(
            templates: try TemplateLibrary(directory: templates), catalog: try MessageCatalog(directory: templates),
            from: try #require(from))
    }

    private func parse(_ message: MailMessage) async throws -> ParsedMail {
        let folder = try TestPaths.temporaryDirectory()
        let file = folder + "/message.eml"
        try Data(message.bytes()).write(to: URL(fileURLWithPath: file))
        return try await ParsedMail.parse(file: file)
    }

    private func settings(_ sink: SMTPSink) throws -> SMTPSettings {
        var configuration = Configuration()
        configuration.smtpURL = sink.url
        configuration.smtpFrom = "har@example.org"
        configuration.smtpTimeoutSeconds = 20
        return try #require(SMTPSettings(configuration))
    }

    @Test("NOT-05: a hostile name, title or message never injects a header or markup")
    func aHostileNameTitleOrMessageNeverInjectsAHeaderOrMarkup() async throws {
        let name = "Eve\r\nBcc: victim@example.net\r\n<b>bold</b>"
        let title = "Church\r\nBcc: victim@example.net\nX-Evil: 1"
        let question =
            "<script>alert(1)</script>\r\nBcc: x@example.net\r\n.\r\n--=_har_\r\n"
            + String(repeating: "é", count: 10_000)
        let message = try composer().compose(
            {
                MailContent.needsInfo(
                    $0, reporterName: name, reportTitle: title, question: question,
                    answerURL: "https://har.example.org/reports/7/reply")
            },
            to: try #require(reporter), toName: name, language: .en, messageID: "abc@example.org",
            dateSeconds: 1_764_000_000,
            unsubscribeURL: "https://har.example.org/unsubscribe/t0ken")
        let mail = try await parse(message)
        #expect(
            mail.headerNames == [
                "Date", "From", "To", "Subject", "Message-ID", "MIME-Version", "Content-Language", "Auto-Submitted",
                "List-Unsubscribe", "List-Unsubscribe-Post", "Content-Type",
            ])
        #expect(mail["subject"] == "Your report “Church Bcc: victim@example.net X-Evil: 1” needs more information")
        #expect(mail["to"]?.hasSuffix("<reporter@example.net>") == true)
        #expect(mail["message_id"] == "<abc@example.org>")
        #expect(mail["list_unsubscribe"] == "<https://har.example.org/unsubscribe/t0ken>")
        #expect(mail["list_unsubscribe_post"] == "List-Unsubscribe=One-Click")
        #expect(mail.html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!mail.html.contains("<script>"))
        #expect(!mail.html.contains("<b>"))
        #expect(mail.html.contains("Eve Bcc: victim@example.net &lt;b&gt;bold&lt;/b&gt;"))
        #expect(mail.text.contains(question.replacingOccurrences(of: "\r\n", with: "\n")))
        #expect(mail.longestLine <= 78)
        #expect(mail.bareLineFeeds == 0)
        #expect(mail.defects.isEmpty)

        // Through a real server: one recipient in the envelope, the same headers on arrival.
        let sink = try await SMTPSink()
        let outcome = try await blocking { [settings = try settings(sink)] in
            SMTPSender(settings: settings).send(message)
        }
        #expect(outcome == .sent(reply: "250 2.0.0 OK queued as sink-1"))
        let arrived = try #require(try await sink.waitForMessages(1).first)
        #expect(try sink.envelope(1)["to"] as? [String] == ["reporter@example.net"])
        #expect(arrived.headerNames == mail.headerNames)
        #expect(arrived.text == mail.text)
    }

    @Test("NOT-03: a question reads in French, with the link to answer")
    func aQuestionReadsInFrenchWithTheLinkToAnswer()
        async throws
    {
        let message = try composer().compose(
            {
                MailContent.needsInfo(
                    $0, reporterName: "Zoé", reportTitle: "Église Saint-Éloi", question: "Quelle façade ?",
                    answerURL: "https://har.example.org/reports/7/reply")
            },
            to: try #require(reporter), language: .fr, messageID: "fr@example.org", dateSeconds: 1_764_000_000,
            unsubscribeURL: "https://har.example.org/unsubscribe/t")
        let mail = try await parse(message)
        #expect(mail["subject"] == "Votre signalement « Église Saint-Éloi » a besoin de précisions")
        #expect(
            mail["from"] == "Patrimoine en péril <har@example.org>"
                || mail["from"]?.hasSuffix("<har@example.org>") == true)
        #expect(mail.text.contains("Bonjour Zoé,"))
        #expect(mail.text.contains("Répondre au coordinateur: https://har.example.org/reports/7/reply"))
        #expect(mail.html.contains(#"<a href="https://har.example.org/reports/7/reply">Répondre au coordinateur</a>"#))
        #expect(mail.html.contains("Ne plus recevoir ces messages"))
    }

    @Test func headersStayWithinTheirLimits() {
        let long = String(repeating: "Ωmega ", count: 60)
        let encoded = MailHeader.encodedWords(long)
        for line in encoded.components(separatedBy: "\r\n") { #expect(line.utf8.count <= 76) }
        #expect(MailHeader.plainText("a\r\n\tb\u{2028}c\u{0}d") == "a b c d")
        #expect(MailHeader.plainText(String(repeating: "x", count: 500)).count == 200)
        #expect(MailDate.format(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 +0000")
        #expect(MailAddress("a@b.org") != nil)
        for bad in ["a@b.org\r\nBcc: c@d.org", "<a@b.org>", "a b@c.org", "a@", "@b", "a@b@c", "é@b.org", "a@.org"] {
            #expect(MailAddress(bad) == nil, "\(bad)")
        }
    }

    @Test("NOT-04: a 4xx deferral is retried and the message then goes once")
    func aDeferralIsRetryableAndThenTheMessageGoesOnce() async throws {
        let sink = try await SMTPSink(["--defer", "1"])
        let sender = SMTPSender(settings: try settings(sink))
        let message = try composer().compose(
            MailContent.test, to: try #require(reporter), language: .en, messageID: "deferred@example.org",
            dateSeconds: 1_764_000_000)
        let first = try await blocking { sender.send(message) }
        #expect(first == .deferred(code: 451, reply: first.reply))
        #expect(sink.messageFiles().isEmpty)
        let second = try await blocking { sender.send(message) }
        #expect(second == .sent(reply: "250 2.0.0 OK queued as sink-1"))
        #expect(try await sink.waitForMessages(1).count == 1)
    }

    /// SMTP cannot say whether a message that went whole before the connection dropped was taken: the
    /// sender says so (`uncertain`), and the retry carries the same Message-ID, so a duplicate is visible.
    @Test("NOT-04: a connection dropped after DATA is uncertain; the retry keeps the Message-ID")
    func aConnectionDroppedAfterDataIsUncertainAndTheRetryKeepsTheMessageID() async throws {
        let sink = try await SMTPSink(["--drop", "1"])
        let sender = SMTPSender(settings: try settings(sink))
        let message = try composer().compose(
            MailContent.test, to: try #require(reporter), language: .en, messageID: "dropped@example.org",
            dateSeconds: 1_764_000_000)
        let first = try await blocking { sender.send(message) }
        #expect(first == .uncertain(reply: first.reply))
        let second = try await blocking { sender.send(message) }
        #expect(second == .sent(reply: "250 2.0.0 OK queued as sink-2"))
        let arrived = try await sink.waitForMessages(2)
        #expect(arrived.map { $0["message_id"] } == ["<dropped@example.org>", "<dropped@example.org>"])
        #expect(try sink.envelope(1)["answer"] as? String == "dropped")
    }
}

extension SMTPOutcome {
    /// The server's words, whatever the outcome; lets a test compare the outcome's kind and code.
    var reply: String {
        switch self {
        case .sent(let reply), .rejected(_, let reply), .deferred(_, let reply), .uncertain(let reply): reply
        }
    }
}
