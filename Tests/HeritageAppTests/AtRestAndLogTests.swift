import Foundation
import Testing

/// Issue 9, item 9: the data at rest is private to the server's user, and security events are logged
/// with the client's address and never a secret (real `har serve`, real files).
@Suite struct AtRestAndLogTests {
    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func theDataFolderAndDatabaseAreTheServersAlone() throws {
        let server = try RunningServer()
        let dataDir = server.dataDir
        #expect(server.stop().status == 0)
        #expect(try mode(dataDir + "/har.sqlite") == 0o600)
        let fresh = try TestPaths.temporaryDirectory() + "/data"
        let again = try RunningServer(dataDir: fresh)
        #expect(again.stop().status == 0)
        #expect(try mode(fresh) == 0o700)
        #expect(try mode(fresh + "/har.sqlite") == 0o600)
    }

    @Test func aWorldWritableDataFolderOrDatabaseStopsStartWithTheFix() throws {
        let folder = try TestPaths.temporaryDirectory()
        chmod(folder, 0o777)
        var refusal = ""
        do {
            _ = try RunningServer(dataDir: folder)
        } catch let failure as RunningServer.StartFailure {
            refusal = failure.stderr
        }
        #expect(refusal.contains("can be written by every user of this machine (mode 777)"))
        #expect(refusal.contains("chmod o-w"))

        chmod(folder, 0o700)
        let server = try RunningServer(dataDir: folder)
        #expect(server.stop().status == 0)
        chmod(folder + "/har.sqlite", 0o666)
        refusal = ""
        do {
            _ = try RunningServer(dataDir: folder)
        } catch let failure as RunningServer.StartFailure {
            refusal = failure.stderr
        }
        #expect(refusal.contains("database \(folder)/har.sqlite can be written by every user"))
    }

    @Test func signInsAndCSRFRefusalsAreSecurityEventsWithoutSecrets() throws {
        let server = try RunningServer()
        let client = try WebClient(server)
        let email = uniqueEmail()
        _ = try client.signIn(email, "a password of the volunteer")
        let session = client.cookie("har_session") ?? "none"
        _ = try WebClient(server).signIn(email, "another password tried")
        let forged = try client.post("/signout", [("_csrf", "0123456789abcdef")])
        #expect(forged.status == 403)
        let log = server.stop().stderr
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

    @Test func aSignInLimitHitIsAnEvent() throws {
        let server = try RunningServer()
        let email = uniqueEmail()
        _ = try WebClient(server).signIn(email, "the right one")
        for _ in 0..<11 { _ = try WebClient(server).signIn(email, "wrong") }
        let log = server.stop().stderr
        #expect(log.contains("security event=signin.limited client=127.0.0.1 email=sha256:"))
    }
}
