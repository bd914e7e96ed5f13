import Foundation
import SQLiteStorage
import Testing

@testable import HeritageApp

/// REV-12, KIO-05: a kiosk's platform account is the kiosk's own configuration: the linked coordinator's
/// (while they hold a role) or a dedicated account an administrator signs in once. Run against the real
/// application with its embedded local platform and upload worker.
@Suite(.serialized) struct KioskAccountTests {
    static let password = "kiosk service 7"

    /// The administrator's form for kiosk `id`.
    static func dedicate(_ client: HTTPClient, kiosk id: String, email: String, password: String) async throws
        -> CurlResponse
    {
        try await KioskTests.post(
            client, "/review/kiosks/\(id)/dedicated", [("account_email", email), ("account_password", password)],
            tokenFrom: "/review/kiosks")
    }

    /// Every byte of every file under `folder` (the databases, their WAL, the photos, the logs).
    static func anyFile(under folder: String, contains needle: String) throws -> Bool {
        let bytes = Data(needle.utf8)
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return files.contains { name in
            (try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))?.range(of: bytes) != nil
        }
    }

    /// REV-12, KIO-05: an administrator gives the kiosk a dedicated account (signed in once; only the
    /// platform's session is kept, never the password); its reports go up with that account whoever
    /// holds a role; nobody signs in here with it; when the platform refuses its session the kiosk is
    /// not ready and /review/kiosks says why, and a new sign-in sends what waited.
    @Test func rev12KIO05KioskSendsWithItsOwnDedicatedAccountOnlyAnAdminReplaces() async throws {
        let server = try KioskTests.server(["HAR_WORKER_ENABLED": "true", "HAR_REVIEW_POLICY": "none"])
        let coordinator = try await SignedInClient(server, email: KioskTests.coordinator)
        let admin = "admin.\(UUID().uuidString.prefix(6).lowercased())@example.org"
        let lead = try await SignedInClient(server, email: admin)
        try await ReviewTests.grantConfirmed(server.dataDir, admin, .admin)
        let (tablet, _) = try await KioskTests.enrolledTablet(server, coordinator)
        let id = try sqlite(server.dataDir, "SELECT max(id) FROM kiosks")
        let service = "kiosk.\(UUID().uuidString.prefix(6).lowercased())@example.org"

        // A coordinator may link their own account, not configure a dedicated one; and the form's
        // fields are checked in the user's language.
        #expect(
            try await Self.dedicate(coordinator.http, kiosk: id, email: service, password: Self.password).status == 403)
        let blank = try await Self.dedicate(lead.http, kiosk: id, email: "not an address", password: "")
        #expect(blank.status == 422)
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM kiosks WHERE account_email IS NOT NULL") == "0")

        let set = try await Self.dedicate(lead.http, kiosk: id, email: service, password: Self.password)
        #expect(set.status == 303, "\(set.status) \(set.body.prefix(300))")
        #expect(try sqlite(server.dataDir, "SELECT account_email FROM kiosks WHERE id = \(id)") == service)
        // REV-12: a coordinator may not replace the administrator's dedicated account with their own.
        #expect(!(try await coordinator.get("/review/kiosks").body.contains("/review/kiosks/\(id)/account\"")))
        let replaced = try await KioskTests.post(
            coordinator.http, "/review/kiosks/\(id)/account", [], tokenFrom: "/review/kiosks")
        #expect(replaced.status == 403 && replaced.body.contains("Only an administrator may replace"))
        #expect(try sqlite(server.dataDir, "SELECT account_email FROM kiosks WHERE id = \(id)") == service)
        #expect(try await lead.get("/review/kiosks").body.contains("/review/kiosks/\(id)/account\""))
        let kept = try sqlite(
            server.dataDir,
            "SELECT u.platform_session_id FROM kiosks k JOIN users u ON u.id = k.reports_user_id WHERE k.id = \(id)")
        #expect(!kept.isEmpty, "the platform's session is kept on the kiosk's own row")
        let wrong = try await Self.dedicate(lead.http, kiosk: id, email: service, password: "not the password")
        #expect(wrong.status == 401 && wrong.body.contains("did not sign this account in"))
        #expect(!wrong.body.contains("not the password"), "a password is never shown back")

        // The linking coordinator loses the role: the kiosk goes on with its own account.
        try sqlite(server.dataDir, "DELETE FROM user_roles WHERE email = '\(KioskTests.coordinator)'")
        let first = try await KioskOwnershipTests.fileKioskReport(server, coordinator, name: "Own lintel", on: tablet)
        try await waitUntil("the kiosk's report is stored") {
            try sqlite(server.dataDir, "SELECT state FROM reports WHERE local_id = '\(first.localID)'") == "stored"
        }
        let platform = try Database(path: server.dataDir + "/platform/platform.sqlite", mode: .readOnly)
        defer { platform.close() }
        let owner = try platform.scalar(
            "SELECT a.email FROM report r JOIN account a ON a.id = r.owner_id WHERE r.place_name = 'Own lintel'"
        ).string
        #expect(owner == service, "sent with the kiosk's own account")
        #expect(try await lead.get("/review/kiosks").body.contains("own account)"))

        // Nobody signs in here with the kiosk's account: that person's list would show its reports.
        let stranger = try HTTPClient(baseURL: server.baseURL)
        let signIn = try await KioskTests.post(
            stranger, "/signin", [("email", service), ("password", Self.password)], tokenFrom: "/signin")
        #expect(signIn.status == 409 && signIn.body.contains("own platform account"))

        // The platform ends the account's session: the kiosk's next report waits, the kiosk is not ready
        // and the page says why; an administrator signs the account in again and what waited goes up.
        let platformWriter = try Database(path: server.dataDir + "/platform/platform.sqlite", create: false)
        try platformWriter.run(
            "DELETE FROM session WHERE account_id = (SELECT id FROM account WHERE email = ?)", .text(service))
        platformWriter.close()
        let second = try await KioskOwnershipTests.fileKioskReport(server, coordinator, name: "Late lintel", on: tablet)
        try await waitUntil("the platform refuses the session") {
            try sqlite(server.dataDir, "SELECT state FROM reports WHERE local_id = '\(second.localID)'")
                == "waiting_signin"
        }
        #expect(try await KioskTests.post(tablet, "/kiosk/start", [], tokenFrom: "/kiosk").status == 503, "not ready")
        #expect(try await lead.get("/review/kiosks").body.contains("the platform refused its session"))
        #expect(try await Self.dedicate(lead.http, kiosk: id, email: service, password: Self.password).status == 303)
        try await waitUntil("what waited is stored") {
            try sqlite(server.dataDir, "SELECT state FROM reports WHERE local_id = '\(second.localID)'") == "stored"
        }
        #expect(try await KioskTests.post(tablet, "/kiosk/start", [], tokenFrom: "/kiosk").status == 303)

        // Back to a coordinator's account: the dedicated one and its session are dropped.
        _ = try await KioskTests.post(lead.http, "/review/kiosks/\(id)/account", [], tokenFrom: "/review/kiosks")
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM kiosks WHERE account_email IS NOT NULL") == "0")
        let audit = try sqlite(server.dataDir, "SELECT count(*) FROM review_audit WHERE action = 'kiosk_account'")
        #expect(audit == "3")
        await server.stop()
        #expect(try !Self.anyFile(under: server.dataDir, contains: Self.password), "the password is kept nowhere")
    }

    /// REV-12, KIO-05: `har kiosk account ID EMAIL`, the password on standard input (never on the
    /// command line), does what the page does while `har serve` runs: the session of the data folder's
    /// platform is kept, never the password; a wrong password changes nothing.
    @Test func rev12KIO05DedicatedAccountFromTheCommandLine() async throws {
        let server = try KioskTests.server()
        let coordinator = try await SignedInClient(server, email: KioskTests.coordinator)
        let (tablet, _) = try await KioskTests.enrolledTablet(server, coordinator)
        let id = try sqlite(server.dataDir, "SELECT max(id) FROM kiosks")
        let service = "kiosk.\(UUID().uuidString.prefix(6).lowercased())@example.org"
        func account(_ password: String) async throws -> ProgramResult {
            try await runProgram(
                "/bin/sh", ["-c", #"printf '%s\n' "$KIOSK_PASSWORD" | "$HAR" kiosk account "$KIOSK" "$EMAIL""#],
                environment: [
                    "HAR_DATA_DIR": server.dataDir, "PATH": "/usr/bin:/bin", "USER": "operator",
                    "HAR": TestPaths.harExecutable, "KIOSK": id, "EMAIL": service, "KIOSK_PASSWORD": password,
                ])
        }
        let set = try await account(Self.password)
        #expect(set.status == 0 && set.stdout.contains("the password is not"), "\(set.stdout) \(set.stderr)")
        #expect(try sqlite(server.dataDir, "SELECT account_email FROM kiosks WHERE id = \(id)") == service)
        let wrong = try await account("not the password")
        #expect(wrong.status == 1 && wrong.stderr.contains("did not sign"), "\(wrong.stderr)")
        #expect(try sqlite(server.dataDir, "SELECT count(*) FROM review_audit WHERE action = 'kiosk_account'") == "1")

        // The session works with the server's own platform: the kiosk is ready without a coordinator.
        try sqlite(server.dataDir, "DELETE FROM user_roles WHERE email = '\(KioskTests.coordinator)'")
        #expect(try await KioskTests.post(tablet, "/kiosk/start", [], tokenFrom: "/kiosk").status == 303)
        let listed = try await runProgram(
            TestPaths.harExecutable, ["kiosk", "list"],
            environment: ["HAR_DATA_DIR": server.dataDir, "PATH": "/usr/bin:/bin", "USER": "operator"])
        #expect(listed.stdout.contains("\(service) (own account)"), "\(listed.stdout)")
        await server.stop()
        #expect(try !Self.anyFile(under: server.dataDir, contains: Self.password), "the password is kept nowhere")
    }

    /// Runs `har ARGUMENTS` on a pseudo-terminal (python's `pty`), as a person at a terminal: waits for the
    /// prompt ending in `(not shown): `, types `$TYPED` and Enter, and prints everything the terminal
    /// showed (what a terminal echoes is in it); exits with the command's status.
    static let atATerminal = #"""
        import os, pty, select, sys
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.argv[1], sys.argv[1:])
        shown = b""
        def more():
            global shown
            try:
                chunk = os.read(fd, 1024)
            except OSError:
                return False
            shown += chunk
            return bool(chunk)
        # A failure guard only: a program that never prompts gets the password typed after a minute.
        while b"(not shown): " not in shown and select.select([fd], [], [], 60)[0] and more():
            pass
        os.write(fd, os.environ["TYPED"].encode() + b"\n")
        while more():
            pass
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(shown.decode(errors="replace"))
        sys.exit(os.waitstatus_to_exitcode(status))
        """#

    /// REV-12: at a terminal, `har kiosk account` asks for the password and does not echo what is typed;
    /// the account is set all the same.
    @Test func rev12KioskAccountPasswordIsNotEchoedAtATerminal() async throws {
        let server = try KioskTests.server()
        let coordinator = try await SignedInClient(server, email: KioskTests.coordinator)
        _ = try await KioskTests.enrolledTablet(server, coordinator)
        let id = try sqlite(server.dataDir, "SELECT max(id) FROM kiosks")
        let service = "kiosk.\(UUID().uuidString.prefix(6).lowercased())@example.org"
        let result = try await runProgram(
            "/usr/bin/python3", ["-c", Self.atATerminal, TestPaths.harExecutable, "kiosk", "account", id, service],
            environment: [
                "HAR_DATA_DIR": server.dataDir, "PATH": "/usr/bin:/bin", "USER": "operator", "TYPED": Self.password,
            ])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("Password of the kiosk's account (not shown): "), "\(result.stdout)")
        #expect(!result.stdout.contains(Self.password), "the password typed is not echoed: \(result.stdout)")
        #expect(result.stdout.contains("the password is not"))
        #expect(try sqlite(server.dataDir, "SELECT account_email FROM kiosks WHERE id = \(id)") == service)
        await server.stop()
    }
}
