import Foundation
import Testing

/// The data at rest is private to the server's user, and security events are logged
/// with the client's address and never a secret (real `har serve` processes, real files).
@Suite struct AtRestAndLogTests {
    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// What `har serve` printed when it refused to start (empty when it started, and then the folder
    /// is gone: a ServeProcess removes its data folder when it goes).
    private func refusal(dataDir: String) async -> String {
        do {
            let server = try await ServeProcess(dataDir: dataDir)
            _ = await server.stop()
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test func theDataFolderAndDatabaseAreTheServersAlone() async throws {
        let fresh = try TestPaths.temporaryDirectory() + "/data"
        let server = try await ServeProcess(dataDir: fresh)
        #expect(await server.stop().status == 0)
        #expect(try mode(fresh) == 0o700)
        #expect(try mode(fresh + "/har.sqlite") == 0o600)
    }

    /// The embedded platform keeps accounts and sessions: its database and the -wal and -shm files
    /// SQLite makes beside it (seen while it runs), and every other file it writes, are 0600.
    @Test func everyFileTheEmbeddedPlatformWritesIsTheServersAlone() async throws {
        let server = try await ServeProcess()
        let client = try WebClient(server)
        _ = try await client.signIn(uniqueEmail(), "a password of the volunteer")
        let folder = server.dataDir + "/platform"
        for suffix in ["", "-wal", "-shm"] {
            #expect(try mode(folder + "/platform.sqlite" + suffix) == 0o600, "platform.sqlite\(suffix)")
        }
        let files = FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []
        #expect(!files.isEmpty)
        for name in files {
            var info = stat()
            guard stat(folder + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            #expect(info.st_mode & 0o077 == 0, "\(name) is \(String(info.st_mode & 0o777, radix: 8))")
        }
        #expect(await server.stop().status == 0)
    }

    @Test func aWorldWritableDataFolderOrDatabaseStopsStartWithTheFix() async throws {
        let folder = try TestPaths.temporaryDirectory() + "/data"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        chmod(folder, 0o777)
        let refused = await refusal(dataDir: folder)
        #expect(refused.contains("can be written by every user of this machine (mode 777)"))
        #expect(refused.contains("chmod o-w"))

        chmod(folder, 0o700)
        let server = try await ServeProcess(dataDir: folder)
        #expect(await server.stop().status == 0)
        chmod(folder + "/har.sqlite", 0o666)
        #expect(await refusal(dataDir: folder).contains("database \(folder)/har.sqlite can be written by every user"))
        withExtendedLifetime(server) {}  // a ServeProcess removes its data folder when it goes
    }

    @Test func signInsAndCSRFRefusalsAreSecurityEventsWithoutSecrets() async throws {
        let server = try await ServeProcess()
        let client = try WebClient(server)
        let email = uniqueEmail()
        _ = try await client.signIn(email, "a password of the volunteer")
        let session = client.cookie("har_session") ?? "none"
        _ = try await WebClient(server).signIn(email, "another password tried")
        let forged = try await client.post("/signout", [("_csrf", "0123456789abcdef")])
        #expect(forged.status == 403)
        let log = await server.stop().stderr
        let events = log.split(separator: "\n").filter { $0.contains(" security event=") }

        let success = events.filter { $0.contains("event=signin.success") }
        let failure = events.filter { $0.contains("event=signin.failure") }
        let csrf = events.filter { $0.contains("event=csrf.refused") }
        #expect(success.count == 1 && failure.count == 1 && csrf.count == 1)
        #expect(success.first?.contains("client=127.0.0.1") == true)
        #expect(failure.first?.contains("reason=wrong-password") == true)
        #expect(csrf.first?.contains("path=/signout") == true)
        // The same account is recognisable across events, the address itself never written.
        let digest = success.first?.split(separator: " ").first { $0.hasPrefix("email=sha256:") }
        #expect(digest != nil && failure.first?.contains(digest ?? "-") == true)
        for secret in [email, "a password of the volunteer", "another password tried", session, "0123456789abcdef"] {
            #expect(!log.contains(secret), "the log holds \(secret)")
        }
    }

    @Test func aSignInLimitHitIsAnEvent() async throws {
        let server = try await ServeProcess()
        let email = uniqueEmail()
        _ = try await WebClient(server).signIn(email, "the right one")
        for _ in 0..<11 { _ = try await WebClient(server).signIn(email, "wrong") }
        let log = await server.stop().stderr
        #expect(log.contains("security event=signin.limited client=127.0.0.1 email=sha256:"))
    }

    /// NOT-04: a one-click unsubscribe link's secret never reaches the access log, whatever the answer.
    @Test func not04TheUnsubscribeSecretNeverReachesTheAccessLog() async throws {
        let server = try await ServeProcess()
        let secret = String(repeating: "5a", count: 16)
        let client = try HTTPClient(baseURL: server.baseURL)
        #expect(try await client.get("/mail/unsubscribe/\(secret)").status == 200, "the page with its button")
        #expect(try await client.post("/mail/unsubscribe/\(secret)", form: []).status == 404, "no such secret")
        try await waitUntil("both requests are logged") {
            server.accessLog().components(separatedBy: "/mail/unsubscribe/").count > 2
        }
        let log = server.accessLog()
        #expect(log.contains("GET /mail/unsubscribe/[redacted] 200"), "\(log)")
        #expect(log.contains("POST /mail/unsubscribe/[redacted] 404"))
        #expect(!log.contains(secret))
        _ = await server.stop()
    }
}
