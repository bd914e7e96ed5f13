import Foundation
import HTTPServer
import PlatformClient
import Testing

@testable import HeritageApp

/// BREACH: pages may go gzip-compressed, so the CSRF token in them is masked afresh in
/// every response; the server unmasks what comes back.
@Suite struct BreachMaskTests {
    @Test func maskingIsFreshEveryTimeAndUnmasksToTheToken() {
        let token = String(repeating: "ab", count: 32)
        let first = CSRFMask.mask(token)
        let second = CSRFMask.mask(token)
        #expect(first.count == 128 && second.count == 128)
        #expect(first != second)
        #expect(!first.contains(token))
        #expect(CSRFMask.matches(sent: first, token: token))
        #expect(CSRFMask.matches(sent: second, token: token))
        #expect(CSRFMask.matches(sent: token, token: token))  // the bare token still stands for itself
        var tampered = Array(first)
        tampered[100] = tampered[100] == "0" ? "1" : "0"
        #expect(!CSRFMask.matches(sent: String(tampered), token: token))
        #expect(!CSRFMask.matches(sent: String(first.dropLast(2)), token: token))
        #expect(!CSRFMask.matches(sent: "zz" + first.dropFirst(2), token: token))
        #expect(!CSRFMask.matches(sent: CSRFMask.mask(String(repeating: "cd", count: 32)), token: token))
    }

    /// The masks' random bytes come from a buffer of each thread (`Crypto.maskBytes`), refilled by
    /// RAND_bytes 1 KiB at a time: every size is filled, across a refill and past the buffer's size,
    /// and no mask repeats, on one thread or on many at once (a buffer shared by threads without a
    /// lock, or handed out twice, would repeat them).
    @Test func maskBytesNeverRepeatAcrossRefillsAndThreads() async {
        #expect(Crypto.maskBytes(0).isEmpty)
        for size in [1, 32, 1_000, 1_024, 1_025, 5_000] { #expect(Crypto.maskBytes(size).count == size) }
        var seen = Set<[UInt8]>()
        for _ in 0..<200 { seen.insert(Crypto.maskBytes(32)) }  // 6,400 bytes: six refills
        #expect(seen.count == 200)
        let perThread = await withTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<8 {
                group.addTask { await Task.detached { (0..<100).map { _ in Crypto.maskBytes(32) } }.value }
            }
            var all: [[UInt8]] = []
            for await masks in group { all += masks }
            return all
        }
        #expect(perThread.count == 800 && Set(perThread).count == 800)
        #expect(seen.isDisjoint(with: perThread))
        // Not all zeros (a buffer never filled) and not one byte repeated (a buffer filled once).
        let sample = Crypto.maskBytes(64)
        #expect(Set(sample).count > 8)
    }

    /// Two pages carry different masked values; both work, signed out (sign-in) and signed in.
    @Test func twoResponsesCarryDifferentMaskedTokensAndBothValidate() async throws {
        let server = try RunningServer()
        defer { Task { await server.stop() } }
        let client = try WebClient(server)
        let signInFirst = try await client.csrf(from: "/signin")
        let signInSecond = try await client.csrf(from: "/signin")
        #expect(signInFirst.count == 128)
        #expect(signInFirst != signInSecond)
        #expect(!signInFirst.contains(try #require(client.cookie("har_csrf"))))
        let signedIn = try await client.post(
            "/signin", [("_csrf", signInFirst), ("email", uniqueEmail()), ("password", "correct horse")])
        #expect(signedIn.status == 303)
        #expect(signedIn.headers["location"] == "/reports")

        let first = try await client.csrf(from: "/settings")
        let second = try await client.csrf(from: "/settings")
        #expect(first.count == 128 && second.count == 128)
        #expect(first != second)
        let session = try sqlite(server.dataDir, "SELECT csrf_token FROM web_sessions")
        for page in ["/settings", "/reports", "/reports/new"] {
            let body = try await client.get(page).body
            #expect(!body.contains(session), "\(page) carries the bare token")
        }
        for token in [first, second] {
            let answer = try await client.post("/lang", [("_csrf", token), ("lang", "fr")])
            #expect(answer.status == 303)
            let json = try await client.postJSON("/api/reports/refresh", "{}", csrf: token)
            #expect(json.status == 200)
        }
        var tampered = Array(first)
        tampered[127] = tampered[127] == "0" ? "1" : "0"
        #expect(try await client.post("/lang", [("_csrf", String(tampered)), ("lang", "en")]).status == 403)
    }
}
