import Foundation
import Testing

@testable import HeritageApp

/// Sign-in limits that slow guessing without locking anyone out, held in the store
/// (the real server on a real socket, the real SQLite file).
@Suite struct SignInLimitTests {
    /// One sign-in from `client` (believed: the server trusts 127.0.0.1 as its proxy).
    private func signIn(_ server: RunningServer, _ email: String, _ password: String, from client: String)
        async throws -> CurlResponse
    {
        let browser = try WebClient(server)
        let fields = [("_csrf", try await browser.csrf()), ("email", email), ("password", password)]
        return try await browser.post("/signin", fields, ["-H", "X-Forwarded-For: \(client)"])
    }

    @Test func fortyVolunteersFromOneAddressGetInWhileFortyGuessesAreSlowed() async throws {
        let server = try RunningServer(environment: ["HAR_TRUSTED_PROXIES": "127.0.0.1"])
        // A training session: forty volunteers on one Wi-Fi, one public address, within a minute.
        for _ in 0..<40 {
            #expect(try await signIn(server, uniqueEmail(), "correct horse", from: "198.51.100.7").status == 303)
        }
        // Forty wrong passwords from one address against one account: a few are answered, then the
        // attempts are refused with a delay to wait out.
        let victim = uniqueEmail()
        #expect(try await signIn(server, victim, "the owner's password", from: "198.51.100.1").status == 303)
        var answers: [CurlResponse] = []
        for _ in 0..<40 { answers.append(try await signIn(server, victim, "a guess", from: "203.0.113.66")) }
        let wrong = answers.filter { $0.status == 401 }.count
        let slowed = answers.filter { $0.status == 429 }
        // Five free failures, then a 15-second delay that doubles: on a very slow machine one more
        // guess may fall after a delay's end, never many.
        #expect((5...7).contains(wrong), "\(answers.map(\.status))")
        #expect(slowed.count == 40 - wrong)
        #expect(slowed.allSatisfy { Int($0.headers["retry-after"] ?? "") ?? 0 >= 1 })
        #expect(slowed.first?.body.contains("Too many sign-in attempts.") == true)
        // The right password from the guessing address waits too: no way round the delay.
        #expect(try await signIn(server, victim, "the owner's password", from: "203.0.113.66").status == 429)
        // The owner, from an address of their own, is not locked out by the guesses.
        #expect(try await signIn(server, victim, "the owner's password", from: "198.51.100.1").status == 303)
        await server.stop()
    }

    @Test func guessesSpreadOverAccountsAreSlowedPerAddress() async throws {
        let server = try RunningServer(environment: ["HAR_TRUSTED_PROXIES": "127.0.0.1"])
        var statuses: [Int] = []
        for _ in 0..<14 {
            let email = uniqueEmail()
            _ = try await signIn(server, email, "correct horse", from: "198.51.100.2")
            statuses.append(try await signIn(server, email, "a guess", from: "203.0.113.5").status)
        }
        // Ten free failures per address, then the delay.
        #expect(statuses.prefix(10).allSatisfy { $0 == 401 }, "\(statuses)")
        #expect(statuses.dropFirst(10).allSatisfy { $0 == 429 }, "\(statuses)")
        // Another client behind the same proxy has a count of its own.
        #expect(try await signIn(server, uniqueEmail(), "correct horse", from: "203.0.113.6").status == 303)
        await server.stop()
    }

    @Test func theLimitSurvivesARestart() async throws {
        let dataDir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let environment = ["HAR_DATA_DIR": dataDir, "HAR_TRUSTED_PROXIES": "127.0.0.1"]
        let first = try RunningServer(environment: environment)
        let email = uniqueEmail()
        _ = try await signIn(first, email, "correct horse", from: "198.51.100.3")
        var statuses: [Int] = []
        for _ in 0..<6 { statuses.append(try await signIn(first, email, "a guess", from: "203.0.113.7").status) }
        #expect(statuses.last == 429, "\(statuses)")
        await first.stop()
        let second = try RunningServer(environment: environment)
        #expect(try await signIn(second, email, "a guess", from: "203.0.113.7").status == 429)
        await second.stop()
    }
}

/// The store's side of the limit, through the protocol (runs once per backend).
@Suite struct SignInLimitStoreTests {
    @Test(arguments: StoreBackend.all) func failuresCountForgetAndClear(backend: StoreBackend) throws {
        let scene = try StoreScene(backend)
        let store = scene.stores.signInLimits
        let now = scene.now
        try store.recordFailure(keys: ["ip:a", "email:x"], now: now - 100, forgetBefore: now - 1000)
        try store.recordFailure(keys: ["ip:a"], now: now - 50, forgetBefore: now - 1000)
        var found = try store.failures(keys: ["ip:a", "email:x", "ip:b"], forgetBefore: now - 1000)
        #expect(found["ip:a"] == SignInFailures(count: 2, lastAt: now - 50))
        #expect(found["email:x"] == SignInFailures(count: 1, lastAt: now - 100))
        #expect(found["ip:b"] == nil)
        // Older than the window: read as none, and a new failure starts again at one.
        found = try store.failures(keys: ["ip:a", "email:x"], forgetBefore: now - 60)
        #expect(found["email:x"] == nil && found["ip:a"]?.count == 2)
        try store.recordFailure(keys: ["email:x"], now: now, forgetBefore: now - 60)
        #expect(try store.failures(keys: ["email:x"], forgetBefore: now - 60)["email:x"]?.count == 1)
        try store.clear(keys: ["ip:a"])
        #expect(try store.failures(keys: ["ip:a"], forgetBefore: now - 1000).isEmpty)
    }

    @Test func theDelayGrowsAndIsCapped() throws {
        let scene = try StoreScene(.sqlite)
        let limiter = SignInLimiter(store: scene.stores.signInLimits)
        let rule = limiter.rules[1]
        #expect(limiter.delay(rule, failures: 4) == 0)
        #expect(limiter.delay(rule, failures: 5) == 15)
        #expect(limiter.delay(rule, failures: 7) == 60)
        #expect(limiter.delay(rule, failures: 500) == 300)
        #expect(limiter.delay(limiter.rules[2], failures: 500) == 30)
    }
}
