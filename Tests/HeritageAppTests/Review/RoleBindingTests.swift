import Foundation
import Testing

@testable import HeritageApp

/// REV-10 as a stranger meets it: the real `har serve` with its local platform (which signs up an unknown
/// e-mail unverified), and the real `har users` as a child process on the same data folder. A grant
/// never binds by itself to whoever signed in first with the e-mail.
@Suite(.serialized) struct RoleBindingTests {
    static func unique(_ name: String) -> String { "\(name).\(UUID().uuidString.prefix(6).lowercased())@example.org" }

    /// REV-10: a stranger signs in with an e-mail before it is granted (by `har users grant`, a second
    /// grant changing its role, or `HAR_COORDINATORS` at the next start): /review stays 403 until an
    /// administrator confirms the account by its id (typed at `har users confirm`, or `--account`); a
    /// wrong id confirms nothing; `har users list` then says the binding was confirmed, and by whom.
    @Test func rev10AStrangerWhoSignedInFirstTakesNoGrant() async throws {
        let dataDir = try TestPaths.temporaryDirectory()
        let granted = Self.unique("granted")
        let configured = Self.unique("configured")
        let first = try await ServeProcess(environment: ["HAR_WORKER_ENABLED": "false"], dataDir: dataDir)
        let environment = ["HAR_DATA_DIR": dataDir, "PATH": "/usr/bin:/bin", "USER": "operator"]
        func har(_ arguments: [String]) async throws -> ProgramResult {
            try await runProgram(TestPaths.harExecutable, ["users"] + arguments, environment: environment)
        }
        let stranger = try await SignedInClient(first, email: granted)
        _ = try await SignedInClient(first, email: configured)
        #expect(try await stranger.get("/review").status == 403)

        let grant = try await har(["grant", granted, "coordinator"])
        #expect(grant.status == 0 && grant.stdout.contains("pending"), "\(grant.stdout)")
        let refused = try await stranger.get("/review")
        #expect(refused.status == 403, "the grant did not bind to the stranger who signed in first")
        #expect(refused.body.contains("an administrator must confirm your first sign-in"))
        #expect(try await har(["grant", granted, "admin"]).status == 0)
        #expect(try await stranger.get("/review").status == 403, "a second grant confirms nothing")
        let account = try sqlite(dataDir, "SELECT account_id FROM users WHERE email = '\(granted)'")
        let listed = try await har(["list"])
        #expect(listed.stdout.contains("\(granted)\tadmin (pending: first sign-in"), "\(listed.stdout)")
        #expect(listed.stdout.contains("account \(account), to confirm)"))
        _ = await first.stop()

        // The configuration names the other e-mail at the next start: pending as well.
        let second = try await ServeProcess(
            environment: ["HAR_WORKER_ENABLED": "false", "HAR_COORDINATORS": configured], dataDir: dataDir)
        let early = try await SignedInClient(second, email: configured)
        #expect(try await early.get("/review").status == 403, "HAR_COORDINATORS did not bind to the early stranger")
        let again = try await SignedInClient(second, email: granted)

        // The confirmation shows the account, its first sign-in's time and address, and asks for the id.
        let shell = ["HAR_DATA_DIR": dataDir, "PATH": "/usr/bin:/bin", "USER": "operator"]
        let wrong = try await runProgram(
            "/bin/sh", ["-c", "echo not-the-account | \"$0\" users confirm \(granted)", TestPaths.harExecutable],
            environment: shell)
        #expect(wrong.status == 65, "\(wrong.stdout) \(wrong.stderr)")
        #expect(wrong.stdout.contains("first sign-in: account \(account), as \(granted),"), "\(wrong.stdout)")
        #expect(wrong.stdout.contains("from 127.0.0.1"))
        #expect(try await again.get("/review").status == 403)
        let typed = try await runProgram(
            "/bin/sh", ["-c", "echo \(account) | \"$0\" users confirm \(granted)", TestPaths.harExecutable],
            environment: shell)
        #expect(typed.status == 0, "\(typed.stdout) \(typed.stderr)")
        #expect(try await again.get("/review").status == 200, "confirmed by its account id")
        let earlyAccount = try sqlite(dataDir, "SELECT account_id FROM users WHERE email = '\(configured)'")
        #expect(try await har(["confirm", configured, "--account", earlyAccount]).status == 0)
        #expect(try await early.get("/review").status == 200)
        let after = try await har(["list"])
        #expect(after.stdout.contains("\(granted)\tadmin (confirmed by cli:operator "), "\(after.stdout)")
        _ = await second.stop()
        withExtendedLifetime(first) {}
    }

    /// REV-10, the e-mail's case, on a platform that keeps `Ann@` and `ann@` apart (both verified there):
    /// a grant to `Ann.…@` does not bind to the verified account that signs in as `ann.…@`, and the
    /// confirmation on /review/users is refused, said why.
    @Test func rev10AGrantDoesNotBindToAnotherSpelling() async throws {
        let name = "ann.\(UUID().uuidString.prefix(6).lowercased())"
        let lead = Self.unique("lead")
        let server = try await ServeProcess(environment: [
            "HAR_INTERNAL_TEST_CASE_SENSITIVE_EMAILS": "1", "HAR_PLATFORM_VERIFIED": "\(lead),\(name)@example.org",
            "HAR_WORKER_ENABLED": "false",
        ])
        let environment = ["HAR_DATA_DIR": server.dataDir, "PATH": "/usr/bin:/bin", "USER": "operator"]
        let grant = try await runProgram(
            TestPaths.harExecutable, ["users", "grant", "\(name.capitalized)@example.org", "coordinator"],
            environment: environment)
        #expect(grant.status == 0)
        #expect(
            try await runProgram(TestPaths.harExecutable, ["users", "grant", lead, "admin"], environment: environment)
                .status == 0)
        let other = try await SignedInClient(server, email: "\(name)@example.org")
        #expect(try await other.get("/review").status == 403, "a verified ann@ is not Ann@")
        let admin = try await SignedInClient(server, email: lead)
        let account = try sqlite(server.dataDir, "SELECT account_id FROM users WHERE email = '\(name)@example.org'")
        let page = try await admin.get("/review/users")
        #expect(page.body.contains("by account \(account) as \(name)@example.org"), "the spelling typed is shown")
        let refused = try await ReviewTests.post(
            admin, "/review/users",
            [("email", "\(name.capitalized)@example.org"), ("op", "confirm"), ("account", account)],
            tokenFrom: "/review/users")
        #expect(refused.status == 409)
        #expect(refused.body.contains("that sign-in typed \(name)@example.org"))
        #expect(try await other.get("/review").status == 403)
        _ = await server.stop()
    }
}

extension ReviewTests {
    /// `har users grant EMAIL ROLE` then `har users confirm EMAIL --account ID` for the account that
    /// signed in with it, as an administrator binds a role (REV-10), on a running server's data folder.
    static func grantConfirmed(_ dataDir: String, _ email: String, _ role: Role) async throws {
        let environment = ["HAR_DATA_DIR": dataDir, "PATH": "/usr/bin:/bin", "USER": "operator"]
        let account = try sqlite(dataDir, "SELECT account_id FROM users WHERE lower(email) = lower('\(email)')")
        for arguments in [["grant", email, role.rawValue], ["confirm", email, "--account", account]] {
            let result = try await runProgram(
                TestPaths.harExecutable, ["users"] + arguments, environment: environment)
            guard result.status == 0 else { throw TestFailure("har users \(arguments): \(result.stderr)") }
        }
    }
}
