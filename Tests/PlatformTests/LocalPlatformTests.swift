import Foundation
import HTTPServer
import Testing

@testable import LocalPlatform
@testable import PlatformClient

@Suite struct LocalPlatformTests {
    @Test(arguments: [false, true]) func signUpThenSignInThenWrongPassword(sqlite: Bool) throws {
        let h = try LocalPlatformHarness(sqlite: sqlite)
        let first = try h.signIn()
        let second = try h.signIn()
        #expect(first != second && first.count == 64)
        let wrong = h.platform.respond(
            to: h.request(
                "POST", "/account/session", json: #"{"email_address":"volunteer@example.org","password":"nope"}"#))
        #expect(wrong.status == 401 && wrong.errorName == "AuthenticationFailureException")
    }

    /// A new account's password has at least 8 characters, refused in the contract's
    /// error shape; an existing account is only ever checked against its own password.
    @Test func aNewAccountsPasswordHasAtLeastEightCharacters() throws {
        let h = try LocalPlatformHarness()
        let short = h.platform.respond(
            to: h.request(
                "POST", "/account/session", json: #"{"email_address":"new@example.org","password":"1234567"}"#))
        #expect(short.status == 400 && short.errorName == "InvalidArgumentException")
        #expect(String(decoding: short.bytes, as: UTF8.self).contains("at least 8 characters"))
        #expect(try h.signIn("new@example.org", password: "12345678").count == 64)
    }

    @Test func missingHeadersAreNamed() throws {
        let h = try LocalPlatformHarness()
        let session = try h.signIn()
        for header in ["X-API-Key", "X-API-Sig", "X-Authentication", "Content-Type"] {
            let response = h.platform.respond(
                to: h.request(
                    "POST", "/har/report", json: LocalPlatformHarness.reportJSON, session: session, omit: header))
            #expect(response.status == 400 && response.errorName == "MissingHeaderException", "\(header)")
            #expect(String(decoding: response.bytes, as: UTF8.self).contains(header))
        }
    }

    @Test func unknownKeyAndBadSignatures() throws {
        let h = try LocalPlatformHarness()
        let session = try h.signIn()
        let unknown = h.platform.respond(to: h.request("GET", "/har/report", session: session, key: "other"))
        #expect(unknown.status == 401 && unknown.errorName == "UndefinedObjectException")
        let forged = h.platform.respond(
            to: h.request(
                "GET", "/har/report", session: session,
                signature: String(repeating: "0", count: 40)))
        #expect(forged.status == 401 && forged.errorName == "InvalidSignatureException")
        // Signed one body, sent another.
        var changed = h.request("POST", "/har/report", json: LocalPlatformHarness.reportJSON, session: session)
        changed.body = Array(LocalPlatformHarness.reportJSON.replacingOccurrences(of: "poor", with: "good").utf8)
        let response = h.platform.respond(to: changed)
        #expect(response.status == 401 && response.errorName == "InvalidSignatureException")
    }

    @Test(arguments: [false, true]) func unknownAndExpiredSessions(sqlite: Bool) throws {
        let h = try LocalPlatformHarness(ttl: 60, sqlite: sqlite)
        let session = try h.signIn()
        #expect(h.platform.respond(to: h.request("GET", "/har/report", session: session)).status == 200)
        let unknown = h.platform.respond(to: h.request("GET", "/har/report", session: "feed"))
        #expect(unknown.status == 401 && unknown.errorName == "ExpiredSessionException")
        h.clock.advance(61)
        let expired = h.platform.respond(to: h.request("GET", "/har/report", session: session))
        #expect(expired.status == 401 && expired.errorName == "ExpiredSessionException")
    }

    @Test func badJSONAndBadCodes() throws {
        let h = try LocalPlatformHarness()
        let session = try h.signIn()
        let bodies = [
            "{not json", "[]", LocalPlatformHarness.reportJSON.replacingOccurrences(of: "\"LPW\"", with: "\"XX\""),
            LocalPlatformHarness.reportJSON.replacingOccurrences(of: "\"poor\"", with: "3"),
            LocalPlatformHarness.reportJSON.replacingOccurrences(of: "\"place_name\"", with: "\"place\""),
            LocalPlatformHarness.reportJSON.replacingOccurrences(of: "48.853", with: "\"48.853\""),
            LocalPlatformHarness.reportJSON.replacingOccurrences(of: "48.853", with: "91"),
        ]
        for body in bodies {
            let response = h.platform.respond(to: h.request("POST", "/har/report", json: body, session: session))
            #expect(response.status == 400 && response.errorName == "InvalidArgumentException", "\(body)")
        }
    }

    @Test(arguments: [false, true]) func createListDeleteAndOwnership(sqlite: Bool) throws {
        let h = try LocalPlatformHarness(sqlite: sqlite)
        let alice = try h.signIn("alice@example.org")
        let bob = try h.signIn("bob@example.org")
        let id = try h.createReport(session: alice)
        let listed = try JSONDecoder().decode(
            [PlatformReport].self,
            from: Data(
                h.platform.respond(to: h.request("GET", "/har/report", session: alice)).bytes))
        #expect(listed.map(\.reportID) == [id])
        #expect(listed.first?.formattedAddress == "48.85300° N, 2.34900° E")
        #expect(listed.first?.designation == "LPW")
        let bobsList = h.platform.respond(to: h.request("GET", "/har/report", session: bob))
        #expect(String(decoding: bobsList.bytes, as: UTF8.self) == "[]")
        let stolen = h.platform.respond(to: h.request("DELETE", "/har/report/\(id)", session: bob))
        #expect(stolen.status == 403 && stolen.errorName == "IllegalAccessException")
        #expect(h.platform.respond(to: h.request("DELETE", "/har/report/\(id)", session: alice)).status == 200)
        let again = h.platform.respond(to: h.request("DELETE", "/har/report/\(id)", session: alice))
        #expect(again.status == 404 && again.errorName == "UndefinedObjectException")
        #expect(
            String(
                decoding: h.platform.respond(to: h.request("GET", "/har/report", session: alice)).bytes,
                as: UTF8.self) == "[]")
        let unknown = h.platform.respond(to: h.request("DELETE", "/har/report/0123", session: alice))
        #expect(unknown.status == 404)
    }

    @Test(arguments: [false, true]) func idempotencyReplaysAndConflicts(sqlite: Bool) throws {
        let h = try LocalPlatformHarness(sqlite: sqlite)
        let session = try h.signIn()
        let first = h.platform.respond(
            to: h.request(
                "POST", "/har/report", json: LocalPlatformHarness.reportJSON,
                session: session, idempotencyKey: "k1"))
        let retry = h.platform.respond(
            to: h.request(
                "POST", "/har/report", json: LocalPlatformHarness.reportJSON,
                session: session, idempotencyKey: "k1"))
        #expect(first.status == 200 && retry.bytes == first.bytes)
        let other = LocalPlatformHarness.reportJSON.replacingOccurrences(of: "poor", with: "good")
        let conflict = h.platform.respond(
            to: h.request(
                "POST", "/har/report", json: other, session: session,
                idempotencyKey: "k1"))
        #expect(conflict.status == 409 && conflict.errorName == "ConflictException")
        // The same user signed in again (a new session): a retry is still the same request.
        let later = try h.signIn()
        #expect(later != session)
        let afterSignIn = h.platform.respond(
            to: h.request(
                "POST", "/har/report", json: LocalPlatformHarness.reportJSON, session: later, idempotencyKey: "k1"))
        #expect(afterSignIn.status == 200 && afterSignIn.bytes == first.bytes)
        // Another user's key space is their own.
        let bob = try h.signIn("bob@example.org")
        let bobs = h.platform.respond(
            to: h.request("POST", "/har/report", json: other, session: bob, idempotencyKey: "k1"))
        #expect(bobs.status == 200)
        let listed = h.platform.respond(to: h.request("GET", "/har/report", session: session))
        #expect(try JSONDecoder().decode([PlatformReport].self, from: Data(listed.bytes)).count == 1)
    }

    @Test(arguments: [false, true]) func photosAcceptedCheckedAndListed(sqlite: Bool) throws {
        let h = try LocalPlatformHarness(photoLimit: 10_000, sqlite: sqlite)
        let alice = try h.signIn("alice@example.org")
        let bob = try h.signIn("bob@example.org")
        let id = try h.createReport(session: alice)
        let bytes = [UInt8].jpeg(size: 5000)
        let ok = h.platform.respond(
            to: try h.photoRequest(reportID: id, bytes: bytes, session: alice, idempotencyKey: "p1"))
        #expect(ok.status == 200)
        let photoID = try JSONDecoder().decode(UploadedPhoto.self, from: Data(ok.bytes)).photoID
        // A retry with the same key, even with a new boundary, is the same upload.
        let retry = h.platform.respond(
            to: try h.photoRequest(reportID: id, bytes: bytes, session: alice, idempotencyKey: "p1"))
        #expect(retry.bytes == ok.bytes)
        let listed = try JSONDecoder().decode(
            [PlatformReport].self,
            from: Data(
                h.platform.respond(to: h.request("GET", "/har/report", session: alice)).bytes))
        let photo = try #require(listed.first?.photos?.first)
        #expect(listed.first?.photos?.count == 1)
        #expect(photo.photoID == photoID && photo.size == 5000 && photo.latitude == 48.853)
        #expect(photo.sha256 == SHA256Stream.hash(bytes))

        let big = h.platform.respond(to: try h.photoRequest(reportID: id, bytes: .jpeg(size: 10_001), session: alice))
        #expect(big.status == 413 && big.errorName == "PayloadTooLargeException")
        let text = h.platform.respond(
            to: try h.photoRequest(reportID: id, bytes: Array("hello, world".utf8), session: alice))
        #expect(text.status == 400 && text.errorName == "InvalidArgumentException")
        let tampered = h.platform.respond(
            to: try h.photoRequest(reportID: id, bytes: bytes, session: alice, tamper: true))
        #expect(tampered.status == 401 && tampered.errorName == "InvalidSignatureException")
        let notMine = h.platform.respond(to: try h.photoRequest(reportID: id, bytes: bytes, session: bob))
        #expect(notMine.status == 403)
        _ = h.platform.respond(to: h.request("DELETE", "/har/report/\(id)", session: alice))
        let deleted = h.platform.respond(to: try h.photoRequest(reportID: id, bytes: bytes, session: alice))
        #expect(deleted.status == 404)
    }

    @Test func faultsAreSeededAndReproducible() async throws {
        var faults = try FaultConfiguration(parsing: "fail5xx=0.3, drop=0.2,seed=7")
        #expect(faults.fail5xx == 0.3 && faults.drop == 0.2 && faults.seed == 7)
        #expect(throws: Refusal.self) { try FaultConfiguration(parsing: "fail5xx=2") }
        #expect(throws: Refusal.self) { try FaultConfiguration(parsing: "boom=1") }
        let a = FaultInjector(faults)
        let b = FaultInjector(faults)
        let sequence = (0..<200).map { _ in a.decide() }
        #expect(sequence == (0..<200).map { _ in b.decide() })
        let failures = sequence.filter { if case .fail = $0 { true } else { false } }.count
        let drops = sequence.filter { $0 == .dropAfterProcessing }.count
        #expect((40...80).contains(failures) && (20...60).contains(drops))
        faults.fail5xx = 0
        faults.drop = 1
        let h = try LocalPlatformHarness(faults: faults)
        // A dropped request is still processed: the account exists afterwards.
        let dropped = await h.platform.handle(
            h.request(
                "POST", "/account/session", json: #"{"email_address":"d@example.org","password":"d password"}"#))
        #expect(dropped.closesConnectionWithoutAnswer)
        let wrong = h.platform.respond(
            to: h.request(
                "POST", "/account/session", json: #"{"email_address":"d@example.org","password":"other"}"#))
        #expect(wrong.status == 401)
    }

    @Test func appsParse() throws {
        #expect(try LocalPlatformConfiguration.parseApps("a:b,c:d:e") == ["a": "b", "c": "d:e"])
        #expect(throws: Refusal.self) { try LocalPlatformConfiguration.parseApps("a") }
    }
}
