import Foundation
import Testing

@testable import HeritageApp

/// Mail through a real SMTP server on loopback (Tests/mail/smtp_sink.py), sent by `har mail test` and by
/// the sender the outbox uses, read back with Python's `email` package.
@Suite struct MailSendingTests {
    private static let password = "pw-\(UUID().uuidString)"

    private func mailEnvironment(_ sink: SMTPSink, tls: String? = nil) -> [String: String] {
        var environment = [
            "HAR_SMTP_URL": tls == nil ? sink.url : "smtp://localhost:\(sink.port)",
            "HAR_SMTP_FROM": "har@example.org",
        ]
        if let tls {
            environment["HAR_SMTP_USER"] = "alice"
            environment["HAR_SMTP_PASSWORD"] = Self.password
            environment["HAR_SMTP_CA_FILE"] = tls + "/ca.pem"
        }
        return environment
    }

    private func certificate() async throws -> String {
        let folder = try TestPaths.temporaryDirectory() + "/tls"
        let made = try await runHar(["tls", "self-signed", "--host", "localhost", "--dir", folder])
        #expect(made.status == 0, "\(made.stderr)")
        return folder
    }

    @Test("NOT-01: har mail test sends over STARTTLS with authentication and prints the answer")
    func harMailTestSendsOverSTARTTLSWithAuthenticationAndPrintsTheAnswer() async throws {
        let tls = try await certificate()
        let sink = try await SMTPSink([
            "--tls", tls + "/cert.pem", tls + "/key.pem", "--auth", "alice:" + Self.password,
        ])
        let result = try await runHar(
            ["mail", "test", "someone@example.net"], environment: mailEnvironment(sink, tls: tls))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("250 2.0.0 OK queued as sink-1"))
        let mail = try #require(try await sink.waitForMessages(1).first)
        let envelope = try sink.envelope(1)
        #expect(envelope["tls"] as? Bool == true)
        #expect(envelope["user"] as? String == "alice")
        #expect(envelope["to"] as? [String] == ["someone@example.net"])
        #expect(mail["subject"] == "Heritage at Risk: test message")
        #expect(mail["auto_submitted"] == "auto-generated")
        #expect(mail["content_type"] == "multipart/alternative")
        #expect(mail.text.contains("If you can read it, mail works."))
        #expect(mail.html.contains("<p>This test message was sent with har mail test."))
        #expect(result.stdout.contains(try #require(mail["message_id"]).dropFirst().dropLast()))
        // A message nobody subscribed to offers no unsubscribe link.
        #expect(mail["list_unsubscribe"] == nil)
        #expect(mail.defects.isEmpty)
        #expect(!(result.stdout + result.stderr).contains(Self.password))
    }

    @Test("NOT-01: the test message comes in French when asked")
    func theTestMessageComesInFrenchWhenAsked()
        async throws
    {
        let sink = try await SMTPSink()
        let result = try await runHar(
            ["mail", "test", "quelquun@example.fr", "--language", "fr"], environment: mailEnvironment(sink))
        #expect(result.status == 0, "\(result.stderr)")
        let mail = try #require(try await sink.waitForMessages(1).first)
        #expect(mail["subject"] == "Heritage at Risk : message de test")
        #expect(mail["content_language"] == "fr")
        #expect(mail.text.contains("l’envoi de courriels fonctionne"))
        #expect(mail.html.contains(#"<html lang="fr">"#))
        #expect(try sink.envelope(1)["tls"] as? Bool == false)
    }

    @Test("NOT-01: the password is never printed nor logged")
    func thePasswordIsNeverPrintedNorLogged() async throws {
        let tls = try await certificate()
        let sink = try await SMTPSink(["--tls", tls + "/cert.pem", tls + "/key.pem", "--auth", "alice:other"])
        let refused = try await runHar(["mail", "test", "a@example.net"], environment: mailEnvironment(sink, tls: tls))
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("535"))
        #expect(!(refused.stdout + refused.stderr).contains(Self.password))

        let server = try await ServeProcess(environment: mailEnvironment(sink, tls: tls))
        _ = try await curl(server.baseURL + "/healthz")
        let stopped = await server.stop()
        #expect(!(server.accessLog() + stopped.stderr).contains(Self.password))
        let help = try await runHar(["serve", "--help"], environment: mailEnvironment(sink, tls: tls))
        #expect(!(help.stdout + help.stderr).contains(Self.password))
    }

    @Test("NOT-04: a permanent refusal is reported as permanent")
    func aPermanentRefusalIsReportedAsPermanent()
        async throws
    {
        let sink = try await SMTPSink(["--reject"])
        let result = try await runHar(["mail", "test", "nobody@example.net"], environment: mailEnvironment(sink))
        #expect(result.status == 1)
        #expect(result.stderr.contains("refused (550, permanent)"))
        #expect(sink.messageFiles().isEmpty)
    }

    @Test func mailIsOffWithoutAServer() async throws {
        let result = try await runHar(["mail", "test", "a@example.net"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("mail is off"))
        let bad = try await runHar(["mail", "test", "not an address\r\nBcc: x@example.net"])
        #expect(bad.status == 64)
    }

    @Test func mailKeysGoTogetherAndThePasswordLivesInTheEnvironmentOnly() throws {
        let url = ["HAR_SMTP_URL": "smtp://127.0.0.1:2525"]
        #expect(throws: ConfigurationError("smtp_url is set but smtp_from is missing")) {
            try Configuration.load(file: nil, environment: url)
        }
        #expect(throws: ConfigurationError.self) {
            try Configuration.load(
                file: nil, environment: ["HAR_SMTP_URL": "smtp://u:p@mail.example.org", "HAR_SMTP_FROM": "a@b.org"])
        }
        #expect(throws: ConfigurationError.self) {
            try Configuration.load(file: nil, environment: ["HAR_SMTP_URL": "http://mail", "HAR_SMTP_FROM": "a@b.org"])
        }
        #expect(throws: ConfigurationError("HAR_SMTP_PASSWORD is set but smtp_user is missing")) {
            try Configuration.load(
                file: nil,
                environment: url.merging(["HAR_SMTP_FROM": "a@b.org", "HAR_SMTP_PASSWORD": "x"]) { $1 })
        }
        let file = try TestPaths.temporaryFile(contents: #"{"smtp_password": "in a file"}"#)
        #expect(throws: ConfigurationError("\(file): unknown configuration key \"smtp_password\"")) {
            try Configuration.load(file: file, environment: [:])
        }
        let loaded = try Configuration.load(
            file: nil,
            environment: url.merging(["HAR_SMTP_FROM": "a@b.org", "HAR_SMTP_USER": "u", "HAR_SMTP_PASSWORD": "x"]) {
                $1
            })
        #expect(loaded.smtpPassword == "x")
    }
}
